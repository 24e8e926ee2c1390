import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LocationStore } from '#shared/locations/store';
import { lazy } from './lazy';
import { traced } from '../powertools/tracer';
import { ENV } from '../env';

/**
 * The process's document client, built once on first use from DYNAMODB_ENDPOINT (optional) and
 * AWS_REGION. The DynamoDB SDK is loaded then, not at import (./dynamo-client holds the factory);
 * in Lambda its calls are traced by name.
 */
export const documentClient: () => Promise<DynamoDBDocumentClient> = lazy(async () => {
  const { createDocumentClient } = await import('./dynamo-client');
  const endpoint = process.env[ENV.dynamoDbEndpoint];
  return traced(createDocumentClient(endpoint ? { endpoint } : {}));
});

/** The table of locations, sensor groups and the occupancy cache: TABLE_NAME. */
export function tableName(): string {
  const name = process.env[ENV.tableName];
  if (!name) throw new Error(`${ENV.tableName} is not set`);
  return name;
}

/** The process's LocationStore on the table of TABLE_NAME, built once on first use. */
export const locationStore: () => Promise<LocationStore> = lazy(async () => {
  const name = tableName();
  const [client, { DynamoLocationStore }] = await Promise.all([documentClient(), import('#shared/locations/dynamo-store')]);
  return new DynamoLocationStore(client, name);
});

/**
 * Whether the table answers a read with this process's credentials: one eventually consistent
 * GetItem (half a read unit) of a key no item has (every item's key starts with `ORG#`,
 * shared/locations/items.ts), the one action the health function is granted. The SDK modules load
 * with the client, on first use.
 */
export async function tableCheck(signal: AbortSignal): Promise<void> {
  const [client, { GetCommand }, { TABLE_KEYS }] = await Promise.all([documentClient(), import('@aws-sdk/lib-dynamodb'), import('#shared/locations/table')]);
  const key = { [TABLE_KEYS.partition]: 'HEALTH#probe', [TABLE_KEYS.sort]: 'HEALTH#probe' };
  await client.send(new GetCommand({ TableName: tableName(), Key: key }), { abortSignal: signal });
}
