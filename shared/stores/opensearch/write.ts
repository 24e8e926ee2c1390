import type { Client } from '@opensearch-project/opensearch';
import { EngineUnavailableError } from '../../errors';
import { canonicalJson, documentIdentity } from '../../documents/identity';
import { firstOfEachIdentity, type DocumentToWrite } from '../../documents/identified';
import type { ReportDocument } from '../../documents/documents';
import type { Collection } from '../../documents/fields';
import type { DocumentWriter, WriteOutcome } from '../store';
import { mapOpenSearchError, WRITE_WAIT } from './errors';
import { indexNameFor, indexPattern } from './layout/indices';
import { grainsOf } from '../../rollups/upkeep';
import { markGrains } from './rollups/marks';

export interface WriteOptions {
  /** Prefix of the index names (see indices.ts). @default '' */
  readonly indexPrefix?: string;
  /** `true`: searchable when the call returns; `'wait_for'`: wait for the next refresh. @default false */
  readonly refresh?: boolean | 'wait_for';
  /**
   * Mark the grains of the batch dirty for the rollups' rebuild (./rollups/marks.ts). Off only for a
   * benchmark's baseline: rollups of documents written so are wrong until their grains are marked.
   * @default true
   */
  readonly rollups?: boolean;
}

/** Retry-After of a write the domain pushed back (429 per item): the bulk thread pool drains within seconds. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Writes each document that is not stored yet, exactly once (DocumentWriter), into its monthly index:
 * `create` with the identity's `_id` (../../documents/identity.ts), so that a second write of the same
 * document is refused by the index (409) instead of replacing it. A 409 is a duplicate when the
 * stored `_source` is the document's own, else a conflict (the first write wins). A document with an
 * `id` whose `_id` is stored in another month's index (it came back with another timestamp) is a
 * conflict too: it is looked up over the collection's indices before writing. That look-up is a
 * search, so it sees documents once they are searchable (the index's refresh, 1 s by default);
 * a document of another month written within that second is not seen.
 *
 * One `_bulk` per monthly index, sent to `/<index>/_bulk` with no `_index` in the actions, so that
 * a role may be granted the collection's index patterns alone (lib/reporting.ts). Per-document
 * refusals come back as `refused`; a document the domain pushed back (429, 5xx) makes the call throw
 * EngineUnavailableError (503, Retry-After) once every index is done: the same call again writes
 * only what is missing. Then the grains of the batch are marked dirty for the rollups (docs/rollups.md).
 */
export async function writeDocuments<C extends Collection>(
  client: Client,
  collection: C,
  documents: readonly DocumentToWrite<C>[],
  options: WriteOptions = {},
): Promise<WriteOutcome[]> {
  const prefix = options.indexPrefix ?? '';
  const outcomes: (WriteOutcome | undefined)[] = documents.map(() => undefined);
  const targets = documents.map((d) => indexNameFor(prefix, collection, d.document.timestamp));
  try {
    const elsewhere = await storedInOtherIndices(client, indexPattern(prefix, collection), documents, targets);
    elsewhere.forEach((i) => (outcomes[i] = { kind: 'conflict' }));
    let busy: string | undefined;
    for (const [index, positions] of groupBy(targets, (_, i) => outcomes[i] === undefined)) {
      const written = await bulkCreate(
        client,
        index,
        positions.map((i) => documents[i] as DocumentToWrite<C>),
        options.refresh,
      );
      busy ??= written.busy;
      written.outcomes.forEach((o, j) => (outcomes[positions[j] as number] = o));
      const clashes = written.outcomes.flatMap((o, j) => (o === CLASH ? [positions[j] as number] : []));
      if (clashes.length > 0) {
        const stored = await storedSources(
          client,
          index,
          clashes.map((i) => (documents[i] as DocumentToWrite<C>).identity.id),
        );
        for (const i of clashes) {
          const { document, identity } = documents[i] as DocumentToWrite<C>;
          const same = document.id === undefined || stored.get(identity.id) === canonicalJson(toSource(document));
          outcomes[i] = { kind: same ? 'duplicate' : 'conflict' };
        }
      }
    }
    // After the documents (a rebuild that reads a mark then sees them), and for every document of the
    // batch, duplicates and conflicts included: a batch sent again after a failure between the
    // two writes finds its documents stored, and marks their grains then.
    if (options.rollups ?? true)
      await markGrains(
        client,
        prefix,
        collection,
        grainsOf(documents.map((d) => d.document.timestamp)),
        options.refresh === true,
      );
    // The first pushed-back item's error is the cause (logged with the 503): a full queue (429), a shard without an
    // active copy (503).
    if (busy)
      throw new EngineUnavailableError(
        'The search engine is busy and wrote part of the batch; send the same batch again shortly.',
        BUSY_RETRY_AFTER_SECONDS,
        { cause: new Error(busy) },
      );
  } catch (e) {
    throw mapOpenSearchError(e);
  }
  return outcomes.map((o) => o ?? { kind: 'refused', reason: 'not written' });
}

/** The OpenSearch engine's DocumentWriter. */
export class OpenSearchDocumentWriter implements DocumentWriter {
  constructor(
    private readonly client: Client,
    private readonly options: WriteOptions = {},
  ) {}

  write<C extends Collection>(collection: C, documents: readonly DocumentToWrite<C>[]): Promise<WriteOutcome[]> {
    return writeDocuments(this.client, collection, documents, this.options);
  }
}

/** A 409 that needs a look at the stored document before it is called a duplicate or a conflict. */
const CLASH: WriteOutcome = Object.freeze({ kind: 'conflict' });
/** Pushed back (429, 5xx): left undecided, so the call is retried. */
const BUSY = undefined;

interface BulkItemResult {
  readonly status?: number;
  readonly error?: { readonly type?: string; readonly reason?: string };
}

async function bulkCreate<C extends Collection>(
  client: Client,
  index: string,
  documents: readonly DocumentToWrite<C>[],
  refresh: WriteOptions['refresh'],
) {
  const body = documents.flatMap(({ document, identity }) => [{ create: { _id: identity.id } }, toSource(document)]);
  const response = await client.bulk({
    index,
    body,
    timeout: WRITE_WAIT,
    ...(refresh === undefined ? {} : { refresh }),
  });
  const items = (response.body as { items: Readonly<Record<string, BulkItemResult>>[] }).items;
  let busy: string | undefined;
  const outcomes = items.map((item): WriteOutcome | undefined => {
    const result = item.create ?? {};
    const status = result.status ?? 0;
    if (!result.error) return { kind: 'written' };
    if (status === 409) return CLASH;
    if (status === 429 || status >= 500) {
      busy ??= `${index}: ${status} ${result.error.type ?? 'error'}: ${result.error.reason ?? ''}`;
      return BUSY;
    }
    return { kind: 'refused', reason: `${result.error.type ?? 'error'}: ${result.error.reason ?? ''}` };
  });
  return { outcomes, busy };
}

/**
 * The most hits one search may return: OpenSearch's `index.max_result_window` (10,000 unless an index
 * raises it). The look-up of a larger batch's ids is that many searches.
 */
export const MAX_HITS_PER_SEARCH = 10_000;

/** Positions of the documents with an `id` whose `_id` is stored in another index than their own. */
async function storedInOtherIndices(
  client: Client,
  pattern: string,
  documents: readonly DocumentToWrite[],
  targets: readonly string[],
): Promise<number[]> {
  const named = documents.flatMap((d, i) => (d.document.id === undefined ? [] : [i]));
  if (named.length === 0) return [];
  const indicesOf = new Map<string, string[]>();
  for (let start = 0; start < named.length; start += MAX_HITS_PER_SEARCH) {
    const ids = named
      .slice(start, start + MAX_HITS_PER_SEARCH)
      .map((i) => (documents[i] as DocumentToWrite).identity.id);
    const response = await client.search({
      index: pattern,
      ignore_unavailable: true,
      allow_no_indices: true,
      body: { query: { ids: { values: ids } }, _source: false, size: ids.length },
    });
    const hits = (response.body as { hits: { hits: { _index: string; _id: string }[] } }).hits.hits;
    for (const hit of hits) (indicesOf.get(hit._id) ?? indicesOf.set(hit._id, []).get(hit._id)!).push(hit._index);
  }
  return named.filter((i) =>
    (indicesOf.get((documents[i] as DocumentToWrite).identity.id) ?? []).some((index) => index !== targets[i]),
  );
}

/** The stored `_source` of each `_id` (canonical JSON), read in real time (`_mget`). */
async function storedSources(client: Client, index: string, ids: readonly string[]): Promise<Map<string, string>> {
  const response = await client.mget({ index, body: { ids: [...ids] } });
  const docs = (response.body as { docs: { _id: string; found?: boolean; _source?: unknown }[] }).docs;
  return new Map(docs.filter((d) => d.found).map((d) => [d._id, canonicalJson(d._source)]));
}

/** Positions by key, keeping first-seen order, of the items `keep` says yes to. */
function groupBy<T>(items: readonly T[], keep: (item: T, i: number) => boolean): Map<T, number[]> {
  const groups = new Map<T, number[]>();
  items.forEach((item, i) => {
    if (keep(item, i)) (groups.get(item) ?? groups.set(item, []).get(item)!).push(i);
  });
  return groups;
}

/**
 * The `_source` of a document: catalog fields only (no `id`: the `_id` stands for it), dates as ISO 8601 UTC with ms.
 */
export function toSource(doc: ReportDocument): Record<string, unknown> {
  const { id: _id, ...fields } = doc as ReportDocument & Record<string, unknown>;
  const source: Record<string, unknown> = { ...fields, timestamp: new Date(doc.timestamp).toISOString() };
  if (typeof fields.startingTimestamp === 'number')
    source.startingTimestamp = new Date(fields.startingTimestamp).toISOString();
  return source;
}

const CONFLICT_REASON = 'conflict: a different document with this id was written first';

export interface BulkIndexOptions extends WriteOptions {
  /** Documents per call of {@link writeDocuments}. @default 5000 */
  readonly batchSize?: number;
}

/** One document that was not written: refused by OpenSearch, or a conflict. */
export interface IndexFailure {
  /** Position of the document in the input. */
  readonly index: number;
  readonly id?: string;
  readonly reason: string;
}

export interface BulkIndexResult {
  readonly indexed: number;
  readonly duplicates: number;
  readonly failures: readonly IndexFailure[];
}

/**
 * Writes validated documents, each once (their identities computed here; a document given twice is
 * written once), in batches: the seed, the ingest CLI's direct writer and the tests' fixtures.
 */
export async function indexDocuments<C extends Collection>(
  client: Client,
  collection: C,
  documents: readonly ReportDocument<C>[],
  options: BulkIndexOptions = {},
): Promise<BulkIndexResult> {
  const batchSize = options.batchSize ?? 5000;
  const failures: IndexFailure[] = [];
  let indexed = 0;
  let duplicates = 0;
  for (let start = 0; start < documents.length; start += batchSize) {
    const all = documents
      .slice(start, start + batchSize)
      .map((document) => ({ document, identity: documentIdentity(collection, document) }));
    const { distinct, repeated } = firstOfEachIdentity(all);
    for (const [i, o] of repeated) {
      if (o.kind === 'duplicate') duplicates++;
      else
        failures.push({
          index: start + i,
          ...(all[i]?.document.id === undefined ? {} : { id: all[i]?.document.id }),
          reason: CONFLICT_REASON,
        });
    }
    const batch = distinct.map((i) => all[i] as DocumentToWrite<C>);
    const positions = distinct.map((i) => start + i);
    const outcomes = await writeDocuments(client, collection, batch, options);
    outcomes.forEach((o, j) => {
      const doc = (batch[j] as DocumentToWrite<C>).document;
      const failure = (reason: string) =>
        failures.push({ index: positions[j] as number, ...(doc.id === undefined ? {} : { id: doc.id }), reason });
      if (o.kind === 'written') indexed++;
      else if (o.kind === 'duplicate') duplicates++;
      else if (o.kind === 'conflict') failure(CONFLICT_REASON);
      else failure(o.reason);
    });
  }
  return { indexed, duplicates, failures };
}
