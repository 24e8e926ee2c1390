import type { Client } from '@opensearch-project/opensearch';
import type { Collection } from '../../../documents/fields';
import { ROLLUP_GRAIN_MS, ROLLUP_WINDOW } from '../../../rollups/match';
import { grainsOf } from '../../../rollups/upkeep';
import { indexPattern } from '../layout/indices';
import { markGrains, markReady, readRollupState } from './marks';
import { timeBuckets } from './time-buckets';

/**
 * Marks dirty every grain of the documents of `index` (a collection's index or pattern) that match
 * `query`: a composite of their grains, page by page. What a deletion calls before and after it
 * deletes (erasure, retention), and the backfill. Returns the grains marked.
 */
export async function markGrainsOfDocuments(
  client: Client,
  prefix: string,
  c: Collection,
  index: string,
  query: object,
  grainMs: number = ROLLUP_GRAIN_MS,
): Promise<number> {
  // A search with aggregations over no index at all fails on OpenSearch 2.19 (array_index_out_of_bounds).
  if (!(await client.indices.exists({ index })).body) return 0;
  await client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true });
  let marked = 0;
  const inWindow = { range: { timestamp: { gte: ROLLUP_WINDOW.from, lt: ROLLUP_WINDOW.to, format: 'epoch_millis' } } };
  for await (const page of timeBuckets(client, index, { bool: { filter: [query, inWindow] } }, grainMs)) {
    const grains = grainsOf(
      page.map((b) => b.start),
      grainMs,
    );
    await markGrains(client, prefix, c, grains, true);
    marked += grains.length;
  }
  return marked;
}

/**
 * Makes a collection's rollups ready: marks every grain of the documents stored so far, then says so
 * (markReady). Documents written meanwhile mark their own grains. Nothing to do once ready. Returns
 * the grains marked.
 */
export async function backfillRollups(
  client: Client,
  prefix: string,
  c: Collection,
  grainMs: number = ROLLUP_GRAIN_MS,
): Promise<number> {
  if ((await readRollupState(client, prefix, c)).ready) return 0;
  const marked = await markGrainsOfDocuments(client, prefix, c, indexPattern(prefix, c), { match_all: {} }, grainMs);
  await markReady(client, prefix, c);
  return marked;
}
