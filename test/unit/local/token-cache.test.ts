import * as jose from 'jose';
import { UnauthorizedError } from '#shared/errors';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken, VERIFIED_TOKENS_PER_KEY, verifyDevToken } from '../../../bin/local/auth/tokens';

// jose's own jwtVerify, counted: the local server must not check a known token's signature again.
jest.mock('jose', () => {
  const actual = jest.requireActual<typeof jose>('jose');
  return { ...actual, jwtVerify: jest.fn(actual.jwtVerify) };
});
const jwtVerify = jose.jwtVerify as jest.MockedFunction<typeof jose.jwtVerify>;

const ORG = '6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const CLAIM = 'custom:organizationId';
const at = (iso: string) => new Date(iso);

async function detail(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthorizedError);
  return (error as UnauthorizedError).detail;
}

beforeEach(() => jwtVerify.mockClear());

describe('verified development tokens', () => {
  test('a token presented again is not verified again', async () => {
    // Prepare
    const key = await ephemeralDevKey();
    const token = await mintDevToken(key, { organizationId: ORG, claimName: CLAIM });
    // Act
    const first = await verifyDevToken(key, token);
    const second = await verifyDevToken(key, token);
    // Assess
    expect(second).toEqual(first);
    expect(jwtVerify).toHaveBeenCalledTimes(1);
  });

  test('a known token is refused once it has expired, and before it was issued, as a new one would be', async () => {
    // Prepare: minted at 12:00:00 for 60 s, verified once at 12:00:30.
    const key = await ephemeralDevKey();
    const token = await mintDevToken(key, {
      organizationId: ORG,
      claimName: CLAIM,
      ttlSeconds: 60,
      now: at('2024-01-01T12:00:00Z'),
    });
    await verifyDevToken(key, token, { now: at('2024-01-01T12:00:30Z') });
    // Act + Assess
    expect(await detail(verifyDevToken(key, token, { now: at('2024-01-01T12:01:00Z') }))).toBe(
      'The token has expired.',
    );
    expect(await detail(verifyDevToken(key, token, { now: at('2024-01-01T11:59:59.999Z') }))).toBe(
      'The token was issued in the future.',
    );
    await expect(verifyDevToken(key, token, { now: at('2024-01-01T12:00:59.999Z') })).resolves.toMatchObject({
      [CLAIM]: ORG,
    });
    expect(jwtVerify).toHaveBeenCalledTimes(1);
  });

  test('a known token is refused before its nbf', async () => {
    // Prepare: valid from 12:00:10, first verified at 12:00:20.
    const key = await ephemeralDevKey();
    const token = await new jose.SignJWT({ [CLAIM]: ORG })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('lrs-local-dev')
      .setAudience('lrs-local')
      .setSubject('s')
      .setNotBefore(Date.parse('2024-01-01T12:00:10Z') / 1000)
      .setExpirationTime(Date.parse('2024-01-01T13:00:00Z') / 1000)
      .sign(key.privateKey);
    await verifyDevToken(key, token, { now: at('2024-01-01T12:00:20Z') });
    // Act + Assess
    expect(await detail(verifyDevToken(key, token, { now: at('2024-01-01T12:00:09Z') }))).toBe('The token is invalid.');
  });

  test('a token known to one key is still verified, and refused, with another', async () => {
    const key = await ephemeralDevKey();
    const token = await mintDevToken(key, { organizationId: ORG, claimName: CLAIM });
    await verifyDevToken(key, token);
    expect(await detail(verifyDevToken(await ephemeralDevKey(), token))).toBe('The token is invalid.');
  });

  test('a refused token is not kept: it is verified, and refused, every time', async () => {
    const key = await ephemeralDevKey();
    const foreign = await mintDevToken(await ephemeralDevKey(), { organizationId: ORG, claimName: CLAIM });
    await detail(verifyDevToken(key, foreign));
    await detail(verifyDevToken(key, foreign));
    expect(jwtVerify).toHaveBeenCalledTimes(2);
  });

  test('the claims handed out cannot be changed for the next request', async () => {
    const key = await ephemeralDevKey();
    const token = await mintDevToken(key, { organizationId: ORG, claimName: CLAIM });
    const claims = await verifyDevToken(key, token);
    expect(() => {
      (claims as Record<string, unknown>)[CLAIM] = 'someone-else';
    }).toThrow(TypeError);
    expect((await verifyDevToken(key, token))[CLAIM]).toBe(ORG);
  });

  test(`keeps at most ${VERIFIED_TOKENS_PER_KEY} tokens per key, the oldest going first`, async () => {
    // Prepare: one more token than the bound, each presented once.
    const key = await ephemeralDevKey();
    const tokens = await Promise.all(
      Array.from({ length: VERIFIED_TOKENS_PER_KEY + 1 }, (_, i) =>
        mintDevToken(key, { organizationId: ORG, claimName: CLAIM, subject: `user-${i}` }),
      ),
    );
    for (const token of tokens) await verifyDevToken(key, token);
    jwtVerify.mockClear();
    // Act: the newest is known, the oldest was dropped.
    await verifyDevToken(key, tokens.at(-1) as string);
    await verifyDevToken(key, tokens[0] as string);
    // Assess
    expect(jwtVerify).toHaveBeenCalledTimes(1);
  });
});
