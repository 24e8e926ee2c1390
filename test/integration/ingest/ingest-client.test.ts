import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import { ingestClientCli } from '../../../bin/ingest-client';
import { createPreTokenGenerationHandler } from '../../../functions/pre-token-generation';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * The machine-client CLI against DynamoDB Local (the client → organization item) with Cognito's
 * control plane mocked (the app client calls, asserted as sent), and the pre-token-generation trigger
 * reading what the CLI wrote.
 */
const ORG = '5f0c3d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const POOL = 'eu-west-1_AbCdEf123';
const NOW = new Date('2026-03-02T10:00:00.000Z');
const cognito = mockClient(CognitoIdentityProviderClient);
let table: TestTable;

beforeEach(async () => {
  table = await createTestTable('clients');
  cognito.reset();
});
afterEach(() => table.drop());
afterAll(() => cognito.restore());

async function run(...args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const env = {
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
    TABLE_NAME: table.name,
    USER_POOL_ID: POOL,
    AWS_REGION: 'eu-west-1',
  };
  const code = await ingestClientCli(
    ['node', 'ingest-client', ...args],
    { log: (l) => lines.push(l), error: (l) => errors.push(l) },
    env,
    () => NOW,
  );
  return { code, lines, errors };
}

const items = async () => (await table.client.send(new ScanCommand({ TableName: table.name }))).Items ?? [];

/** A V3_0 event of Cognito for a client-credentials grant (as the docs show it). */
const tokenEvent = (clientId: string) => ({
  version: '3',
  triggerSource: 'TokenGeneration_ClientCredentials',
  region: 'eu-west-1',
  userPoolId: POOL,
  userName: clientId,
  callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId },
  request: {
    userAttributes: {},
    groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [] },
    scopes: ['lrs/ingest'],
  },
  response: { claimsAndScopeOverrideDetails: null },
});
const context = {
  awsRequestId: 'test',
  functionName: 'pre-token-generation',
  getRemainingTimeInMillis: () => 5000,
} as Context;
const trigger = () =>
  createPreTokenGenerationHandler({ table: async () => new DynamoItemTable(table.client, table.name) });

test('create registers a client-credentials app client with the ingest scope, writes its organization, and prints the secret once', async () => {
  // Prepare
  cognito
    .on(CreateUserPoolClientCommand)
    .resolves({ UserPoolClient: { ClientId: 'client-1', ClientSecret: 's3cret' } });
  // Act
  const { code, lines } = await run('create', '--org', ORG.toUpperCase(), '--name', 'Hall gateway');
  // Assess
  expect(code).toBe(0);
  expect(cognito.commandCalls(CreateUserPoolClientCommand).map((c) => c.args[0].input)).toEqual([
    {
      UserPoolId: POOL,
      ClientName: 'Hall gateway',
      GenerateSecret: true,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthScopes: ['lrs/ingest'],
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
      AccessTokenValidity: 60,
      TokenValidityUnits: { AccessToken: 'minutes' },
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: 'ENABLED',
    },
  ]);
  expect(await items()).toEqual([
    {
      PK: 'MACHINE_CLIENTS',
      SK: 'CLIENT#client-1',
      kind: 'machineClient',
      clientId: 'client-1',
      organizationId: ORG,
      name: 'Hall gateway',
      createdAt: '2026-03-02T10:00:00.000Z',
      revokedAt: null,
    },
  ]);
  expect(lines.slice(0, 3)).toEqual(['client id:     client-1', 'client secret: s3cret', `organization:  ${ORG}`]);
});

test("the token trigger adds a registered client's organization to its access token (V3_0)", async () => {
  // Prepare
  cognito
    .on(CreateUserPoolClientCommand)
    .resolves({ UserPoolClient: { ClientId: 'client-1', ClientSecret: 's3cret' } });
  await run('create', '--org', ORG, '--name', 'Hall gateway');
  // Act
  const answered = (await trigger()(tokenEvent('client-1') as never, context)) as unknown as ReturnType<
    typeof tokenEvent
  >;
  // Assess
  expect(answered.response.claimsAndScopeOverrideDetails).toEqual({
    accessTokenGeneration: { claimsToAddOrOverride: { 'custom:organizationId': ORG } },
  });
});

test('the token trigger refuses a client that was never registered', async () => {
  await expect(trigger()(tokenEvent('stranger') as never, context)).rejects.toThrow(
    'Client stranger is not a registered machine client.',
  );
});

test('list shows every client, revoked ones too, and --org narrows', async () => {
  // Prepare
  cognito
    .on(CreateUserPoolClientCommand)
    .resolvesOnce({ UserPoolClient: { ClientId: 'client-1', ClientSecret: 'a' } })
    .resolvesOnce({ UserPoolClient: { ClientId: 'client-2', ClientSecret: 'b' } });
  await run('create', '--org', ORG, '--name', 'Hall gateway');
  await run('create', '--org', '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', '--name', 'Other');
  await run('revoke', 'client-2');
  // Act
  const all = await run('list');
  const mine = await run('list', '--org', ORG);
  // Assess
  expect(all.lines).toEqual([
    'client id\torganization\tcreated\tstate\tname',
    `client-1\t${ORG}\t2026-03-02T10:00:00.000Z\tactive\tHall gateway`,
    'client-2\t9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\t2026-03-02T10:00:00.000Z\trevoked 2026-03-02T10:00:00.000Z\tOther',
  ]);
  expect(mine.lines).toEqual(all.lines.slice(0, 2));
});

test('revoke marks the item revoked, deletes the app client, and the trigger then refuses the client', async () => {
  // Prepare
  cognito
    .on(CreateUserPoolClientCommand)
    .resolves({ UserPoolClient: { ClientId: 'client-1', ClientSecret: 's3cret' } });
  cognito.on(DeleteUserPoolClientCommand).resolves({});
  await run('create', '--org', ORG, '--name', 'Hall gateway');
  // Act
  const { code, lines } = await run('revoke', 'client-1');
  // Assess
  expect([code, lines]).toEqual([0, [`revoked client-1 (Hall gateway, organization ${ORG})`]]);
  expect(cognito.commandCalls(DeleteUserPoolClientCommand).map((c) => c.args[0].input)).toEqual([
    { UserPoolId: POOL, ClientId: 'client-1' },
  ]);
  expect(await items()).toEqual([
    expect.objectContaining({ SK: 'CLIENT#client-1', revokedAt: '2026-03-02T10:00:00.000Z' }),
  ]);
  await expect(trigger()(tokenEvent('client-1') as never, context)).rejects.toThrow('Client client-1 was revoked.');
});

test('revoke finishes a revocation whose app client is already gone, and refuses an unknown client', async () => {
  // Prepare
  cognito
    .on(CreateUserPoolClientCommand)
    .resolves({ UserPoolClient: { ClientId: 'client-1', ClientSecret: 's3cret' } });
  cognito
    .on(DeleteUserPoolClientCommand)
    .rejects(new ResourceNotFoundException({ message: 'User pool client client-1 does not exist.', $metadata: {} }));
  await run('create', '--org', ORG, '--name', 'Hall gateway');
  // Act
  const again = await run('revoke', 'client-1');
  const unknown = await run('revoke', 'stranger');
  // Assess
  expect(again.code).toBe(0);
  expect([unknown.code, unknown.errors]).toEqual([
    1,
    ['ingest-client: stranger is not a registered machine client (see list)'],
  ]);
});

test('create deletes the app client again when its item cannot be written, and refuses a malformed organization', async () => {
  // Prepare: a table that does not exist
  cognito
    .on(CreateUserPoolClientCommand)
    .resolves({ UserPoolClient: { ClientId: 'client-1', ClientSecret: 's3cret' } });
  cognito.on(DeleteUserPoolClientCommand).resolves({});
  // Act
  const failed = ingestClientCli(
    [
      'node',
      'ingest-client',
      'create',
      '--org',
      ORG,
      '--name',
      'x',
      '--table',
      'no-such-table',
      '--user-pool-id',
      POOL,
      '--dynamodb-endpoint',
      process.env.DYNAMODB_ENDPOINT!,
    ],
    { log: () => undefined, error: () => undefined },
    {},
  );
  const malformed = await run('create', '--org', 'acme', '--name', 'x');
  // Assess
  await expect(failed).rejects.toThrow(/non-existent table|not found/i);
  expect(cognito.commandCalls(DeleteUserPoolClientCommand).map((c) => c.args[0].input)).toEqual([
    { UserPoolId: POOL, ClientId: 'client-1' },
  ]);
  expect([malformed.code, malformed.errors]).toEqual([
    1,
    ["error: option '--org <uuid>' argument 'acme' is invalid. must be a UUID"],
  ]);
});
