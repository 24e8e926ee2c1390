import type { DocumentIdentity } from '../documents/identity';
import type { ReportDocument } from '../documents/documents';
import type { Collection } from '../documents/fields';

/** A validated document on its way to an engine, with who it is (../documents/identity.ts). */
export interface DocumentToWrite<C extends Collection = Collection> {
  readonly document: ReportDocument<C>;
  readonly identity: DocumentIdentity;
}

/**
 * What became of one document:
 * - `written`: it is stored now;
 * - `duplicate`: the same document (same identity, same content) was stored before: nothing changed;
 * - `conflict`: a document with the same `id` and other content was stored before; it stays (the
 *   first write wins) and this one is refused;
 * - `refused`: the engine refused this document for good (a mapping error): `reason` says why.
 */
export type WriteOutcome =
  | { readonly kind: 'written' }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Where documents are written exactly once: the DuckDB engine (duckdb/write.ts)
 * or OpenSearch (opensearch/write.ts). Documents of one call have distinct identities.
 * Each document is written whole or not at all; one that fails for a passing reason (the engine
 * busy or unreachable) makes the call throw EngineUnavailableError (503) after the others are done,
 * and writing the same call again then writes only what is missing: the rest are duplicates.
 */
export interface DocumentWriter {
  write<C extends Collection>(collection: C, documents: readonly DocumentToWrite<C>[]): Promise<WriteOutcome[]>;
}

/**
 * The documents of a batch with distinct identities, as a writer takes them, and what became of the
 * others: a document given again in the batch is a duplicate of the first when their contents are
 * the same, else a conflict (its `id` named another document first; the first wins). Two readings
 * without `id` whose 64-bit keys collide while their contents differ are both kept.
 */
export function firstOfEachIdentity<C extends Collection>(documents: readonly DocumentToWrite<C>[]): { distinct: number[]; repeated: Map<number, WriteOutcome> } {
  const contents = new Map<bigint, bigint[]>();
  const distinct: number[] = [];
  const repeated = new Map<number, WriteOutcome>();
  documents.forEach(({ document, identity }, i) => {
    const seen = contents.get(identity.key);
    if (!seen) {
      contents.set(identity.key, [identity.content]);
      distinct.push(i);
    } else if (seen.includes(identity.content)) repeated.set(i, { kind: 'duplicate' });
    else if (document.id !== undefined) repeated.set(i, { kind: 'conflict' });
    else {
      seen.push(identity.content);
      distinct.push(i);
    }
  });
  return { distinct, repeated };
}
