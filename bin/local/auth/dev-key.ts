import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

/**
 * The local development signing key: an ES256 key pair generated on first use and kept in a file
 * (by default `.data/dev-key.json`, gitignored). Generated rather than derived from a constant so that
 * a token minted on one machine, or a server left listening on a network, is not open to a key that
 * anyone with the repository could compute. Never used in AWS, where API Gateway verifies tokens.
 */
export interface DevKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

export const DEV_KEY_ALG = 'ES256';

interface DevKeyFile {
  readonly alg: typeof DEV_KEY_ALG;
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** Reads the key file, creating it (mode 0600) when absent. Safe when two processes start at once. */
export async function loadOrCreateDevKey(path: string): Promise<DevKey> {
  try {
    return await importKeyFile(JSON.parse(readFileSync(path, 'utf8')) as DevKeyFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`cannot read the development key ${path}: ${(e as Error).message}`);
  }
  const { privateKey, publicKey } = await generateKeyPair(DEV_KEY_ALG, { extractable: true });
  const kid = `dev-${new Date().toISOString().slice(0, 10)}-${Math.random().toString(36).slice(2, 8)}`;
  const file: DevKeyFile = {
    alg: DEV_KEY_ALG,
    kid,
    privateJwk: await exportJWK(privateKey),
    publicJwk: await exportJWK(publicKey),
  };
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  try {
    linkSync(tmp, path); // fails if another process created the key meanwhile: use theirs
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  return importKeyFile(JSON.parse(readFileSync(path, 'utf8')) as DevKeyFile);
}

async function importKeyFile(file: DevKeyFile): Promise<DevKey> {
  if (file.alg !== DEV_KEY_ALG) throw new Error(`unsupported key algorithm ${String(file.alg)}`);
  return {
    kid: file.kid,
    privateKey: (await importJWK(file.privateJwk, DEV_KEY_ALG)) as CryptoKey,
    publicKey: (await importJWK(file.publicJwk, DEV_KEY_ALG)) as CryptoKey,
  };
}

/** A fresh key kept in memory only (tests, throw-away servers). */
export async function ephemeralDevKey(): Promise<DevKey> {
  const { privateKey, publicKey } = await generateKeyPair(DEV_KEY_ALG);
  return { kid: 'ephemeral', privateKey, publicKey };
}
