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

/** A validated document on its way to a store, with who it is. */
export interface DocumentToWrite<C extends Collection = Collection> {
  readonly document: ReportDocument<C>;
  readonly identity: DocumentIdentity;
}

/**
 * What a document given again in one batch is: the same document (`duplicate`), or another one under the same `id`
 * (`conflict`).
 */
export type Repeat = { readonly kind: 'duplicate' } | { readonly kind: 'conflict' };

/**
 * The documents of a batch with distinct identities, as a store's writer takes them, and what became of the
 * others: a document given again in the batch is a duplicate of the first when their contents are
 * the same, else a conflict (its `id` named another document first; the first wins). Two readings
 * without `id` whose 64-bit keys collide while their contents differ are both kept.
 */
export function firstOfEachIdentity<C extends Collection>(
  documents: readonly DocumentToWrite<C>[],
): { distinct: number[]; repeated: Map<number, Repeat> } {
  const contents = new Map<bigint, bigint[]>();
  const distinct: number[] = [];
  const repeated = new Map<number, Repeat>();
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
