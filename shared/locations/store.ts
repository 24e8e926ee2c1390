import type { OccupancyEntry } from './occupancy-entry';
import type { LocationChange } from './changes';
import type { DeletedLocation, Location, LocationWithGroups, SensorGroup } from './model';

/** What `GET /locations/{id}/insights/live` reads: the location, its groups and their cache entries. */
export interface LiveView extends LocationWithGroups {
  readonly occupancy: readonly OccupancyEntry[];
}

/** What the refresh reads per location: the location, its groups, and which groups have an entry. */
export interface RefreshUnit extends LocationWithGroups {
  readonly cachedGroupIds: readonly number[];
}

/**
 * One write of a location, whole or nothing (one transaction): the location as it will be (absent:
 * deleted), the groups written and deleted, its deletion record, and the change log entry. Built
 * by ./admin.ts, which holds the rules; the store only writes it.
 */
export interface LocationWrite {
  readonly organizationId: string;
  readonly locationId: string;
  /**
   * What must hold for the write to happen: no location with the id and no deletion record
   * (`new`), no location but the deletion record of revision `revision` (`overDeleted`, which the
   * write removes), or the location at revision `revision` (`revision`).
   */
  readonly expects:
    | { readonly kind: 'new' }
    | { readonly kind: 'overDeleted'; readonly revision: number }
    | { readonly kind: 'revision'; readonly revision: number };
  /** The location after the write, with its new revision; absent: the write deletes it. */
  readonly location?: { readonly location: Location; readonly revision: number };
  readonly putGroups: readonly SensorGroup[];
  readonly deleteGroupIds: readonly number[];
  /** The record a deletion leaves. */
  readonly deleted?: DeletedLocation;
  readonly change: LocationChange;
}

/** A location write did not happen: its expectation no longer held (another write came first, or the id is taken). */
export class LocationWriteConflictError extends Error {
  constructor(readonly reason: 'changed' | 'exists' | 'deleted') {
    super(
      reason === 'exists'
        ? 'the location exists'
        : reason === 'deleted'
          ? 'the id belongs to a deleted location'
          : 'the location changed meanwhile',
    );
    this.name = 'LocationWriteConflictError';
  }
}

/** A page of a location's change log, newest first. */
export interface ChangePage {
  /** Only changes before this revision. */
  readonly beforeRevision?: number;
  readonly limit: number;
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
  /** The deletion record of a location id, if a location of that id was deleted (and not created again). */
  findDeletedLocation(organizationId: string, locationId: string): Promise<DeletedLocation | undefined>;
  /** Writes every part of the write or none: LocationWriteConflictError when its expectation does not hold. */
  writeLocation(write: LocationWrite): Promise<void>;
  /** A page of the location's change log, newest first (a deleted location's too). */
  listChanges(organizationId: string, locationId: string, page: ChangePage): Promise<LocationChange[]>;
  /** Deletes every occupancy entry of a location (after its deletion: the cache of what is gone). */
  clearOccupancy(organizationId: string, locationId: string): Promise<void>;

  /** Raw writes without revision, change log or checks: for tests and repairs; ./admin.ts writes locations. */
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
