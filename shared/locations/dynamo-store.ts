import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { OccupancyEntry } from './occupancy-entry';
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
  type Item,
} from './items';
import { byId, type Location, type LocationWithGroups, type SensorGroup } from './model';
import type { LiveView, LocationStore, RefreshUnit } from './store';

/**
 * LocationStore on one DynamoDB table (layout in ./items.ts). Uses only GetItem, PutItem,
 * DeleteItem, Query and Scan with condition expressions, so it runs unchanged on DynamoDB,
 * DynamoDB Local and dynalite (which has no transactions).
 */
export class DynamoLocationStore implements LocationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listLocations(organizationId: string): Promise<Location[]> {
    const items = await this.query(orgKey(organizationId), 'LOC#');
    return items.map(toLocation).sort(byId);
  }

  async getLocationWithGroups(organizationId: string, locationId: string): Promise<LocationWithGroups | undefined> {
    const view = await this.getLiveView(organizationId, locationId);
    return view && { location: view.location, sensorGroups: view.sensorGroups };
  }

  async getLiveView(organizationId: string, locationId: string): Promise<LiveView | undefined> {
    const [location, items] = await Promise.all([
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { PK: orgKey(organizationId), SK: locationSortKey(locationId) } })),
      this.query(locationPartition(organizationId, locationId)),
    ]);
    if (!location.Item) return undefined;
    return {
      location: toLocation(location.Item),
      sensorGroups: items.filter((i) => i.kind === 'sensorGroup').map(toSensorGroup).sort(byId),
      occupancy: items.filter((i) => i.kind === 'occupancy').map(toOccupancyEntry),
    };
  }

  /** One paginated Scan: the table holds configuration and the cache only (a few items per location). */
  async listForRefresh(): Promise<RefreshUnit[]> {
    const units = new Map<string, { location?: Location; sensorGroups: SensorGroup[]; cachedGroupIds: number[] }>();
    const unitOf = (org: string, locationId: string) => {
      const key = locationPartition(org, locationId);
      let unit = units.get(key);
      if (!unit) units.set(key, (unit = { sensorGroups: [], cachedGroupIds: [] }));
      return unit;
    };
    for await (const page of paginateScan({ client: this.client }, { TableName: this.tableName })) {
      for (const item of (page.Items ?? []) as Item[]) {
        if (item.kind === 'location') unitOf(item.organizationId as string, item.id as string).location = toLocation(item);
        if (item.kind === 'sensorGroup') unitOf(item.organizationId as string, item.locationId as string).sensorGroups.push(toSensorGroup(item));
        if (item.kind === 'occupancy') unitOf(item.organizationId as string, item.locationId as string).cachedGroupIds.push(Number(item.sensorGroupId));
      }
    }
    return [...units.values()]
      .filter((u): u is typeof u & { location: Location } => u.location !== undefined)
      .map((u) => ({ location: u.location, sensorGroups: u.sensorGroups.sort(byId), cachedGroupIds: u.cachedGroupIds.sort((a, b) => a - b) }))
      .sort((a, b) => compare(a.location.organizationId + '\0' + a.location.id, b.location.organizationId + '\0' + b.location.id));
  }

  async putLocation(location: Location): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: locationItem(location) }));
  }

  async putSensorGroup(organizationId: string, locationId: string, group: SensorGroup): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: sensorGroupItem(organizationId, locationId, group) }));
  }

  async deleteSensorGroup(organizationId: string, locationId: string, groupId: number): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: { PK: locationPartition(organizationId, locationId), SK: groupSortKey(groupId) } }),
    );
  }

  async putOccupancy(entry: OccupancyEntry): Promise<boolean> {
    return this.conditionally(
      new PutCommand({
        TableName: this.tableName,
        Item: occupancyItem(entry),
        // Never replace an entry computed by a later refresh (two runs may overlap).
        ConditionExpression: 'attribute_not_exists(refreshedAt) OR refreshedAt <= :refreshedAt',
        ExpressionAttributeValues: { ':refreshedAt': entry.refreshedAt },
      }),
    );
  }

  async deleteOccupancy(organizationId: string, locationId: string, groupId: number, notAfter: string): Promise<void> {
    await this.conditionally(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { PK: locationPartition(organizationId, locationId), SK: occupancySortKey(groupId) },
        ConditionExpression: 'attribute_not_exists(refreshedAt) OR refreshedAt <= :notAfter',
        ExpressionAttributeValues: { ':notAfter': notAfter },
      }),
    );
  }

  private async query(pk: string, skPrefix?: string): Promise<Item[]> {
    const items: Item[] = [];
    const input = {
      TableName: this.tableName,
      KeyConditionExpression: skPrefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
      ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':sk': skPrefix } : { ':pk': pk },
    };
    for await (const page of paginateQuery({ client: this.client }, input)) items.push(...((page.Items ?? []) as Item[]));
    return items;
  }

  /** Sends a conditional write; false when the condition did not hold. */
  private async conditionally(command: PutCommand | DeleteCommand): Promise<boolean> {
    try {
      await this.client.send(command as PutCommand);
      return true;
    } catch (e) {
      if ((e as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw e;
    }
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
