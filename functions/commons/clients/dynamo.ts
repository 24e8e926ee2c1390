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

const dynamoLocationStore = lazy(async (): Promise<LocationStore> => {
  const name = tableName();
  const [client, { DynamoLocationStore }] = await Promise.all([documentClient(), import('#shared/locations/dynamo-store')]);
  return new DynamoLocationStore(client, name);
});

let provided: Promise<LocationStore> | undefined;

/**
 * Puts a ready store in place of the DynamoDB one: the local server provides its embedded table this
 * way (as it provides its report engine, ./engine.ts), which keeps it out of the Lambda bundles.
 */
export function provideLocationStore(store: LocationStore): void {
  provided = Promise.resolve(store);
}

/** The process's LocationStore: the provided one, else the table of TABLE_NAME, built once on first use. */
export const locationStore = (): Promise<LocationStore> => provided ?? dynamoLocationStore();

/**
 * The health check of the location store: the provided one locally (the embedded table), DynamoDB's
 * table in AWS, where GetItem is the one action the health function is granted.
 */
export async function tableCheck(): Promise<void> {
  await (await locationStore()).probe();
}
