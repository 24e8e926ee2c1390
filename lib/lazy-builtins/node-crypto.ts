import type * as crypto from 'node:crypto';
import { lazyExport } from './lazy-export';

/**
 * `node:crypto` in the Lambda bundles. Loading it is a measurable part of a cold start
 * (bench/README.md, bench/bundles.ts); at start it is imported by the Powertools logger (randomInt, called only when
 * debug log sampling is on) and, in chunks that load later, by the AWS SDK (hashes for signing).
 * Only the exports the bundled code imports are here: esbuild fails the build on any other.
 */
export const createHash = lazyExport<typeof crypto.createHash>('node:crypto', 'createHash');
export const createHmac = lazyExport<typeof crypto.createHmac>('node:crypto', 'createHmac');
export const hash = lazyExport<typeof crypto.hash>('node:crypto', 'hash');
export const getRandomValues = lazyExport<typeof crypto.getRandomValues>('node:crypto', 'getRandomValues');
export const randomInt = lazyExport<typeof crypto.randomInt>('node:crypto', 'randomInt');
export const randomBytes = lazyExport<typeof crypto.randomBytes>('node:crypto', 'randomBytes');
export const randomUUID = lazyExport<typeof crypto.randomUUID>('node:crypto', 'randomUUID');
