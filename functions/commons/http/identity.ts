import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import type { AccessScope, Role } from '#shared/access/scope';
import { LOCATION_ID } from '#shared/locations/model';
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

/**
 * The claim that lists the caller's groups: Cognito puts a user's groups in `cognito:groups` of its
 * ID and access tokens (AdminAddUserToGroup). Override with GROUPS_CLAIM (another issuer's `groups`).
 */
export const groupsClaim = (): string => process.env[ENV.groupsClaim] ?? 'cognito:groups';

/**
 * The claim that limits the caller to some locations: in AWS the user attribute `custom:locations`
 * (ids separated by commas, set by an administrator, never by the user), which Cognito puts into the
 * ID token. Absent: every location of the organization. Override with LOCATIONS_CLAIM.
 */
export const locationsClaim = (): string => process.env[ENV.locationsClaim] ?? 'custom:locations';

/** The groups that give a role; any other group is ignored. A user in both is an admin. */
export const ROLE_GROUPS = { admin: 'admin', viewer: 'viewer' } as const;

/** Most locations one grant may list (a Cognito attribute holds 2048 characters; an issuer's claim may hold more). */
export const MAX_GRANTED_LOCATIONS = 1000;

/**
 * What a request does, and so which tokens may make it: `read` (viewers and admins), `admin`
 * (admins: the role check of every write of the administration API), `ingest` (machine clients).
 */
export type Purpose = 'read' | 'admin' | 'ingest';

/**
 * The caller's organization from the JWT authorizer claims (API Gateway, or the local server): 401
 * unless the claim is a UUID. API Gateway hands every claim over as a string (`null`, `42`, `true`,
 * `[a b]` for JSON null, numbers, booleans and arrays), so the form is what tells a real organization
 * id from any of those, or from a free-text attribute; the value itself is never echoed.
 * 403 when the token is not for `purpose`: only a token with {@link INGEST_SCOPE} may ingest, and
 * such a token may do nothing else.
 */
export function organizationOf(
  event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>,
  purpose: Purpose = 'read',
): string {
  return accessOf(event, purpose).organizationId;
}

/**
 * The caller's scope, resolved once from the verified claims (docs/access.md): the organization
 * (401 unless a UUID), the role (`ingest` for a token with {@link INGEST_SCOPE}; else `admin` when
 * the groups claim names the admin group, else `viewer`, also with no groups at all), the subject,
 * and the location grant of {@link locationsClaim} (a malformed grant is a 401: it must never widen
 * what the token sees). 403 when the role does not allow `purpose`.
 */
export function accessOf(
  event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>,
  purpose: Purpose = 'read',
): AccessScope {
  const claims = claimsOf(event);
  const org = claims[organizationClaim()];
  if (org === undefined || org === '') throw new UnauthorizedError('The token carries no organization.');
  if (!isOrganizationId(org))
    throw new UnauthorizedError(`The token's organization claim (${organizationClaim()}) must be a UUID.`);
  const ingests = scopesOf(event).includes(INGEST_SCOPE);
  if (purpose === 'ingest' && !ingests)
    throw new ForbiddenError(
      `Writing documents needs a token with the scope ${INGEST_SCOPE} (a machine client's).`,
      INGEST_SCOPE,
    );
  if (purpose !== 'ingest' && ingests)
    throw new ForbiddenError(
      `A token with the scope ${INGEST_SCOPE} may only write documents (POST /ingest/{collection}); reading needs a user's token.`,
    );
  const role: Role = ingests
    ? 'ingest'
    : listClaim(claims[groupsClaim()]).includes(ROLE_GROUPS.admin)
      ? 'admin'
      : 'viewer';
  if (purpose === 'admin' && role !== 'admin')
    throw new ForbiddenError(
      `This needs the admin role (the group '${ROLE_GROUPS.admin}'); this token's role is ${role}.`,
    );
  const sub = claims.sub;
  const locationIds = grantOf(claims[locationsClaim()]);
  return {
    organizationId: org,
    role,
    subject: typeof sub === 'string' && sub !== '' ? sub : null,
    ...(locationIds ? { locationIds } : {}),
  };
}

/**
 * A claim that lists names, in every form it arrives in: API Gateway hands a JSON array over as
 * `[a b]` (Go's formatting,
 * https://github.com/aws-solutions-library-samples/guidance-for-claude-code-with-amazon-bedrock/issues/802 shows it
 * with groups), a JSON array when the claims are the token's own, or a string of names separated by commas or spaces (a
 * Cognito attribute). Location ids and group names hold neither.
 */
export function listClaim(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map(String);
  const text = String(value).trim();
  const inner = /^\[.*\]$/s.test(text) ? text.slice(1, -1) : text;
  return inner.split(/[\s,]+/).filter((v) => v !== '');
}

/**
 * The location grant of a claim: undefined when absent (every location); 401 when it names something no location id can
 * be.
 */
function grantOf(value: unknown): readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const ids = [...new Set(listClaim(value))].sort();
  if (ids.length > MAX_GRANTED_LOCATIONS)
    throw new UnauthorizedError(
      `The token's location grant (${locationsClaim()}) lists more than ${MAX_GRANTED_LOCATIONS} locations.`,
    );
  if (!ids.every((id) => LOCATION_ID.test(id)))
    throw new UnauthorizedError(
      `The token's location grant (${locationsClaim()}) must list location ids separated by commas.`,
    );
  return ids;
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

/** The machine client of an ingest token (`client_id`), when it has one (a token of `npm run token` has none). */
export function clientIdOf(event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>): string | undefined {
  const id = claimsOf(event).client_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** What a Lambda authorizer (simple response) passes on: its `context`, under `authorizer.lambda`. */
type WithLambdaAuthorizer = { readonly lambda?: Readonly<Record<string, unknown>> };

/**
 * The verified token's claims: the JWT authorizer's (`authorizer.jwt.claims`), or the context of the
 * ingest route's Lambda authorizer (functions/authorize-ingest.ts), which passes the claims it checked
 * under the same names (`authorizer.lambda`).
 */
function claimsOf(
  event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>,
): Readonly<Record<string, unknown>> {
  const authorizer = event.requestContext?.authorizer as
    | (APIGatewayProxyEventV2WithJWTAuthorizer['requestContext']['authorizer'] & WithLambdaAuthorizer)
    | undefined;
  return authorizer?.jwt?.claims ?? authorizer?.lambda ?? {};
}
