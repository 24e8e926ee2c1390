import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ItemTable } from '#shared/locations/item-table';
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

const dynamoItemTable = lazy(async (): Promise<ItemTable> => {
  const name = tableName();
  const [client, { DynamoItemTable }] = await Promise.all([documentClient(), import('#shared/locations/dynamo-store')]);
  return new DynamoItemTable(client, name);
});

let provided: Promise<ItemTable> | undefined;

/**
 * Puts a ready table in place of the DynamoDB one: the local server provides its embedded table this
 * way (as it provides its report engine, ./engine.ts), which keeps it out of the Lambda bundles.
 */
export function provideItemTable(table: ItemTable): void {
  provided = Promise.resolve(table);
  store = undefined;
}

/** The service's one table: the provided one, else the DynamoDB table of TABLE_NAME, built once on first use. */
export const itemTable = (): Promise<ItemTable> => provided ?? dynamoItemTable();

let store: Promise<LocationStore> | undefined;

/** The process's LocationStore, over {@link itemTable}. */
export const locationStore = (): Promise<LocationStore> =>
  (store ??= Promise.all([itemTable(), import('#shared/locations/table-store')]).then(
    ([table, { TableLocationStore }]) => new TableLocationStore(table),
    (error: unknown) => {
      store = undefined;
      throw error;
    },
  ));

/**
 * The health check of the location store: the provided one locally (the embedded table), DynamoDB's
 * table in AWS, where GetItem is the one action the health function is granted.
 */
export async function tableCheck(): Promise<void> {
  await (await locationStore()).probe();
}
