import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { UnauthorizedError } from '#shared/errors';

/**
 * The claim that carries the caller's organization. A Cognito user pool puts custom attributes into
 * the ID token as `custom:<name>`. Override with ORGANIZATION_CLAIM.
 */
export const organizationClaim = (): string => process.env.ORGANIZATION_CLAIM ?? 'custom:organizationId';

/** The caller's organization from the JWT authorizer claims (API Gateway, or the local server). */
export function organizationOf(event: Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>): string {
  const claims = event.requestContext?.authorizer?.jwt?.claims ?? {};
  const org = claims[organizationClaim()];
  if (typeof org !== 'string' || org.length === 0) throw new UnauthorizedError('The token carries no organization.');
  return org;
}
