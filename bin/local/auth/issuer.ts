import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import { UnauthorizedError } from '#shared/errors';
import type { DevKey } from './dev-key';
import { checkTimes, DEV_ISSUER, verifyDevToken } from './tokens';

/**
 * An OpenID Connect provider whose tokens the local server accepts besides its development tokens
 * (`npm start -- --jwt-issuer <url> --jwt-client-id <id>`): the provider's discovery document names
 * its keys (jwks_uri) and endpoints; the explorer signs people in with it, as it does with the
 * stack's Cognito user pool in AWS.
 */
export interface TrustedIssuer {
  /** The `iss` of its tokens, exactly as its discovery document states it. */
  readonly issuer: string;
  /** The `aud` its tokens must carry: the explorer's client id, as API Gateway's authorizer checks it. */
  readonly clientId: string;
  /** Origins the explorer's page calls (discovery, token, revocation endpoints): its CSP's connect-src. */
  readonly origins: readonly string[];
  readonly verify: (token: string, now?: Date) => Promise<JWTPayload>;
}

interface Discovery {
  readonly issuer?: unknown;
  readonly jwks_uri?: unknown;
  readonly token_endpoint?: unknown;
  readonly revocation_endpoint?: unknown;
  readonly end_session_endpoint?: unknown;
}

/** Reads `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4) and trusts its keys. */
export async function trustIssuer(
  issuerUrl: string,
  clientId: string,
  fetchFn: typeof fetch = fetch,
): Promise<TrustedIssuer> {
  const where = `${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let discovery: Discovery;
  try {
    const response = await fetchFn(where, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    discovery = (await response.json()) as Discovery;
  } catch (e) {
    throw new Error(`--jwt-issuer: cannot read ${where}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // OpenID Connect Discovery §4.3: the document's issuer must be the URL it was fetched for.
  if (discovery.issuer !== issuerUrl)
    throw new Error(`--jwt-issuer: ${where} names the issuer ${JSON.stringify(discovery.issuer)}, not ${issuerUrl}`);
  if (typeof discovery.jwks_uri !== 'string') throw new Error(`--jwt-issuer: ${where} has no jwks_uri`);
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const endpoints = [issuerUrl, discovery.token_endpoint, discovery.revocation_endpoint].filter(
    (u): u is string => typeof u === 'string',
  );
  return {
    issuer: issuerUrl,
    clientId,
    origins: [...new Set(endpoints.map((u) => new URL(u).origin))],
    async verify(token, now = new Date()) {
      try {
        // The same checks as API Gateway's JWT authorizer: signature by a key of the issuer, iss, aud, times.
        const { payload } = await jwtVerify(token, keys, {
          issuer: issuerUrl,
          audience: clientId,
          requiredClaims: ['exp', 'sub'],
          currentDate: now,
        });
        checkTimes(payload, now);
        return payload;
      } catch (e) {
        if (e instanceof errors.JWTExpired) throw new UnauthorizedError('The token has expired.');
        if (e instanceof errors.JOSEError) throw new UnauthorizedError('The token is invalid.');
        throw e;
      }
    },
  };
}

/**
 * The local server's token check: a development token (issuer `lrs-local-dev`) against the
 * development key, any other against the trusted issuer when there is one.
 */
export function tokenVerifier(devKey: DevKey, trusted?: TrustedIssuer): (token: string) => Promise<JWTPayload> {
  return async (token) => {
    if (!trusted) return verifyDevToken(devKey, token);
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw new UnauthorizedError('The token is invalid.');
    }
    return iss === DEV_ISSUER ? verifyDevToken(devKey, token) : trusted.verify(token);
  };
}
