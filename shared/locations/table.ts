import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/**
 * The key attributes of the one table (both strings): the store writes them (./dynamo-store.ts), and
 * both definitions of the table use these names, CDK's in AWS (lib/occupancy.ts) and
 * {@link tableDefinition} for local endpoints.
 */
export const TABLE_KEYS = { partition: 'PK', sort: 'SK' } as const;

/**
 * The table's definition, for tests, the local server and the import CLI against a local endpoint
 * (in AWS, CDK creates the same table): string keys {@link TABLE_KEYS}, on-demand, TTL on `expiresAt`.
 */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: TABLE_KEYS.partition, AttributeType: 'S' },
      { AttributeName: TABLE_KEYS.sort, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/** The TTL attribute of occupancy entries (epoch seconds). */
export const TTL_ATTRIBUTE = 'expiresAt';

export interface EnsureTableOptions {
  /**
   * Turn on TTL on {@link TTL_ATTRIBUTE}. Off for tests whose fixtures are dated in the past: their
   * entries would be expired at once, and DynamoDB Local deletes expired items in the background.
   * @default true
   */
  readonly timeToLive?: boolean;
  /** @default 30 s */
  readonly timeoutMs?: number;
}

/** Creates the table unless it exists, waits until it is active, then turns TTL on. Idempotent. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (e) {
    if ((e as { name?: string }).name !== 'ResourceInUseException') throw e;
  }
  await waitUntilActive(client, tableName, options.timeoutMs ?? 30_000);
  if (options.timeToLive === false) return;
  await client
    .send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    )
    .catch(() => undefined); // a second call fails because it is already on.
}

async function waitUntilActive(client: DynamoDBClient, tableName: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (Table?.TableStatus === 'ACTIVE') return;
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    }
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become active within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
