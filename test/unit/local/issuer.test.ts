import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { UnauthorizedError } from '#shared/errors';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { tokenVerifier, trustIssuer } from '../../../bin/local/auth/issuer';
import { mintDevToken } from '../../../bin/local/auth/tokens';

/**
 * `npm start -- --jwt-issuer`: an issuer served here (discovery document and JWKS on a loopback
 * port, a token endpoint on another origin, as Cognito's domain is), its tokens signed with its key.
 */
const ORG = '6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const CLAIM = 'custom:organizationId';
let server: Server;
let issuer: string;
let key: CryptoKey;
let discoveryIssuer: string | undefined;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  key = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/pool/.well-known/openid-configuration') {
      return res.end(
        JSON.stringify({
          issuer: discoveryIssuer ?? issuer,
          jwks_uri: `${issuer}/.well-known/jwks.json`,
          token_endpoint: 'https://auth.example.com/oauth2/token',
        }),
      );
    }
    if (req.url === '/pool/.well-known/jwks.json') return res.end(JSON.stringify({ keys: [jwk] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const sign = (
  claims: Record<string, unknown>,
  options: { iss?: string; aud?: string; exp?: number; kidKey?: CryptoKey } = {},
) =>
  new SignJWT({ [CLAIM]: ORG, token_use: 'id', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? 'explorer')
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(options.kidKey ?? key);

async function detail(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return (error as UnauthorizedError).detail ?? '';
}

describe('a trusted OpenID Connect issuer', () => {
  test('is read from its discovery document: the origins the explorer calls are the issuer’s and the token endpoint’s', async () => {
    const trusted = await trustIssuer(issuer, 'explorer');
    expect(trusted).toMatchObject({
      issuer,
      clientId: 'explorer',
      origins: [new URL(issuer).origin, 'https://auth.example.com'],
    });
  });

  test('whose discovery document names another issuer is refused at start', async () => {
    discoveryIssuer = 'https://elsewhere.example.com';
    await expect(trustIssuer(issuer, 'explorer')).rejects.toThrow(
      `names the issuer "https://elsewhere.example.com", not ${issuer}`,
    );
    discoveryIssuer = undefined;
    await expect(trustIssuer(`${issuer}-nope`, 'explorer')).rejects.toThrow('cannot read');
  });

  test('has its tokens for the explorer accepted, with their claims; others refused with 401', async () => {
    const trusted = await trustIssuer(issuer, 'explorer');
    expect(await trusted.verify(await sign({}))).toMatchObject({
      iss: issuer,
      aud: 'explorer',
      sub: 'user-1',
      [CLAIM]: ORG,
    });
    expect(await detail(trusted.verify(await sign({}, { aud: 'another-client' })))).toBe('The token is invalid.');
    expect(await detail(trusted.verify(await sign({}, { iss: 'https://evil.example.com' })))).toBe(
      'The token is invalid.',
    );
    expect(await detail(trusted.verify(await sign({}, { exp: Math.floor(Date.now() / 1000) - 1 })))).toBe(
      'The token has expired.',
    );
    expect(await detail(trusted.verify(await sign({}, { kidKey: (await generateKeyPair('RS256')).privateKey })))).toBe(
      'The token is invalid.',
    );
  });

  test('leaves development tokens to the development key: the local server takes both', async () => {
    const devKey = await ephemeralDevKey();
    const verify = tokenVerifier(devKey, await trustIssuer(issuer, 'explorer'));
    const dev = await mintDevToken(devKey, { organizationId: ORG, claimName: CLAIM });
    expect(await verify(dev)).toMatchObject({ iss: 'lrs-local-dev', [CLAIM]: ORG });
    expect(await verify(await sign({}))).toMatchObject({ iss: issuer });
    expect(await detail(verify('not-a-jwt'))).toBe('The token is invalid.');
    // Without an issuer, only development tokens.
    expect(await detail(tokenVerifier(devKey)(await sign({})))).toBe('The token is invalid.');
  });
});
