import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mockClient } from 'aws-sdk-client-mock';
import { ingestClientCli } from '../../../bin/ingest-client';
import type { LocalIssuer } from './cognito';
import type { ApiResponse, HttpApi } from './http-api';
import type { LambdaFunction } from './lambda-function';

/** What the machine-client tests need of the stack test (./deployed-stack.test.ts). */
export interface StackUnderTest {
  readonly api: () => HttpApi;
  readonly fn: (logicalId: string) => LambdaFunction;
  readonly issuer: () => LocalIssuer;
  readonly preTokenFunctionId: () => string;
  /** Runs the refresh rule's target and resolves to its summary. */
  readonly refreshOccupancy: () => Promise<unknown>;
  /** A request as a user of the organization (the JWT routes, after API Gateway's check). */
  readonly call: (
    method: string,
    path: string,
    options?: { body?: string; headers?: Record<string, string>; query?: Record<string, string> },
  ) => Promise<ApiResponse>;
  /** Makes what was written searchable (OpenSearch's refresh interval, at once). */
  readonly refreshIndices: () => Promise<void>;
  readonly table: string;
  readonly region: string;
  readonly userPoolId: string;
  readonly org: string;
  readonly otherOrg: string;
  /** Crossings of the hall's door that the stack test loaded before: today 3 in, 1 out. */
  readonly crossing: (
    timestamp: string,
    label: string,
    end: 'A' | 'B',
    organizationId?: string,
    locationId?: string,
  ) => Record<string, unknown>;
  readonly today: (ms: number) => string;
}

const CLIENT_ID = 'gateway-hall';

/**
 * A gateway of the organization, registered with `npm run ingest-client -- create` (Cognito's control
 * plane mocked, its item in the stack's table), gets an access token with the claims the trigger's
 * asset adds, and posts batches through the ingest route: its Lambda authorizer's asset, then the
 * ingest function's, against the real node and table.
 */
export function machineClientTests(stack: StackUnderTest): void {
  describe('machine clients and the ingest route', () => {
    const cognito = mockClient(CognitoIdentityProviderClient);
    let token: string;
    const cli = (...args: string[]) =>
      ingestClientCli(
        [
          'node',
          'ingest-client',
          ...args,
          '--table',
          stack.table,
          '--dynamodb-endpoint',
          process.env.DYNAMODB_ENDPOINT!,
          '--user-pool-id',
          stack.userPoolId,
          '--region',
          stack.region,
        ],
        { log: () => undefined, error: (l) => console.error(l) },
      );
    /** The V3_0 event Cognito sends for a client-credentials grant. */
    const tokenEvent = (clientId: string) => ({
      version: '3',
      triggerSource: 'TokenGeneration_ClientCredentials',
      region: stack.region,
      userPoolId: stack.userPoolId,
      userName: clientId,
      callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId },
      request: {
        userAttributes: {},
        groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [] },
        scopes: ['lrs/ingest'],
      },
      response: { claimsAndScopeOverrideDetails: null },
    });
    const ingest = (body: string, bearer?: string) =>
      stack.api().request({
        method: 'POST',
        path: '/ingest/movementEvents',
        claims: {},
        body,
        headers: { 'content-type': 'application/x-ndjson', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      });

    // Three crossings on 7 April 2025 (2 people, 1 bike) and two more people in today; then one
    // line of another organization and one of a location the organization does not have.
    const BATCH = [
      stack.crossing('2025-04-07T08:00:00.000Z', 'person', 'A'),
      stack.crossing('2025-04-07T09:00:00.000Z', 'person', 'B'),
      stack.crossing('2025-04-07T10:00:00.000Z', 'bike', 'A'),
      stack.crossing(stack.today(5), 'person', 'A'),
      stack.crossing(stack.today(6), 'person', 'A'),
      stack.crossing('2025-04-07T11:00:00.000Z', 'car', 'A', stack.otherOrg, 'elsewhere'),
      stack.crossing('2025-04-07T12:00:00.000Z', 'car', 'A', stack.org, 'nowhere'),
    ]
      .map((d) => JSON.stringify(d))
      .join('\n');
    const REFUSED = [
      {
        line: 6,
        errors: [
          { path: '/organizationId', message: "must be the token's organization, or left out" },
          expect.objectContaining({ path: '/locationId' }),
        ],
      },
      {
        line: 7,
        errors: [
          { path: '/locationId', message: 'is not a location of your organization (GET /locations lists them)' },
        ],
      },
    ];
    const APRIL_7 = JSON.stringify({
      filters: [{ type: 'range', field: 'timestamp', from: '2025-04-07T00:00:00Z', to: '2025-04-08T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'terms', field: 'label' },
      ],
    });
    const authorizer = () => stack.fn(stack.api().routes.find((r) => r.lambdaAuthorizer)!.lambdaAuthorizer!.functionId);
    const refusals = () =>
      authorizer()
        .jsonLogs()
        .filter((l) => l.message === 'ingest token refused')
        .map((l) => l.reason);
    const report = async () =>
      JSON.parse(
        (await stack.call('POST', '/reports:query', { body: APRIL_7, headers: { 'content-type': 'application/json' } }))
          .body,
      ) as unknown;

    beforeAll(async () => {
      cognito
        .on(CreateUserPoolClientCommand)
        .resolves({ UserPoolClient: { ClientId: CLIENT_ID, ClientSecret: 'gateway-secret' } });
      cognito.on(DeleteUserPoolClientCommand).resolves({});
      expect(await cli('create', '--org', stack.org, '--name', 'Hall gateway')).toBe(0);
    });
    afterAll(() => cognito.restore());

    it("runs the pre-token trigger's asset with a V3_0 event: the registered client's organization goes into its access token, an unknown client gets none", async () => {
      const answered = await stack.fn(stack.preTokenFunctionId()).invoke<{
        response: {
          claimsAndScopeOverrideDetails: { accessTokenGeneration: { claimsToAddOrOverride: Record<string, string> } };
        };
      }>(tokenEvent(CLIENT_ID));
      const added = answered.response.claimsAndScopeOverrideDetails.accessTokenGeneration.claimsToAddOrOverride;
      expect(added).toEqual({ 'custom:organizationId': stack.org });
      await expect(stack.fn(stack.preTokenFunctionId()).invoke(tokenEvent('stranger'))).rejects.toThrow(
        'Client stranger is not a registered machine client.',
      );
      token = await stack.issuer().accessToken(CLIENT_ID, 'lrs/ingest', added);
    });

    it("takes a batch with an ingest token: a report sees exactly its documents; the other organization's and the unknown location's lines are refused", async () => {
      // A report just before the batch, with the ingest function warm (a batch whose one line is
      // refused writes nothing): the report function keeps the rollup state it read for a second
      // (docs/rollups.md, "Reading"); the ingest function's marks reach it after that second.
      const warm = await ingest(
        JSON.stringify(stack.crossing('2025-04-07T12:00:00.000Z', 'car', 'A', stack.org, 'nowhere')),
        token,
      );
      expect([warm.status, JSON.parse(warm.body)]).toEqual([
        200,
        { accepted: 0, duplicates: 0, rejected: [{ ...REFUSED[1], line: 1 }] },
      ]);
      expect(await report()).toEqual([{ timestamp: '2025-04-07T00:00:00.000Z' }]);
      const first = await ingest(BATCH, token);
      expect([first.status, JSON.parse(first.body)]).toEqual([200, { accepted: 5, duplicates: 0, rejected: REFUSED }]);
      await stack.refreshIndices();
      expect(await report()).toEqual([{ timestamp: '2025-04-07T00:00:00.000Z', bike: 1, person: 2 }]);
    });

    it('answers the same batch again with duplicates, and the counts stay', async () => {
      const again = await ingest(BATCH, token);
      expect([again.status, JSON.parse(again.body)]).toEqual([200, { accepted: 0, duplicates: 5, rejected: REFUSED }]);
      await stack.refreshIndices();
      expect(await report()).toEqual([{ timestamp: '2025-04-07T00:00:00.000Z', bike: 1, person: 2 }]);
    });

    it("shows the posted crossings in live occupancy after the refresh rule's target ran: 3 + 2 in, 1 out", async () => {
      await stack.refreshOccupancy();
      const live = await stack.call('GET', '/locations/hall/insights/live', { query: { filter: 'occupancy' } });
      expect(JSON.parse(live.body)).toEqual({
        insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Hall' }, occupancy: 4 }] },
      });
    });

    it("refuses a user's token (403) and no token (401) at the route's authorizer, before the ingest function", async () => {
      const read = await ingest(BATCH, await stack.issuer().idToken({ 'custom:organizationId': stack.org }));
      expect([read.status, read.body]).toEqual([403, '{"message":"Forbidden"}']);
      const none = await ingest(BATCH);
      expect([none.status, none.body]).toEqual([401, '{"message":"Unauthorized"}']);
      // Refused for what it is (no ingest scope), after its signature was checked against the JWKS.
      expect(refusals()).toEqual(['Missing Scope. Expected: lrs/ingest']);
    });

    it('refuses the tokens of a revoked client', async () => {
      expect(await cli('revoke', CLIENT_ID)).toBe(0);
      const revoked = await ingest(BATCH, token);
      expect(revoked.status).toBe(403);
      expect(refusals().at(-1)).toBe(`Client ${CLIENT_ID} was revoked.`);
      await expect(stack.fn(stack.preTokenFunctionId()).invoke(tokenEvent(CLIENT_ID))).rejects.toThrow(
        `Client ${CLIENT_ID} was revoked.`,
      );
    });
  });
}
