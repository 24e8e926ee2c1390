import type { APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { machineClientItem } from '#shared/ingest/machine-clients';
import type { Item } from '#shared/locations/items';
import { createAuthorizeIngestHandler } from '../../../functions/authorize-ingest';

/**
 * The ingest route's authorizer past the token's signature (aws-jwt-verify's part, stood in for by
 * `verify`; the stack test runs the real one against a JWKS): what it lets through and what it passes on.
 */
const ORG = '5f0c3d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const OTHER = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const items = new Map<string, Item>(
  [
    machineClientItem({
      clientId: 'gw-1',
      organizationId: ORG,
      name: 'Hall',
      createdAt: '2026-03-02T10:00:00.000Z',
      revokedAt: null,
    }),
    machineClientItem({
      clientId: 'gw-2',
      organizationId: ORG,
      name: 'Old',
      createdAt: '2026-03-02T10:00:00.000Z',
      revokedAt: '2026-03-03T10:00:00.000Z',
    }),
  ].map((i) => [i.SK, i]),
);
const claimsOf: Record<string, Record<string, unknown>> = {
  good: { client_id: 'gw-1', 'custom:organizationId': ORG, scope: 'lrs/ingest', token_use: 'access' },
  otherOrg: { client_id: 'gw-1', 'custom:organizationId': OTHER, scope: 'lrs/ingest' },
  revoked: { client_id: 'gw-2', 'custom:organizationId': ORG, scope: 'lrs/ingest' },
  unknown: { client_id: 'gw-9', 'custom:organizationId': ORG, scope: 'lrs/ingest' },
  noOrg: { client_id: 'gw-1', scope: 'lrs/ingest' },
};
const handler = createAuthorizeIngestHandler({
  verify: async () => async (token) => {
    const claims = claimsOf[token];
    if (!claims) throw new Error('Invalid signature');
    return claims;
  },
  table: async () => ({ get: async (_pk: string, sk: string) => items.get(sk) }),
});
const context = {
  awsRequestId: 'test',
  functionName: 'authorize-ingest',
  getRemainingTimeInMillis: () => 10_000,
} as Context;
const authorize = (authorization: string) =>
  handler(
    {
      version: '2.0',
      type: 'REQUEST',
      identitySource: [authorization],
      headers: { authorization },
    } as unknown as APIGatewayRequestAuthorizerEventV2,
    context,
  );

test("lets a registered client's token through, passing the claims the ingest function reads", async () => {
  expect(await authorize('Bearer good')).toEqual({
    isAuthorized: true,
    context: { 'custom:organizationId': ORG, scope: 'lrs/ingest', client_id: 'gw-1' },
  });
});

test.each([
  ['a token that does not verify', 'Bearer forged'],
  ['a scheme other than Bearer', 'Basic Z3ctMTpzZWNyZXQ='],
  ['a token naming another organization than its client has', 'Bearer otherOrg'],
  ['a revoked client', 'Bearer revoked'],
  ['a client never registered', 'Bearer unknown'],
  ['a token without the organization claim', 'Bearer noOrg'],
])('refuses %s', async (_, authorization) => {
  expect(await authorize(authorization)).toEqual({ isAuthorized: false, context: {} });
});
