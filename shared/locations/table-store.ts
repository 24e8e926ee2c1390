import type { OccupancyEntry } from './occupancy-entry';
import type { LocationChange } from './changes';
import { type ItemTable, MAX_TRANSACT_ACTIONS, type TransactAction, TransactionConflictError } from './item-table';
import {
  changeItem,
  changePartition,
  changeSortKey,
  deletedItem,
  deletedSortKey,
  groupSortKey,
  locationItem,
  locationPartition,
  locationSortKey,
  occupancyItem,
  occupancySortKey,
  orgKey,
  revisionOf,
  sensorGroupItem,
  toDeletedLocation,
  toLocation,
  toLocationChange,
  toOccupancyEntry,
  toSensorGroup,
} from './items';
import { byId, type DeletedLocation, type Location, type LocationWithGroups, type SensorGroup } from './model';
import {
  type ChangePage,
  type LiveView,
  type LocationStore,
  type LocationWrite,
  LocationWriteConflictError,
  type RefreshUnit,
} from './store';

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
    return view && { location: view.location, sensorGroups: view.sensorGroups, revision: view.revision ?? 0 };
  }

  async getLiveView(organizationId: string, locationId: string): Promise<LiveView | undefined> {
    const [location, items] = await Promise.all([
      this.table.get(orgKey(organizationId), locationSortKey(locationId)),
      this.table.query(locationPartition(organizationId, locationId)),
    ]);
    if (!location) return undefined;
    return {
      location: toLocation(location),
      revision: revisionOf(location),
      sensorGroups: items
        .filter((i) => i.kind === 'sensorGroup')
        .map(toSensorGroup)
        .sort(byId),
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
      if (item.kind === 'location')
        unitOf(item.organizationId as string, item.id as string).location = toLocation(item);
      if (item.kind === 'sensorGroup')
        unitOf(item.organizationId as string, item.locationId as string).sensorGroups.push(toSensorGroup(item));
      if (item.kind === 'occupancy')
        unitOf(item.organizationId as string, item.locationId as string).cachedGroupIds.push(
          Number(item.sensorGroupId),
        );
    }
    return [...units.values()]
      .filter((u): u is typeof u & { location: Location } => u.location !== undefined)
      .map((u) => ({
        location: u.location,
        sensorGroups: u.sensorGroups.sort(byId),
        cachedGroupIds: u.cachedGroupIds.sort((a, b) => a - b),
      }))
      .sort((a, b) =>
        compare(`${a.location.organizationId}\0${a.location.id}`, `${b.location.organizationId}\0${b.location.id}`),
      );
  }

  async findDeletedLocation(organizationId: string, locationId: string): Promise<DeletedLocation | undefined> {
    const item = await this.table.get(orgKey(organizationId), deletedSortKey(locationId));
    return item && toDeletedLocation(item);
  }

  /**
   * One transaction: the location's item under the write's expectation (a revision, or absent with
   * no deletion record, checked by a ConditionCheck on that record's key), the groups, the deletion
   * record, the change log entry (whose key is new by construction: its revision).
   */
  async writeLocation(write: LocationWrite): Promise<void> {
    const { organizationId: org, locationId: id, expects } = write;
    const locationKey = { PK: orgKey(org), SK: locationSortKey(id) };
    const deletedKey = { PK: orgKey(org), SK: deletedSortKey(id) };
    const actions: TransactAction[] = [];
    const locationCondition =
      expects.kind === 'revision'
        ? { kind: 'revision' as const, revision: expects.revision }
        : { kind: 'absent' as const };
    actions.push(
      write.location
        ? { put: locationItem(write.location.location, write.location.revision), condition: locationCondition }
        : { delete: locationKey, condition: locationCondition },
    );
    if (expects.kind === 'new') actions.push({ check: deletedKey, condition: { kind: 'absent' } });
    if (expects.kind === 'overDeleted')
      actions.push({ delete: deletedKey, condition: { kind: 'revision', revision: expects.revision } });
    if (write.deleted) actions.push({ put: deletedItem(write.deleted) });
    for (const g of write.putGroups) actions.push({ put: sensorGroupItem(org, id, g) });
    for (const gid of write.deleteGroupIds)
      actions.push({ delete: { PK: locationPartition(org, id), SK: groupSortKey(gid) } });
    actions.push({ put: changeItem(org, id, write.change), condition: { kind: 'absent' } });
    if (actions.length > MAX_TRANSACT_ACTIONS)
      throw new Error(
        `a location write of ${actions.length} actions is over the ${MAX_TRANSACT_ACTIONS} of one transaction`,
      );
    try {
      await this.table.transact(actions);
    } catch (e) {
      if (!(e instanceof TransactionConflictError)) throw e;
      // The first action is the location's item, the second (for a new one) its deletion record's.
      const reason =
        expects.kind === 'new' && e.index === 1
          ? 'deleted'
          : expects.kind === 'new' && e.index === 0
            ? 'exists'
            : 'changed';
      throw new LocationWriteConflictError(reason);
    }
  }

  async listChanges(organizationId: string, locationId: string, page: ChangePage): Promise<LocationChange[]> {
    const items = await this.table.page(changePartition(organizationId, locationId), {
      descending: true,
      limit: page.limit,
      ...(page.beforeRevision === undefined ? {} : { before: changeSortKey(page.beforeRevision) }),
    });
    return items.map(toLocationChange);
  }

  async clearOccupancy(organizationId: string, locationId: string): Promise<void> {
    const entries = await this.table.query(locationPartition(organizationId, locationId), 'OCC#');
    for (const e of entries) await this.table.delete(e.PK, e.SK);
  }

  async putLocation(location: Location): Promise<void> {
    await this.table.put(locationItem(location, 0));
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
    await this.table.delete(locationPartition(organizationId, locationId), occupancySortKey(groupId), {
      attribute: 'refreshedAt',
      atMost: notAfter,
    });
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
