import { hash } from 'node:crypto';
import type { ReportDocument } from './documents';
import type { Collection } from './fields';
import type { DocumentIdentity } from './identified';

/**
 * Who `doc` is (see DocumentIdentity in ./identified.ts): SHA-256 digests of its organization, collection and `id` or
 * content.
 */
export function documentIdentity(collection: Collection, doc: ReportDocument): DocumentIdentity {
  return identityOfContent(collection, doc, canonicalJson(doc));
}

/** documentIdentity, for a caller that has the document's canonicalJson already (and uses it besides). */
export function identityOfContent(collection: Collection, doc: ReportDocument, content: string): DocumentIdentity {
  // One-shot digests: a Hash object per digest cost about as much as the hashing, and so did a
  // Buffer per digest; hex strings are cheaper to make and to read (bench/README.md).
  const identity = hash(
    'sha256',
    `${doc.organizationId}\u0000${collection}\u0000${doc.id === undefined ? `content\u0000${content}` : `id\u0000${doc.id}`}`,
    'hex',
  );
  const digest = hash('sha256', `content\u0000${collection}\u0000${content}`, 'hex');
  return {
    id: Buffer.from(identity.slice(0, 32), 'hex').toString('base64url'),
    key: int64(identity),
    content: int64(digest),
  };
}

/** The first 8 bytes of a hex digest as a signed big-endian 64-bit integer (readBigInt64BE). */
const int64 = (hex: string): bigint => BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`));

/** JSON with object keys sorted at every level (arrays in their order), undefined members left out. */
export function canonicalJson(value: unknown): string {
  // JSON.stringify already leaves undefined members out: a value whose objects all have their keys
  // in order is its own canonical form, and documents.ts builds documents so; copying them sorted
  // cost more than the digests.
  return JSON.stringify(inCanonicalOrder(value) ? value : sortKeys(value));
}

/**
 * Whether JSON.stringify writes `value` as sortKeys' copy would be written: every object in it plain
 * (no toJSON, no boxed primitive or Date, which sortKeys writes as their own keys) with its keys in
 * sorted order.
 */
function inCanonicalOrder(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if ('toJSON' in value) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(value)) {
    if (proto !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!inCanonicalOrder(value[i])) return false;
    return true;
  }
  if (proto !== Object.prototype && proto !== null) return false;
  let previous: string | undefined;
  for (const name in value) {
    if (!Object.hasOwn(value, name)) return false;
    if (previous !== undefined && !(previous < name)) return false;
    previous = name;
    if (!inCanonicalOrder((value as Record<string, unknown>)[name])) return false;
  }
  return true;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const name of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[name];
    if (v !== undefined) out[name] = sortKeys(v);
  }
  return out;
}
