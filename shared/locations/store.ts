import type { OccupancyEntry } from './occupancy-entry';
import type { Location, LocationWithGroups, SensorGroup } from './model';

/** What `GET /locations/{id}/insights/live` reads: the location, its groups and their cache entries. */
export interface LiveView extends LocationWithGroups {
  readonly occupancy: readonly OccupancyEntry[];
}

/** What the refresh reads per location: the location, its groups, and which groups have an entry. */
export interface RefreshUnit extends LocationWithGroups {
  readonly cachedGroupIds: readonly number[];
}

/**
 * The table behind locations, sensor groups and the occupancy cache. Every read and write names
 * the organization, so one organization's items cannot be reached with another's identity.
 * Implemented once over a table (./table-store.ts): DynamoDB and DynamoDB Local (./dynamo-store.ts),
 * and the local server's embedded table (bin/local/file-table.ts).
 */
export interface LocationStore {
  /** The organization's locations, ordered by id. */
  listLocations(organizationId: string): Promise<Location[]>;
  /** The location with its groups, or undefined when the organization has no such location. */
  getLocationWithGroups(organizationId: string, locationId: string): Promise<LocationWithGroups | undefined>;
  /** The location with its groups and occupancy entries, or undefined (unknown or another organization's). */
  getLiveView(organizationId: string, locationId: string): Promise<LiveView | undefined>;
  /** Every location of every organization with its sensor groups (for the refresh). */
  listForRefresh(): Promise<RefreshUnit[]>;

  putLocation(location: Location): Promise<void>;
  putSensorGroup(organizationId: string, locationId: string, group: SensorGroup): Promise<void>;
  deleteSensorGroup(organizationId: string, locationId: string, groupId: number): Promise<void>;

  /** Writes the entry unless the stored one is newer; returns false when it was newer (kept). */
  putOccupancy(entry: OccupancyEntry): Promise<boolean>;
  /** Deletes a group's entry unless it was refreshed after `notAfter` (ISO). */
  deleteOccupancy(organizationId: string, locationId: string, groupId: number, notAfter: string): Promise<void>;

  /** Resolves when the store answers a read (the health check): one read of a key no item has. */
  probe(): Promise<void>;
}
