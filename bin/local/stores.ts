import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import type { ItemTable } from '#shared/locations/item-table';
import type { LocationStore } from '#shared/locations/store';
import { ensureTable } from '#shared/locations/table';
import { TableLocationStore } from '#shared/locations/table-store';
import { createDocumentClient } from '#commons/clients/dynamo-client';
import { LOCAL_TABLE_NAME } from './config';
import { FileItemTable } from './file-table';

export interface OpenedLocationStore {
  readonly store: LocationStore;
  /** The embedded table under the store, when it is one (the handlers get it in place of DynamoDB). */
  readonly table?: ItemTable;
  /** Where the locations are, for messages. */
  readonly description: string;
  /** The DynamoDB connection, when the store is a DynamoDB table (the handlers read it from the environment). */
  readonly dynamo?: { readonly tableName: string; readonly endpoint?: string };
  close(): Promise<void>;
}

export interface LocationStoreFlags {
  /** A DynamoDB table (at `dynamodbEndpoint`, else in AWS). */
  readonly table?: string;
  /** A DynamoDB you run; its table is `table`, default {@link LOCAL_TABLE_NAME}. */
  readonly dynamodbEndpoint?: string;
  readonly region?: string;
  /** Create the DynamoDB table when it is missing. @default true at an endpoint, false in AWS */
  readonly createTable?: boolean;
  /** The embedded table's file, when neither of the above is given. */
  readonly localFile: string;
}

/**
 * The location store the CLI flags name: a DynamoDB table (`--table`, `--dynamodb-endpoint`), else
 * the embedded table of the data folder (no Java, no server and no emulator for `npm start`).
 */
export async function openLocationStore(flags: LocationStoreFlags): Promise<OpenedLocationStore> {
  if (flags.table === undefined && flags.dynamodbEndpoint === undefined) {
    const table = FileItemTable.open(flags.localFile);
    return {
      store: new TableLocationStore(table),
      table,
      description: flags.localFile,
      close: async () => table.close(),
    };
  }
  const tableName = flags.table ?? LOCAL_TABLE_NAME;
  const client = createDocumentClient({
    ...(flags.dynamodbEndpoint ? { endpoint: flags.dynamodbEndpoint } : {}),
    ...(flags.region ? { region: flags.region } : {}),
  });
  if (flags.createTable ?? flags.dynamodbEndpoint !== undefined)
    await ensureTable(client as unknown as DynamoDBClient, tableName);
  return {
    store: new DynamoLocationStore(client, tableName),
    description: `DynamoDB table ${tableName}${flags.dynamodbEndpoint ? ` at ${flags.dynamodbEndpoint}` : ''}`,
    dynamo: { tableName, ...(flags.dynamodbEndpoint ? { endpoint: flags.dynamodbEndpoint } : {}) },
    close: async () => client.destroy(),
  };
}
