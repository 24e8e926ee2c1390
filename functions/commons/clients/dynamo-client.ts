import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoConnection {
  /** A local endpoint (DynamoDB Local); absent: the regional AWS endpoint. */
  readonly endpoint?: string;
  /** @default AWS_REGION, else us-east-1 for local endpoints */
  readonly region?: string;
}

/**
 * A document client (undefined attributes removed on write). Against a local endpoint without AWS
 * credentials in the environment it signs with dummy ones, which DynamoDB Local accepts.
 * Synchronous, for the CLIs, the local server and tests; the functions get theirs from
 * `documentClient()` in ./dynamo, which loads this module on first use.
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
