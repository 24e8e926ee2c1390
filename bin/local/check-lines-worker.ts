import { checkLines, type RejectedLine } from '#shared/ingest/batch';
import { ndjsonLines } from '#shared/ingest/ndjson';
import type { Collection } from '#shared/documents/fields';
import { canonicalJson, identityOfContent } from '#shared/documents/identity';
import type { ReportDocument } from '#shared/documents/documents';

/** One request's body to read (./line-checkers.ts). */
export interface CheckTask {
  readonly collection: Collection;
  readonly body: string;
  readonly organizationId: string;
  readonly locationIds: readonly string[];
  /** Benchmark only (see ./line-checkers.ts): no identity hashed. */
  readonly withoutIdentity?: boolean;
}

/**
 * What checkLines found, in a form cheap to send between threads: the valid documents as one JSON
 * array of their canonical JSON (the main thread parses it faster than it takes a structured clone
 * of the objects; a document's fields in another order are the same document), the ones JSON would
 * change (a -0 becomes 0) apart, and the identities column by column.
 */
export interface CheckedTask {
  readonly rejected: readonly RejectedLine[];
  readonly lines: Int32Array;
  readonly documents: string;
  /** Documents JSON does not carry exactly, by their index in `documents`: sent as they are. */
  readonly exact: readonly (readonly [number, unknown])[];
  readonly ids: readonly string[];
  readonly keys: BigInt64Array;
  readonly contents: BigInt64Array;
}

/**
 * A worker thread's task: checkLines over the body's lines (blank lines skipped, numbered as the handler numbers them).
 */
export default function checkTask(task: CheckTask): CheckedTask {
  const tenancy = { organizationId: task.organizationId, locationIds: new Set(task.locationIds) };
  // Each document's canonical JSON, made for its identity, is also the text it travels in.
  const texts: string[] = [];
  const identify = (collection: Collection, document: ReportDocument, index: number) =>
    identityOfContent(collection, document, (texts[index] = canonicalJson(document)));
  const { valid, rejected } = checkLines(
    task.collection,
    ndjsonLines(task.body),
    tenancy,
    task.withoutIdentity ? placeholderIdentity : identify,
  );
  const n = valid.length;
  const [lines, keys, contents, ids] = [
    new Int32Array(n),
    new BigInt64Array(n),
    new BigInt64Array(n),
    new Array<string>(n),
  ];
  const exact: [number, unknown][] = [];
  for (let i = 0; i < n; i++) {
    const { line, document, identity } = valid[i]!;
    lines[i] = line;
    ids[i] = identity.id;
    keys[i] = identity.key;
    contents[i] = identity.content;
    if (hasNegativeZero(document)) exact.push([i, document]);
  }
  return {
    rejected,
    lines,
    documents: task.withoutIdentity ? JSON.stringify(valid.map((v) => v.document)) : `[${texts.join(',')}]`,
    exact,
    ids,
    keys,
    contents,
  };
}

function hasNegativeZero(value: unknown): boolean {
  if (typeof value === 'number') return Object.is(value, -0);
  if (value === null || typeof value !== 'object') return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (hasNegativeZero(v)) return true;
  return false;
}

/**
 * Benchmark only: a distinct key per document (none is taken for another) and no digest, for a writer that looks
 * nothing up.
 */
const placeholderIdentity = (_collection: Collection, _document: unknown, index: number) => ({
  id: '',
  key: BigInt(index),
  content: 0n,
});
