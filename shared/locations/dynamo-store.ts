import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  paginateQuery,
  paginateScan,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  CLAIM_ATTRIBUTES,
  type ItemTable,
  type NotNewerThan,
  type PageOptions,
  type TransactAction,
  type TransactCondition,
  TransactionConflictError,
  type WriteCondition,
} from './item-table';
import { type Item, REVISION } from './items';
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
    const { Item: item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { PK: pk, SK: sk } }),
    );
    return item as Item | undefined;
  }

  async query(pk: string, skPrefix?: string): Promise<Item[]> {
    const items: Item[] = [];
    const input = {
      TableName: this.tableName,
      KeyConditionExpression: skPrefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
      ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':sk': skPrefix } : { ':pk': pk },
    };
    for await (const page of paginateQuery({ client: this.client }, input))
      items.push(...((page.Items ?? []) as Item[]));
    return items;
  }

  async scan(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of paginateScan({ client: this.client }, { TableName: this.tableName }))
      items.push(...((page.Items ?? []) as Item[]));
    return items;
  }

  put(item: Item, condition?: WriteCondition): Promise<boolean> {
    return this.conditionally(
      new PutCommand({ TableName: this.tableName, Item: item, ...conditionExpression(condition) }),
    );
  }

  delete(pk: string, sk: string, condition?: NotNewerThan): Promise<boolean> {
    return this.conditionally(
      new DeleteCommand({ TableName: this.tableName, Key: { PK: pk, SK: sk }, ...conditionExpression(condition) }),
    );
  }

  async page(pk: string, options: PageOptions): Promise<Item[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: options.before === undefined ? 'PK = :pk' : 'PK = :pk AND SK < :before',
        ExpressionAttributeValues: {
          ':pk': pk,
          ...(options.before === undefined ? {} : { ':before': options.before }),
        },
        ScanIndexForward: !options.descending,
        Limit: options.limit,
      }),
    );
    return (Items ?? []) as Item[];
  }

  /**
   * TransactWriteItems. A condition that fails cancels the whole transaction with
   * TransactionCanceledException, whose CancellationReasons hold one entry per action in request
   * order (`ConditionalCheckFailed` where it failed, `TransactionConflict` when another transaction
   * held an item): https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
   */
  async transact(actions: readonly TransactAction[]): Promise<void> {
    const TableName = this.tableName;
    const TransactItems = actions.map((a) => {
      const condition = transactExpression(a.condition);
      if ('put' in a) return { Put: { TableName, Item: a.put, ...condition } };
      if ('delete' in a) return { Delete: { TableName, Key: { PK: a.delete.PK, SK: a.delete.SK }, ...condition } };
      return {
        ConditionCheck: {
          TableName,
          Key: { PK: a.check.PK, SK: a.check.SK },
          ...(condition as Required<typeof condition>),
        },
      };
    });
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems }));
    } catch (e) {
      const { name, CancellationReasons: reasons } = e as { name?: string; CancellationReasons?: { Code?: string }[] };
      if (name !== 'TransactionCanceledException' || !reasons) throw e;
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw new TransactionConflictError(failed);
      if (reasons.some((r) => r.Code === 'TransactionConflict')) throw new TransactionConflictError(-1);
      throw e;
    }
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

function conditionExpression(condition: WriteCondition | undefined): {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  if (!condition) return {};
  if ('claimableAt' in condition) {
    const { status, expiresAt, inProgressExpiresAt, inProgress } = CLAIM_ATTRIBUTES;
    return {
      ConditionExpression:
        'attribute_not_exists(PK) OR #expiry < :nowSeconds OR (#status = :inProgress AND #claim < :nowMs)',
      ExpressionAttributeNames: { '#expiry': expiresAt, '#status': status, '#claim': inProgressExpiresAt },
      ExpressionAttributeValues: {
        ':nowSeconds': condition.claimableAt / 1000,
        ':nowMs': condition.claimableAt,
        ':inProgress': inProgress,
      },
    };
  }
  return {
    ConditionExpression: 'attribute_not_exists(#a) OR #a <= :atMost',
    ExpressionAttributeNames: { '#a': condition.attribute },
    ExpressionAttributeValues: { ':atMost': condition.atMost },
  };
}

function transactExpression(condition: TransactCondition | undefined): {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  if (!condition) return {};
  if (condition.kind === 'absent') return { ConditionExpression: 'attribute_not_exists(PK)' };
  if (condition.revision === 0) {
    return {
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#r) OR #r = :r)',
      ExpressionAttributeNames: { '#r': REVISION },
      ExpressionAttributeValues: { ':r': 0 },
    };
  }
  return {
    ConditionExpression: '#r = :r',
    ExpressionAttributeNames: { '#r': REVISION },
    ExpressionAttributeValues: { ':r': condition.revision },
  };
}

/** LocationStore on one DynamoDB table (layout in ./items.ts, logic in ./table-store.ts). */
export class DynamoLocationStore extends TableLocationStore {
  constructor(client: DynamoDBDocumentClient, tableName: string) {
    super(new DynamoItemTable(client, tableName));
  }
}
