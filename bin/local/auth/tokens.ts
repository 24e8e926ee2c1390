import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { UnauthorizedError } from '#shared/errors';
import { DEV_KEY_ALG, type DevKey } from './dev-key';
import { deepFreeze } from '../deep-freeze';

/** Issuer and audience of development tokens; verification insists on both. */
export const DEV_ISSUER = 'lrs-local-dev';
export const DEV_AUDIENCE = 'lrs-local';
/** Lifetime of a minted token. @default 12 hours */
export const DEFAULT_TOKEN_TTL_SECONDS = 12 * 3600;

export interface MintOptions {
  readonly organizationId: string;
  /** The claim that carries the organization (the handlers' organizationClaim()). */
  readonly claimName: string;
  /** @default 'local-developer' */
  readonly subject?: string;
  readonly ttlSeconds?: number;
  /**
   * OAuth scopes (the `scope` claim): with one, the token is a machine client's access token, as
   * Cognito's client-credentials grant issues (`token_use: access`). @default none: a user's ID token
   */
  readonly scopes?: readonly string[];
  /**
   * The machine client the token is for (its `client_id` claim, as Cognito's client-credentials tokens carry it).
   * @default none
   */
  readonly clientId?: string;
  /**
   * The caller's groups (the role, docs/access.md), in the claim `groups.claimName`, as Cognito lists them. @default
   * none: a viewer
   */
  readonly groups?: { readonly claimName: string; readonly names: readonly string[] };
  /**
   * The location grant, in the claim `locations.claimName`, ids separated by commas as a Cognito attribute holds them.
   * @default none: every location
   */
  readonly locations?: { readonly claimName: string; readonly ids: readonly string[] };
  /** @default the current time */
  readonly now?: Date;
}

/**
 * A development JWT (ES256) for one organization, as a Cognito ID token (or, with scopes, access token) would carry it.
 */
export async function mintDevToken(key: DevKey, options: MintOptions): Promise<string> {
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const scopes = options.scopes ?? [];
  const claims = scopes.length > 0 ? { token_use: 'access', scope: scopes.join(' ') } : { token_use: 'id' };
  const access = {
    ...(options.clientId ? { client_id: options.clientId } : {}),
    ...(options.groups && options.groups.names.length > 0
      ? { [options.groups.claimName]: [...options.groups.names] }
      : {}),
    ...(options.locations ? { [options.locations.claimName]: options.locations.ids.join(',') } : {}),
  };
  return new SignJWT({ [options.claimName]: options.organizationId, ...claims, ...access })
    .setProtectedHeader({ alg: DEV_KEY_ALG, kid: key.kid, typ: 'JWT' })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(options.subject ?? 'local-developer')
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.ttlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS))
    .sign(key.privateKey);
}

/**
 * The claims of a valid development token, or UnauthorizedError (401) when the token is missing,
 * expired, not yet valid, issued in the future, badly signed or not ours (issuer, audience,
 * algorithm). Used by the local server, which then puts the claims where the API Gateway JWT
 * authorizer would, so it checks the times as that authorizer does: `exp` after now, `nbf` and `iat`
 * before it, with no clock skew allowed (AWS documents none):
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html
 *
 * A token whose signature, issuer, audience and algorithm were verified once with this key is not
 * verified again (see {@link VERIFIED_TOKENS_PER_KEY}); its times are checked on every call.
 */
export async function verifyDevToken(
  key: DevKey,
  token: string | undefined,
  options: { now?: Date } = {},
): Promise<JWTPayload> {
  if (!token) throw new UnauthorizedError();
  const now = options.now ?? new Date();
  const known = verifiedTokens(key);
  let payload = known.get(token);
  if (!payload) {
    try {
      ({ payload } = await jwtVerify(token, key.publicKey, {
        algorithms: [DEV_KEY_ALG],
        issuer: DEV_ISSUER,
        audience: DEV_AUDIENCE,
        requiredClaims: ['exp', 'sub'],
        currentDate: now,
      }));
    } catch (e) {
      if (e instanceof errors.JWTExpired) throw new UnauthorizedError('The token has expired.');
      if (e instanceof errors.JOSEError) throw new UnauthorizedError('The token is invalid.');
      throw e;
    }
  }
  checkTimes(payload, now);
  if (!known.has(token)) remember(known, token, deepFreeze(payload));
  return payload;
}

/**
 * The time checks, as jose makes them on the first verification (`nbf`, then `exp`, as whole seconds
 * of `now`), for a token known to be well signed; then `iat`: jose checks that a present iat is a
 * number, but its time only against a maxTokenAge, which would also cap the token's age, while API
 * Gateway caps no age but refuses an iat after the current time.
 */
export function checkTimes(payload: JWTPayload, now: Date): void {
  const seconds = Math.floor(now.getTime() / 1000);
  if (payload.nbf !== undefined && payload.nbf > seconds) throw new UnauthorizedError('The token is invalid.');
  if (payload.exp !== undefined && payload.exp <= seconds) throw new UnauthorizedError('The token has expired.');
  if (payload.iat !== undefined && payload.iat > seconds)
    throw new UnauthorizedError('The token was issued in the future.');
}

/**
 * How many verified tokens are kept per key. The signature check (ECDSA P-256 through WebCrypto, run
 * in libuv's thread pool) was the largest cost of a local request, and a client sends one token again
 * and again; the bound keeps the memory fixed whatever tokens arrive (the oldest is dropped first).
 */
export const VERIFIED_TOKENS_PER_KEY = 1000;

const verified = new WeakMap<DevKey, Map<string, JWTPayload>>();

function verifiedTokens(key: DevKey): Map<string, JWTPayload> {
  let known = verified.get(key);
  if (!known) verified.set(key, (known = new Map()));
  return known;
}

function remember(known: Map<string, JWTPayload>, token: string, payload: JWTPayload): void {
  if (known.size >= VERIFIED_TOKENS_PER_KEY) known.delete(known.keys().next().value as string);
  known.set(token, payload);
}

/** The token of an `Authorization: Bearer <token>` header; 401 when absent or of another scheme. */
export function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization ?? '');
  if (!match) throw new UnauthorizedError();
  return match[1] as string;
}

/**
 * Claims as the API Gateway HTTP API JWT authorizer passes them to a function
 * (`event.requestContext.authorizer.jwt.claims`): every value a string, arrays as `[a b]`.
 */
export function toAuthorizerClaims(payload: JWTPayload): Record<string, string> {
  return Object.fromEntries(
    Object.entries(payload).map(([name, value]) => [
      name,
      Array.isArray(value)
        ? `[${value.join(' ')}]`
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : String(value),
    ]),
  );
}
