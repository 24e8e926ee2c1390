import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ItemTable } from '#shared/locations/item-table';
import { type ClientIssuer, findMachineClient } from '#shared/ingest/machine-clients';
import type { DevKey } from './auth/dev-key';
import { mintDevToken } from './auth/tokens';

/**
 * Machine clients of the local server: `POST /ingest-clients` mints an id and a secret here (Cognito
 * does it in AWS) and the record keeps the secret's SHA-256; the server's token endpoint
 * (`POST /oauth2/token`, the client-credentials grant of RFC 6749 §4.4, as the user pool domain's)
 * exchanges them for an ingest token signed with the development key, and the server refuses the
 * tokens of a revoked client on the ingest route, as the Lambda authorizer does in AWS. A gateway
 * is then configured the same way against `npm start` and against the stack.
 */

/** The path of the local token endpoint. */
export const TOKEN_PATH = '/oauth2/token';

/** Lifetime of a local machine client's token, as Cognito's in the stack (ACCESS_TOKEN_MINUTES). */
const TOKEN_SECONDS = 3600;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The local issuer: random ids and secrets (256 bits: a hash needs no salt or stretching), nothing to delete on
 * revocation.
 */
export function localIssuer(tokenUrl: string): ClientIssuer {
  return {
    tokenUrl,
    async create() {
      const clientSecret = randomBytes(32).toString('base64url');
      return { clientId: `local-${randomBytes(12).toString('hex')}`, clientSecret, secretHash: sha256(clientSecret) };
    },
    async remove() {
      // The record's revocation is what the token endpoint and the ingest route read.
    },
  };
}

export interface TokenAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** An OAuth error answer (RFC 6749 §5.2). */
function oauthError(status: number, error: string, description: string): TokenAnswer {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (status === 401) headers['www-authenticate'] = 'Basic realm="lrs-local"';
  return { status, headers, body: JSON.stringify({ error, error_description: description }) };
}

/**
 * `POST /oauth2/token`: `grant_type=client_credentials` (form-encoded), the client authenticated by
 * HTTP Basic or by `client_id` and `client_secret` in the form (RFC 6749 §2.3.1); an unknown or
 * revoked client, or a wrong secret, is `invalid_client` (401). The token is an ingest token of the
 * client's organization with its `client_id`, for an hour.
 */
export async function issueToken(
  table: Pick<ItemTable, 'get'>,
  key: DevKey,
  claims: { readonly organizationClaim: string; readonly scope: string },
  request: {
    readonly contentType: string | undefined;
    readonly authorization: string | undefined;
    readonly body: string;
  },
): Promise<TokenAnswer> {
  if (!(request.contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const form = new URLSearchParams(request.body);
  if (form.get('grant_type') !== 'client_credentials')
    return oauthError(400, 'unsupported_grant_type', 'only client_credentials is offered');
  const requested = form.get('scope');
  if (requested?.split(' ').some((s) => s !== claims.scope))
    return oauthError(400, 'invalid_scope', `the only scope is ${claims.scope}`);
  const basic = /^Basic\s+(\S+)$/i.exec(request.authorization ?? '');
  const [id, secret] = basic
    ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent)
    : [form.get('client_id'), form.get('client_secret')];
  if (!id || !secret) return oauthError(401, 'invalid_client', 'the client id and secret are required');
  const client = await findMachineClient(table, id);
  const expected = client?.secretHash === undefined ? undefined : Buffer.from(client.secretHash, 'hex');
  const given = Buffer.from(sha256(secret), 'hex');
  if (
    !client ||
    client.revokedAt !== null ||
    !expected ||
    expected.length !== given.length ||
    !timingSafeEqual(expected, given)
  ) {
    return oauthError(401, 'invalid_client', 'unknown or revoked client, or a wrong secret');
  }
  const token = await mintDevToken(key, {
    organizationId: client.organizationId,
    claimName: claims.organizationClaim,
    subject: client.clientId,
    clientId: client.clientId,
    scopes: [claims.scope],
    ttlSeconds: TOKEN_SECONDS,
  });
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' },
    body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: TOKEN_SECONDS, scope: claims.scope }),
  };
}
