import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { isOrganizationId } from '#shared/organization';
import { ForbiddenError, UnauthorizedError } from '#shared/errors';
import { ENV } from '../env';

/**
 * The claim that carries the caller's organization. A Cognito user pool puts custom attributes into
 * the ID token as `custom:<name>`. Override with ORGANIZATION_CLAIM.
 */
export const organizationClaim = (): string => process.env[ENV.organizationClaim] ?? 'custom:organizationId';

/**
 * The OAuth 2.0 resource server of this API and its one scope, `lrs/ingest` (Cognito names a custom
 * scope `<resource server>/<scope>`): machine clients (gateways, the backfill) get tokens with it and
 * may only write documents; people's tokens have no scope and may only read. The stack creates the
 * resource server (lib/), the local token CLI mints such tokens (bin/mint-token.ts).
 */
export const RESOURCE_SERVER = 'lrs';
export const INGEST_SCOPE = `${RESOURCE_SERVER}/ingest`;

/** What a request does with the data, and so which tokens may make it. */
export type Purpose = 'read' | 'ingest';

/**
 * The caller's organization from the JWT authorizer claims (API Gateway, or the local server): 401
 * unless the claim is a UUID. API Gateway hands every claim over as a string (`null`, `42`, `true`,
 * `[a b]` for JSON null, numbers, booleans and arrays), so the form is what tells a real organization
 * id from any of those, or from a free-text attribute; the value itself is never echoed.
 * 403 when the token is not for `purpose`: only a token with {@link INGEST_SCOPE} may ingest, and
 * such a token may do nothing else.
 */
export function organizationOf(event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>, purpose: Purpose = 'read'): string {
  const claims = claimsOf(event);
  const org = claims[organizationClaim()];
  if (org === undefined || org === '') throw new UnauthorizedError('The token carries no organization.');
  if (!isOrganizationId(org)) throw new UnauthorizedError(`The token's organization claim (${organizationClaim()}) must be a UUID.`);
  const ingests = scopesOf(event).includes(INGEST_SCOPE);
  if (purpose === 'ingest' && !ingests) throw new ForbiddenError(`Writing documents needs a token with the scope ${INGEST_SCOPE} (a machine client's).`, INGEST_SCOPE);
  if (purpose === 'read' && ingests) throw new ForbiddenError(`A token with the scope ${INGEST_SCOPE} may only write documents (POST /ingest/{collection}); reading needs a user's token.`);
  return org;
}

/**
 * The token's scopes: as API Gateway's JWT authorizer lists them (`jwt.scopes`), else from the
 * token's `scope` claim (space-separated, RFC 8693 §4.2), which is where they come from.
 */
export function scopesOf(event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>): string[] {
  const jwt = event.requestContext?.authorizer?.jwt;
  if (jwt?.scopes && jwt.scopes.length > 0) return [...jwt.scopes];
  const claim = claimsOf(event).scope;
  return typeof claim === 'string' ? claim.split(' ').filter(Boolean) : [];
}

/** What a Lambda authorizer (simple response) passes on: its `context`, under `authorizer.lambda`. */
type WithLambdaAuthorizer = { readonly lambda?: Readonly<Record<string, unknown>> };

/**
 * The verified token's claims: the JWT authorizer's (`authorizer.jwt.claims`), or the context of the
 * ingest route's Lambda authorizer (functions/authorize-ingest.ts), which passes the claims it checked
 * under the same names (`authorizer.lambda`).
 */
function claimsOf(event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>): Readonly<Record<string, unknown>> {
  const authorizer = event.requestContext?.authorizer as (APIGatewayProxyEventV2WithJWTAuthorizer['requestContext']['authorizer'] & WithLambdaAuthorizer) | undefined;
  return authorizer?.jwt?.claims ?? authorizer?.lambda ?? {};
}
