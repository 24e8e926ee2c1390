import type { Client } from '@opensearch-project/opensearch';
import type { Collection } from '../../fields';
import type { ReportDocument } from '../../documents';
import { mapOpenSearchError } from './errors';
import { indexNameFor } from './indices';

export interface BulkIndexOptions {
  /** Prefix of the index names (see indices.ts). @default '' */
  readonly indexPrefix?: string;
  /** `true`: searchable when the call returns; `'wait_for'`: wait for the next refresh. @default false */
  readonly refresh?: boolean | 'wait_for';
  /** Documents per `_bulk` request. @default 1000 */
  readonly batchSize?: number;
}

/** One document OpenSearch refused (strict mapping, bad value, full disk, ...). */
export interface IndexFailure {
  /** Position of the document in the input. */
  readonly index: number;
  readonly id?: string;
  readonly status: number;
  readonly type: string;
  readonly reason: string;
}

export interface BulkIndexResult {
  readonly indexed: number;
  readonly failures: readonly IndexFailure[];
}

/**
 * Bulk-indexes validated documents into their monthly indices (`indexNameFor`), with `_id` = the
 * document id when it has one (so indexing it again replaces it). Per-document refusals are
 * returned, not thrown; a request that fails as a whole (node unreachable) throws, mapped like a search.
 */
export async function indexDocuments<C extends Collection>(
  client: Client,
  collection: C,
  documents: readonly ReportDocument<C>[],
  options: BulkIndexOptions = {},
): Promise<BulkIndexResult> {
  const batchSize = options.batchSize ?? 1000;
  const failures: IndexFailure[] = [];
  let indexed = 0;
  for (let start = 0; start < documents.length; start += batchSize) {
    const batch = documents.slice(start, start + batchSize);
    const body = batch.flatMap((doc) => [
      { index: { _index: indexNameFor(options.indexPrefix ?? '', collection, doc.timestamp), ...(doc.id === undefined ? {} : { _id: doc.id }) } },
      toSource(doc),
    ]);
    let items: BulkItem[];
    try {
      const response = await client.bulk({ body, ...(options.refresh === undefined ? {} : { refresh: options.refresh }) });
      items = (response.body as { items: BulkItem[] }).items;
    } catch (e) {
      throw mapOpenSearchError(e);
    }
    items.forEach((item, i) => {
      const result = item.index ?? item.create ?? {};
      if (!result.error) {
        indexed++;
        return;
      }
      const doc = batch[i] as ReportDocument<C>;
      failures.push({
        index: start + i,
        ...(doc.id === undefined ? {} : { id: doc.id }),
        status: result.status ?? 0,
        type: result.error.type ?? 'unknown',
        reason: result.error.reason ?? '',
      });
    });
  }
  return { indexed, failures };
}

interface BulkItemResult {
  readonly status?: number;
  readonly error?: { readonly type?: string; readonly reason?: string };
}
type BulkItem = Readonly<Record<'index' | 'create', BulkItemResult | undefined>>;

/** The `_source` of a document: catalog fields only (no `id`), dates as ISO 8601 UTC with ms. */
export function toSource(doc: ReportDocument): Record<string, unknown> {
  const { id: _id, ...fields } = doc as ReportDocument & Record<string, unknown>;
  const source: Record<string, unknown> = { ...fields, timestamp: new Date(doc.timestamp).toISOString() };
  if (typeof fields.startingTimestamp === 'number') source.startingTimestamp = new Date(fields.startingTimestamp).toISOString();
  return source;
}
