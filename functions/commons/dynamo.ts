import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import type { LocationStore } from '#shared/locations/store';

export interface DynamoConnection {
  /** A local endpoint (DynamoDB Local, dynalite); absent: the regional AWS endpoint. */
  readonly endpoint?: string;
  /** @default AWS_REGION, else us-east-1 for local endpoints */
  readonly region?: string;
}

/**
 * A document client (undefined attributes removed on write). Against a local endpoint without AWS
 * credentials in the environment it signs with dummy ones, which DynamoDB Local and dynalite accept.
 */
export function createDocumentClient(connection: DynamoConnection = {}): DynamoDBDocumentClient {
  const local = connection.endpoint !== undefined;
  const hasCredentials = process.env.AWS_ACCESS_KEY_ID !== undefined || process.env.AWS_PROFILE !== undefined;
  const base = new DynamoDBClient({
    ...(local ? { endpoint: connection.endpoint } : {}),
    region: connection.region ?? process.env.AWS_REGION ?? (local ? 'us-east-1' : undefined),
    ...(local && !hasCredentials ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
}

let client: DynamoDBDocumentClient | undefined;
let store: LocationStore | undefined;

/** The process's document client, built once from DYNAMODB_ENDPOINT (optional) and AWS_REGION. */
export function documentClient(): DynamoDBDocumentClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  client ??= createDocumentClient(endpoint ? { endpoint } : {});
  return client;
}

/** The table of locations, sensor groups and the occupancy cache: TABLE_NAME. */
export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

/** The process's LocationStore, built once. */
export function locationStore(): LocationStore {
  store ??= new DynamoLocationStore(documentClient(), tableName());
  return store;
}
