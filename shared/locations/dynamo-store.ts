import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { CLAIM_ATTRIBUTES, type ItemTable, type NotNewerThan, type WriteCondition } from './item-table';
import type { Item } from './items';
import { TableLocationStore } from './table-store';

/**
 * The store's table operations on DynamoDB (and DynamoDB Local): GetItem, PutItem, DeleteItem, Query
 * and Scan, paginated, conditions as condition expressions.
 */
export class DynamoItemTable implements ItemTable {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(pk: string, sk: string): Promise<Item | undefined> {
    const { Item: item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { PK: pk, SK: sk } }));
    return item as Item | undefined;
  }

  async query(pk: string, skPrefix?: string): Promise<Item[]> {
    const items: Item[] = [];
    const input = {
      TableName: this.tableName,
      KeyConditionExpression: skPrefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
      ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':sk': skPrefix } : { ':pk': pk },
    };
    for await (const page of paginateQuery({ client: this.client }, input)) items.push(...((page.Items ?? []) as Item[]));
    return items;
  }

  async scan(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of paginateScan({ client: this.client }, { TableName: this.tableName })) items.push(...((page.Items ?? []) as Item[]));
    return items;
  }

  put(item: Item, condition?: WriteCondition): Promise<boolean> {
    return this.conditionally(new PutCommand({ TableName: this.tableName, Item: item, ...conditionExpression(condition) }));
  }

  delete(pk: string, sk: string, condition?: NotNewerThan): Promise<boolean> {
    return this.conditionally(new DeleteCommand({ TableName: this.tableName, Key: { PK: pk, SK: sk }, ...conditionExpression(condition) }));
  }

  /** Sends a (conditional) write; false when the condition did not hold. */
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

function conditionExpression(condition: WriteCondition | undefined): { ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
  if (!condition) return {};
  if ('claimableAt' in condition) {
    const { status, expiresAt, inProgressExpiresAt, inProgress } = CLAIM_ATTRIBUTES;
    return {
      ConditionExpression: 'attribute_not_exists(PK) OR #expiry < :nowSeconds OR (#status = :inProgress AND #claim < :nowMs)',
      ExpressionAttributeNames: { '#expiry': expiresAt, '#status': status, '#claim': inProgressExpiresAt },
      ExpressionAttributeValues: { ':nowSeconds': condition.claimableAt / 1000, ':nowMs': condition.claimableAt, ':inProgress': inProgress },
    };
  }
  return {
    ConditionExpression: 'attribute_not_exists(#a) OR #a <= :atMost',
    ExpressionAttributeNames: { '#a': condition.attribute },
    ExpressionAttributeValues: { ':atMost': condition.atMost },
  };
}

/** LocationStore on one DynamoDB table (layout in ./items.ts, logic in ./table-store.ts). */
export class DynamoLocationStore extends TableLocationStore {
  constructor(client: DynamoDBDocumentClient, tableName: string) {
    super(new DynamoItemTable(client, tableName));
  }
}
