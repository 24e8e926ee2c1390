import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '#shared/locations/table';
import { createDocumentClient } from '#commons/clients/dynamo-client';

export interface LocalDynamo {
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * An in-process DynamoDB (dynalite, LevelDB files under `path`) with the service's table: no Java and
 * no server to install for `npm start`. The tests use DynamoDB Local instead, as closer to AWS.
 */
export async function startLocalDynamo(path: string, tableName: string): Promise<LocalDynamo> {
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createDocumentClient({ endpoint });
  await ensureTable(client as unknown as DynamoDBClient, tableName);
  client.destroy();
  return { endpoint, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
