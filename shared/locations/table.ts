import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/**
 * The table's definition, for tests, the local server and the import CLI against a local endpoint
 * (in AWS, CDK creates the same table): string keys `PK` and `SK`, on-demand, TTL on `expiresAt`.
 */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: 'PK', AttributeType: 'S' },
      { AttributeName: 'SK', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/** The TTL attribute of occupancy entries (epoch seconds). */
export const TTL_ATTRIBUTE = 'expiresAt';

/** Creates the table unless it exists, and waits until it is active. Idempotent. */
export async function ensureTable(client: DynamoDBClient, tableName: string, timeoutMs = 30_000): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
    await client
      .send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }))
      .catch(() => undefined); // dynalite has no TTL; DynamoDB Local accepts it.
  } catch (e) {
    if ((e as { name?: string }).name !== 'ResourceInUseException') throw e;
  }
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
