import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { startTlsFront, type TlsFront } from './aws-endpoints';

/**
 * A stand-in for the user pool's token side: a key pair, its JWKS at `<issuer>/.well-known/jwks.json`
 * over HTTPS (a TLS front the functions trust), and tokens shaped as Cognito issues them, signed
 * RS256. The stack test maps the pool's ProviderURL (the issuer the authorizer is given) to `issuer`.
 * The pool itself (its token endpoint, the trigger's invocation) is not run here: the test runs the
 * trigger's asset with the event Cognito sends and signs a token with the claims the trigger added.
 */
export interface LocalIssuer {
  readonly issuer: string;
  readonly tls: TlsFront;
  /** A client-credentials access token of `clientId`, with the scope and the claims the trigger added. */
  accessToken(clientId: string, scope: string, added: Readonly<Record<string, unknown>>): Promise<string>;
  /** A user's ID token (what people read with): token_use id, aud = the users' app client. */
  idToken(claims: Readonly<Record<string, unknown>>): Promise<string>;
  close(): Promise<void>;
}

export async function startLocalIssuer(userPoolId: string): Promise<LocalIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] });
  const server = createServer((req, res) => {
    const found = req.url === `/${userPoolId}/.well-known/jwks.json`;
    res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    res.end(found ? jwks : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const tls = await startTlsFront('cognito-idp', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const issuer = `${tls.url}/${userPoolId}`;
  const sign = (payload: JWTPayload) =>
    new SignJWT({ ...payload, jti: randomUUID(), auth_time: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  return {
    issuer,
    tls,
    // Cognito's client-credentials access token: sub and client_id are the client, no aud.
    accessToken: (clientId, scope, added) =>
      sign({ ...added, sub: clientId, client_id: clientId, token_use: 'access', scope, version: 2 }),
    idToken: (claims) => sign({ sub: randomUUID(), aud: 'users-app-client', token_use: 'id', ...claims }),
    close: async () => {
      await tls.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
