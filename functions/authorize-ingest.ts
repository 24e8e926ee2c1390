import middy from '@middy/core';
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { FetchError } from 'aws-jwt-verify/error';
import type { ItemTable } from '#shared/locations/item-table';
import { organizationOfClient, UnknownMachineClientError } from '#shared/ingest/machine-clients';
import { isOrganizationId } from '#shared/organization';
import { itemTable } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { ENV } from '#commons/env';
import { INGEST_SCOPE, organizationClaim } from '#commons/http/identity';
import { logger } from '#commons/powertools/logger';
import { observability } from '#commons/powertools/observability';

type Result = APIGatewaySimpleAuthorizerWithContextResult<Record<string, string>>;

/** Checks a token's signature (the issuer's JWKS), issuer, expiry and scope; resolves to its claims. */
export type AccessTokenVerifier = (token: string) => Promise<Record<string, unknown>>;

export interface AuthorizeIngestDeps {
  readonly verify: Provider<AccessTokenVerifier>;
  readonly table: Provider<Pick<ItemTable, 'get'>>;
}

/**
 * aws-jwt-verify's verifier for the issuer of JWT_ISSUER: RS256 signature against the issuer's JWKS
 * (fetched once and cached), `iss`, `exp`, `nbf`, the ingest scope, and `token_use: access`. No
 * audience: Cognito's client-credentials access tokens have none, only `client_id`.
 */
function verifierFromEnv(): Provider<AccessTokenVerifier> {
  let verify: AccessTokenVerifier | undefined;
  return async () => {
    if (verify) return verify;
    const issuer = process.env[ENV.jwtIssuer];
    if (!issuer) throw new Error(`${ENV.jwtIssuer} is not set`);
    // Loaded on first use, as a chunk of its own: it brings node:crypto, which the bundles keep out of the cold start
    // (lib/bundling.ts).
    const { JwtVerifier } = await import('aws-jwt-verify');
    const verifier = JwtVerifier.create({
      issuer,
      jwksUri: `${issuer}/.well-known/jwks.json`,
      audience: null,
      scope: INGEST_SCOPE,
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'access') throw new Error(`token_use is ${String(payload.token_use)}, not access`);
      },
    });
    return (verify = (token) => verifier.verify(token) as Promise<Record<string, unknown>>);
  };
}

/**
 * The Lambda authorizer (payload 2.0, simple responses) of `POST /ingest/{collection}`. API Gateway's
 * JWT authorizer cannot take machine clients: their access tokens have no `aud`, so it matches
 * `client_id` against a static audience list, and clients are created at run time
 * (bin/ingest-client.ts). This one verifies the token with aws-jwt-verify, then that its client is
 * registered and not revoked, with the organization the token names (shared/ingest/machine-clients.ts).
 * It passes the claims the ingest function reads (functions/commons/http/identity.ts) as its context.
 * Any refusal is `isAuthorized: false`, which API Gateway answers 403; a token that is missing is
 * answered 401 by API Gateway before this runs.
 */
export function createAuthorizeIngestHandler(
  deps: AuthorizeIngestDeps = { verify: verifierFromEnv(), table: itemTable },
) {
  return middy<APIGatewayRequestAuthorizerEventV2, Result>()
    .use(observability())
    .handler(async (event) => {
      const token = /^Bearer\s+(\S+)$/i.exec(event.identitySource?.[0] ?? '')?.[1];
      if (!token) return deny('no bearer token');
      let claims: Record<string, unknown>;
      try {
        claims = await (await deps.verify())(token);
      } catch (e) {
        // The JWKS cannot be fetched: our failure, not the caller's (API Gateway answers 500).
        if (e instanceof FetchError) throw e;
        return deny(e instanceof Error ? e.message : String(e));
      }
      const clientId = claims.client_id;
      const organizationId = claims[organizationClaim()];
      if (typeof clientId !== 'string' || !isOrganizationId(organizationId))
        return deny('no client_id or organization claim');
      try {
        const registered = await organizationOfClient(await deps.table(), clientId);
        if (registered !== organizationId) return deny(`client ${clientId} belongs to another organization`);
      } catch (e) {
        if (e instanceof UnknownMachineClientError) return deny(e.message);
        throw e;
      }
      return {
        isAuthorized: true,
        context: { [organizationClaim()]: organizationId, scope: String(claims.scope), client_id: clientId },
      };
    });
}

function deny(reason: string): Result {
  logger.warn('ingest token refused', { reason });
  return { isAuthorized: false, context: {} };
}

export const handler = createAuthorizeIngestHandler();
