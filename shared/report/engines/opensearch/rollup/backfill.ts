import type { Client } from '@opensearch-project/opensearch';
import type { Collection } from '../../../fields';
import { ROLLUP_GRAIN_MS, ROLLUP_WINDOW } from '../../../plan/rollup-match';
import { indexPattern } from '../indices';
import { grainsOf, markGrains, markReady, readRollupState } from './marks';

/**
 * Marks dirty every grain of the documents of `index` (a collection's index or pattern) that match
 * `query`: a composite of their grains, page by page. What a deletion calls before and after it
 * deletes (erasure, retention), and the backfill. Returns the grains marked.
 */
export async function markGrainsOfDocuments(client: Client, prefix: string, c: Collection, index: string, query: object, grainMs: number = ROLLUP_GRAIN_MS): Promise<number> {
  // A search with aggregations over no index at all fails on OpenSearch 2.19 (array_index_out_of_bounds).
  if (!(await client.indices.exists({ index })).body) return 0;
  await client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true });
  let after: Record<string, unknown> | undefined;
  let marked = 0;
  for (;;) {
    const { body } = await client.search({
      index,
      ignore_unavailable: true,
      allow_no_indices: true,
      allow_partial_search_results: false,
      body: {
        size: 0,
        track_total_hits: false,
        query: { bool: { filter: [query, { range: { timestamp: { gte: ROLLUP_WINDOW.from, lt: ROLLUP_WINDOW.to, format: 'epoch_millis' } } }] } },
        aggs: {
          grains: {
            composite: { size: 1000, sources: [{ g: { date_histogram: { field: 'timestamp', fixed_interval: `${grainMs}ms` } } }], ...(after ? { after } : {}) },
            // A sub-aggregation keeps OpenSearch 2.19 from its filter-rewrite shortcut for a lone date
            // source, which fails on some segments (ArrayIndexOutOfBoundsException in filterrewrite.Ranges).
            aggs: { last: { max: { field: 'timestamp' } } },
          },
        },
      } as never,
    });
    const grains = (body as { aggregations?: { grains: { buckets: { key: { g: number } }[]; after_key?: Record<string, unknown> } } }).aggregations?.grains;
    const page = grainsOf((grains?.buckets ?? []).map((b) => b.key.g), grainMs);
    await markGrains(client, prefix, c, page, true);
    marked += page.length;
    if (!grains?.after_key || grains.buckets.length === 0) return marked;
    after = grains.after_key;
  }
}

/**
 * Makes a collection's rollups ready: marks every grain of the documents stored so far, then says so
 * (markReady). Documents written meanwhile mark their own grains. Nothing to do once ready. Returns
 * the grains marked.
 */
export async function backfillRollups(client: Client, prefix: string, c: Collection, grainMs: number = ROLLUP_GRAIN_MS): Promise<number> {
  if ((await readRollupState(client, prefix, c)).ready) return 0;
  const marked = await markGrainsOfDocuments(client, prefix, c, indexPattern(prefix, c), { match_all: {} }, grainMs);
  await markReady(client, prefix, c);
  return marked;
}
