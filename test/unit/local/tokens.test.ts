import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '#shared/errors';
import { ephemeralDevKey, loadOrCreateDevKey } from '../../../bin/local/auth/dev-key';
import { bearerToken, mintDevToken, toAuthorizerClaims, verifyDevToken } from '../../../bin/local/auth/tokens';

const ORG = '6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const CLAIM = 'custom:organizationId';

async function rejection(promise: Promise<unknown>): Promise<UnauthorizedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return error as UnauthorizedError;
}

describe('development tokens', () => {
  test('a minted token verifies and carries the organization in the configured claim', async () => {
    // Prepare
    const key = await ephemeralDevKey();
    // Act
    const token = await mintDevToken(key, { organizationId: ORG, claimName: CLAIM });
    const claims = await verifyDevToken(key, token);
    // Assess
    expect(claims).toMatchObject({ [CLAIM]: ORG, iss: 'lrs-local-dev', aud: 'lrs-local', sub: 'local-developer' });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(12 * 3600);
  });

  test('a missing token is 401', async () => {
    const key = await ephemeralDevKey();
    const error = await rejection(verifyDevToken(key, undefined));
    expect(error.status).toBe(401);
  });

  test('an expired token is 401 saying so', async () => {
    const key = await ephemeralDevKey();
    const token = await mintDevToken(key, {
      organizationId: ORG,
      claimName: CLAIM,
      ttlSeconds: 60,
      now: new Date('2024-01-01T00:00:00Z'),
    });
    expect((await rejection(verifyDevToken(key, token))).detail).toBe('The token has expired.');
  });

  test('a token issued after the current time is 401, not a second of clock skew allowed, as API Gateway does', async () => {
    // Prepare: minted at 12:00:01 with a 12-hour lifetime, verified at 12:00:00 and 12:00:01.
    const key = await ephemeralDevKey();
    const token = await mintDevToken(key, {
      organizationId: ORG,
      claimName: CLAIM,
      now: new Date('2024-01-01T12:00:01Z'),
    });
    // Act
    const early = await rejection(verifyDevToken(key, token, { now: new Date('2024-01-01T12:00:00.999Z') }));
    const onTime = await verifyDevToken(key, token, { now: new Date('2024-01-01T12:00:01Z') });
    // Assess
    expect(early.detail).toBe('The token was issued in the future.');
    expect(onTime.iat).toBe(Date.parse('2024-01-01T12:00:01Z') / 1000);
  });

  test('a token signed with another key is 401', async () => {
    const token = await mintDevToken(await ephemeralDevKey(), { organizationId: ORG, claimName: CLAIM });
    expect((await rejection(verifyDevToken(await ephemeralDevKey(), token))).detail).toBe('The token is invalid.');
  });

  test('a tampered or malformed token is 401', async () => {
    const key = await ephemeralDevKey();
    const [header, , signature] = (await mintDevToken(key, { organizationId: ORG, claimName: CLAIM })).split('.');
    const forged = Buffer.from(
      JSON.stringify({ [CLAIM]: 'someone-else', sub: 'x', exp: 4102444800, iss: 'lrs-local-dev', aud: 'lrs-local' }),
    ).toString('base64url');
    await rejection(verifyDevToken(key, `${header}.${forged}.${signature}`));
    await rejection(verifyDevToken(key, 'not-a-jwt'));
  });
});

describe('the development key file', () => {
  test('is created once with mode 0600 and then reused, so tokens stay valid across runs', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'lrs-key-'));
    const path = join(dir, 'nested', 'dev-key.json');
    try {
      // Act
      const first = await loadOrCreateDevKey(path);
      const token = await mintDevToken(first, { organizationId: ORG, claimName: CLAIM });
      const second = await loadOrCreateDevKey(path);
      // Assess
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(second.kid).toBe(first.kid);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ alg: 'ES256', kid: first.kid });
      await expect(verifyDevToken(second, token)).resolves.toMatchObject({ [CLAIM]: ORG });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the local authorizer helpers', () => {
  test('bearerToken reads the Bearer scheme and refuses anything else with 401', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(() => bearerToken(undefined)).toThrow(UnauthorizedError);
    expect(() => bearerToken('Basic dXNlcjpwYXNz')).toThrow(UnauthorizedError);
  });

  test('toAuthorizerClaims stringifies claims as the API Gateway JWT authorizer does', () => {
    expect(toAuthorizerClaims({ sub: 'u', exp: 1700000000, groups: ['a', 'b'], verified: true })).toEqual({
      sub: 'u',
      exp: '1700000000',
      groups: '[a b]',
      verified: 'true',
    });
  });
});
