import { hash } from 'node:crypto';
import type { ReportDocument } from './documents';
import type { Collection } from './fields';

/**
 * Who a stored document is, so that writing it again is recognized instead of counted twice.
 *
 * A document is identified by its organization, its collection and its `id` (a device's event id)
 * when it carries one, else by its whole content: the same reading sent twice (a gateway retrying
 * a batch after a timeout) is one document. The organization is part of every identity, so one
 * tenant can never replace or block another's document in the shared monthly indices.
 *
 * - `id`: the OpenSearch `_id` (128 bits of SHA-256, base64url), written with `create` so that a
 *   second write is refused (409) rather than replacing the first.
 * - `key`, `content`: two independent 64-bit numbers for the DuckDB engine, which keeps them in
 *   columns and looks new documents up by `key`: the identity, and a digest of the content, so that
 *   the same `id` with other content is told apart from a duplicate (a conflict: the first write wins).
 *   A document without `id` has two digests of its content, 128 bits in all, so a 64-bit collision
 *   between two different readings is never taken for a duplicate.
 *
 * Content is the normalized document (shared/documents/documents.ts: instants as epoch ms, the derived
 * `crossedPaths[].start`), written as JSON with sorted keys: `2024-03-01T01:00:00+01:00` and
 * `2024-03-01T00:00:00Z` are the same reading. Arrays keep their order.
 */
export interface DocumentIdentity {
  readonly id: string;
  readonly key: bigint;
  readonly content: bigint;
}

export function documentIdentity(collection: Collection, doc: ReportDocument): DocumentIdentity {
  return identityOfContent(collection, doc, canonicalJson(doc));
}

/** documentIdentity, for a caller that has the document's canonicalJson already (and uses it besides). */
export function identityOfContent(collection: Collection, doc: ReportDocument, content: string): DocumentIdentity {
  // One-shot digests: a Hash object per digest cost about as much as the hashing, and so did a
  // Buffer per digest; hex strings are cheaper to make and to read (bench/README.md).
  const identity = hash('sha256', `${doc.organizationId}\u0000${collection}\u0000${doc.id === undefined ? `content\u0000${content}` : `id\u0000${doc.id}`}`, 'hex');
  const digest = hash('sha256', `content\u0000${collection}\u0000${content}`, 'hex');
  return { id: Buffer.from(identity.slice(0, 32), 'hex').toString('base64url'), key: int64(identity), content: int64(digest) };
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
