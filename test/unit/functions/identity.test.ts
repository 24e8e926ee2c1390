import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { ForbiddenError, UnauthorizedError } from '#shared/errors';
import { accessOf, organizationOf } from '#commons/http/identity';

/** The caller's organization and purpose, from either authorizer API Gateway runs before a function. */
const ORG = '5f0c3d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
type Event = Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>;
const withJwt = (claims: Record<string, string>): Event =>
  ({
    requestContext: { authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [] } } },
  }) as unknown as Event;
/**
 * The ingest route's Lambda authorizer (functions/authorize-ingest.ts) hands its context over as `authorizer.lambda`.
 */
const withLambda = (context: Record<string, string>): Event =>
  ({ requestContext: { authorizer: { lambda: context } } }) as unknown as Event;

test("reads a Lambda authorizer's context as the JWT authorizer's claims: an ingest token may ingest and not read", () => {
  const machine = withLambda({ 'custom:organizationId': ORG, scope: 'lrs/ingest', client_id: 'gw-1' });
  expect(organizationOf(machine, 'ingest')).toBe(ORG);
  expect(() => organizationOf(machine, 'read')).toThrow(ForbiddenError);
});

test("a user's token may read and not ingest; no organization is 401 from either authorizer", () => {
  const user = withJwt({ 'custom:organizationId': ORG, token_use: 'id' });
  expect(organizationOf(user, 'read')).toBe(ORG);
  expect(() => organizationOf(user, 'ingest')).toThrow(ForbiddenError);
  expect(() => organizationOf(withLambda({ scope: 'lrs/ingest' }), 'ingest')).toThrow(UnauthorizedError);
  expect(() => organizationOf(withJwt({}), 'read')).toThrow(UnauthorizedError);
});

describe('the scope of a token, resolved once', () => {
  const user = (claims: Record<string, string>) =>
    withJwt({ 'custom:organizationId': ORG, token_use: 'id', sub: 'user-1', ...claims });

  test('takes the role from the groups claim in the form API Gateway hands arrays over, a viewer without one', () => {
    expect(accessOf(user({ 'cognito:groups': '[viewer admin]' })).role).toBe('admin');
    expect(accessOf(user({ 'cognito:groups': 'admin' })).role).toBe('admin');
    expect(accessOf(user({ 'cognito:groups': '[viewer]' })).role).toBe('viewer');
    expect(accessOf(user({ 'cognito:groups': '[other-team]' })).role).toBe('viewer');
    expect(accessOf(user({}))).toEqual({ organizationId: ORG, role: 'viewer', subject: 'user-1' });
  });

  test("refuses a viewer's write with a 403 naming the role, and an ingest token's", () => {
    expect(() => accessOf(user({ 'cognito:groups': '[viewer]' }), 'admin')).toThrow(
      "This needs the admin role (the group 'admin'); this token's role is viewer.",
    );
    expect(() => accessOf(withLambda({ 'custom:organizationId': ORG, scope: 'lrs/ingest' }), 'admin')).toThrow(
      ForbiddenError,
    );
    expect(accessOf(user({ 'cognito:groups': '[admin]' }), 'admin').role).toBe('admin');
  });

  test('reads the location grant as ids separated by commas or as an array, sorted and without repeats', () => {
    expect(accessOf(user({ 'custom:locations': 'nyc-store,berlin-mall,nyc-store' })).locationIds).toEqual([
      'berlin-mall',
      'nyc-store',
    ]);
    expect(accessOf(user({ 'custom:locations': '[b a]' })).locationIds).toEqual(['a', 'b']);
    expect(accessOf(user({ 'custom:locations': '[]' })).locationIds).toEqual([]);
  });

  test('is 401 for a grant that names something no location id can be: a malformed grant never widens access', () => {
    expect(() => accessOf(user({ 'custom:locations': 'berlin-mall,../etc' }))).toThrow(UnauthorizedError);
    expect(() => accessOf(user({ 'custom:locations': '{"all":true}' }))).toThrow(UnauthorizedError);
  });
});
