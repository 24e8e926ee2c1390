import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import { ensureTable } from '#shared/locations/table';
import { createDocumentClient } from '#commons/clients/dynamo-client';

export interface TestTable {
  readonly name: string;
  readonly client: DynamoDBDocumentClient;
  readonly store: DynamoLocationStore;
  drop(): Promise<void>;
}

let counter = 0;

/**
 * A fresh table on the DynamoDB Local of the global setup, so test files never share items. Without
 * TTL: the fixtures are dated 2024, so their cache entries would already be expired, and DynamoDB
 * Local deletes expired items in the background (they would vanish at random moments).
 */
export async function createTestTable(label: string): Promise<TestTable> {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: the integration global setup did not run');
  const name = `t${process.pid}-${label}-${counter++}`;
  const client = createDocumentClient({ endpoint });
  await ensureTable(client as unknown as DynamoDBClient, name, { timeToLive: false });
  return {
    name,
    client,
    store: new DynamoLocationStore(client, name),
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: name }) as never).catch(() => undefined);
      client.destroy();
    },
  };
}
