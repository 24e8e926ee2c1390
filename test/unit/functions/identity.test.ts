import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { ForbiddenError, UnauthorizedError } from '#shared/errors';
import { organizationOf } from '#commons/http/identity';

/** The caller's organization and purpose, from either authorizer API Gateway runs before a function. */
const ORG = '5f0c3d4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
type Event = Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>;
const withJwt = (claims: Record<string, string>): Event => ({ requestContext: { authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [] } } } }) as unknown as Event;
/** The ingest route's Lambda authorizer (functions/authorize-ingest.ts) hands its context over as `authorizer.lambda`. */
const withLambda = (context: Record<string, string>): Event => ({ requestContext: { authorizer: { lambda: context } } }) as unknown as Event;

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
