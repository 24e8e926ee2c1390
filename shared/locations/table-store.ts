import type { OccupancyEntry } from './occupancy-entry';
import type { ItemTable } from './item-table';
import {
  groupSortKey,
  locationItem,
  locationPartition,
  locationSortKey,
  occupancyItem,
  occupancySortKey,
  orgKey,
  sensorGroupItem,
  toLocation,
  toOccupancyEntry,
  toSensorGroup,
} from './items';
import { byId, type Location, type LocationWithGroups, type SensorGroup } from './model';
import type { LiveView, LocationStore, RefreshUnit } from './store';

/**
 * LocationStore on one table of the single-table layout (./items.ts): GetItem, PutItem, DeleteItem,
 * Query and Scan, with one kind of condition, so that it runs on DynamoDB (./dynamo-store.ts) and on
 * the local server's embedded table alike, with this one copy of the logic.
 */
export class TableLocationStore implements LocationStore {
  constructor(private readonly table: ItemTable) {}

  /** Every item's key starts with `ORG#` (./items.ts), so this read finds nothing and costs half a read unit. */
  async probe(): Promise<void> {
    await this.table.get('HEALTH#probe', 'HEALTH#probe');
  }

  async listLocations(organizationId: string): Promise<Location[]> {
    const items = await this.table.query(orgKey(organizationId), 'LOC#');
    return items.map(toLocation).sort(byId);
  }

  async getLocationWithGroups(organizationId: string, locationId: string): Promise<LocationWithGroups | undefined> {
    const view = await this.getLiveView(organizationId, locationId);
    return view && { location: view.location, sensorGroups: view.sensorGroups };
  }

  async getLiveView(organizationId: string, locationId: string): Promise<LiveView | undefined> {
    const [location, items] = await Promise.all([
      this.table.get(orgKey(organizationId), locationSortKey(locationId)),
      this.table.query(locationPartition(organizationId, locationId)),
    ]);
    if (!location) return undefined;
    return {
      location: toLocation(location),
      sensorGroups: items.filter((i) => i.kind === 'sensorGroup').map(toSensorGroup).sort(byId),
      occupancy: items.filter((i) => i.kind === 'occupancy').map(toOccupancyEntry),
    };
  }

  /** One Scan: the table holds configuration and the cache only (a few items per location). */
  async listForRefresh(): Promise<RefreshUnit[]> {
    const units = new Map<string, { location?: Location; sensorGroups: SensorGroup[]; cachedGroupIds: number[] }>();
    const unitOf = (org: string, locationId: string) => {
      const key = locationPartition(org, locationId);
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { sensorGroups: [], cachedGroupIds: [] }));
      return unit;
    };
    for (const item of await this.table.scan()) {
      if (item.kind === 'location') unitOf(item.organizationId as string, item.id as string).location = toLocation(item);
      if (item.kind === 'sensorGroup') unitOf(item.organizationId as string, item.locationId as string).sensorGroups.push(toSensorGroup(item));
      if (item.kind === 'occupancy') unitOf(item.organizationId as string, item.locationId as string).cachedGroupIds.push(Number(item.sensorGroupId));
    }
    return [...units.values()]
      .filter((u): u is typeof u & { location: Location } => u.location !== undefined)
      .map((u) => ({ location: u.location, sensorGroups: u.sensorGroups.sort(byId), cachedGroupIds: u.cachedGroupIds.sort((a, b) => a - b) }))
      .sort((a, b) => compare(`${a.location.organizationId}\0${a.location.id}`, `${b.location.organizationId}\0${b.location.id}`));
  }

  async putLocation(location: Location): Promise<void> {
    await this.table.put(locationItem(location));
  }

  async putSensorGroup(organizationId: string, locationId: string, group: SensorGroup): Promise<void> {
    await this.table.put(sensorGroupItem(organizationId, locationId, group));
  }

  async deleteSensorGroup(organizationId: string, locationId: string, groupId: number): Promise<void> {
    await this.table.delete(locationPartition(organizationId, locationId), groupSortKey(groupId));
  }

  async putOccupancy(entry: OccupancyEntry): Promise<boolean> {
    // Never replace an entry computed by a later refresh (two runs may overlap).
    return this.table.put(occupancyItem(entry), { attribute: 'refreshedAt', atMost: entry.refreshedAt });
  }

  async deleteOccupancy(organizationId: string, locationId: string, groupId: number, notAfter: string): Promise<void> {
    await this.table.delete(locationPartition(organizationId, locationId), occupancySortKey(groupId), { attribute: 'refreshedAt', atMost: notAfter });
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
