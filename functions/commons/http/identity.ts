import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { isOrganizationId } from '#shared/organization';
import { UnauthorizedError } from '#shared/errors';
import { ENV } from '../env';

/**
 * The claim that carries the caller's organization. A Cognito user pool puts custom attributes into
 * the ID token as `custom:<name>`. Override with ORGANIZATION_CLAIM.
 */
export const organizationClaim = (): string => process.env[ENV.organizationClaim] ?? 'custom:organizationId';

/**
 * The caller's organization from the JWT authorizer claims (API Gateway, or the local server): 401
 * unless the claim is a UUID. API Gateway hands every claim over as a string (`null`, `42`, `true`,
 * `[a b]` for JSON null, numbers, booleans and arrays), so the form is what tells a real organization
 * id from any of those, or from a free-text attribute; the value itself is never echoed.
 */
export function organizationOf(event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>): string {
  const claims = event.requestContext?.authorizer?.jwt?.claims ?? {};
  const org = claims[organizationClaim()];
  if (org === undefined || org === '') throw new UnauthorizedError('The token carries no organization.');
  if (!isOrganizationId(org)) throw new UnauthorizedError(`The token's organization claim (${organizationClaim()}) must be a UUID.`);
  return org;
}
