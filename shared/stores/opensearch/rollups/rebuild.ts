import { randomUUID } from 'node:crypto';
import type { Client } from '@opensearch-project/opensearch';
import type { RebuildOutcome } from '../../store';
import { COLLECTIONS, type Collection } from '../../../documents/fields';
import { indexPattern } from '../layout/indices';
import { BUILT, rollupIndexName } from '../layout/rollup-indices';
import { ROLLUP_GRAIN_MS, rollupLevels } from '../../../rollups/match';
import { dirtyRanges, MERGE_GAP_MS } from '../../../rollups/upkeep';
import { backfillRollups } from './backfill';
import { takeLease } from './lease';
import { clearMarks, readMarks, type Mark } from './marks';
import { computeRows, slicesOf } from './rows';

export interface RebuildOptions {
  /** @default ROLLUP_GRAIN_MS */
  readonly grainMs?: number;
  /** Dirty grains taken per collection and run (earliest first); the rest wait for the next run. @default 2000 */
  readonly maxGrains?: number;
  /** Rows per composite page. @default 500 */
  readonly pageSize?: number;
  /**
   * Dirty grains closer than this are recomputed as one range (clean grains between are recomputed
   * unchanged): larger for sparse history, where each range's requests cost more than its documents.
   * @default MERGE_GAP_MS.opensearch (1 hour)
   */
  readonly mergeGapMs?: number;
}

/**
 * The slices of documents one composite search reads: hours (or a row's grain) joined up to this
 * many documents, fewer searches against fewer re-reads (a slice's rows are a fraction of its
 * documents, a few pages at most). An hour holds more at 10M events a month: then one hour a search.
 */
const SLICE_MS = 60 * 60_000;
const SLICE_DOCS = 10_000;

/**
 * Brings the rollups up to date (docs/rollups.md, "On OpenSearch"): for each collection, backfills
 * if it is not ready, then takes its dirty grains, refreshes the raw indices (so that every document
 * written before a mark was read is seen), recomputes each range of dirty grains whole from the raw
 * documents, overwrites their rows (deterministic `_id`s) and deletes the range's rows that this
 * run did not write (`_built` differs: groups that no longer exist), refreshes the rollup index, and
 * only then clears the marks, each only if unchanged since read: a grain written to meanwhile stays
 * dirty. Never increments: a retry, a late document or a duplicate only makes a grain dirty again.
 * One rebuild at a time (two at once could delete each other's rows of one range): a run that finds
 * another's lease (./lease.ts) does nothing and says so (`busy`).
 */
export async function rebuildRollups(
  client: Client,
  prefix: string,
  options: RebuildOptions = {},
): Promise<RebuildOutcome> {
  const lease = await takeLease(client, prefix, LEASE_MS);
  if (!lease) return { rebuilt: none(), backfilled: none(), more: false, busy: true };
  try {
    return await rebuildAll(client, prefix, options);
  } finally {
    await lease.release();
  }
}

/** A run's lease: longer than the rebuild function's timeout (5 minutes), so that only a crashed run's expires. */
const LEASE_MS = 10 * 60_000;

const none = () => Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;

async function rebuildAll(client: Client, prefix: string, options: RebuildOptions): Promise<RebuildOutcome> {
  const grainMs = options.grainMs ?? ROLLUP_GRAIN_MS;
  const rebuilt = {} as Record<Collection, number>;
  const backfilled = {} as Record<Collection, number>;
  let more = false;
  for (const c of COLLECTIONS) {
    backfilled[c] = await backfillRollups(client, prefix, c, grainMs);
    const limit = options.maxGrains ?? 2000;
    const marks = await readMarks(client, prefix, c, limit);
    more ||= marks.length === limit;
    rebuilt[c] = marks.length === 0 ? 0 : await rebuildMarked(client, prefix, c, marks, grainMs, options);
  }
  return { rebuilt, backfilled, more };
}

async function rebuildMarked(
  client: Client,
  prefix: string,
  c: Collection,
  marks: readonly Mark[],
  grainMs: number,
  options: RebuildOptions,
): Promise<number> {
  const pageSize = options.pageSize ?? 500;
  const run = randomUUID();
  await client.indices.refresh({ index: indexPattern(prefix, c), ignore_unavailable: true, allow_no_indices: true });
  // Every level from the documents, over the dirty grains widened to its own grains (a day row is
  // recomputed whole when one of its quarters is dirty).
  for (const level of rollupLevels(grainMs)) {
    const index = rollupIndexName(prefix, c, level);
    for (const range of dirtyRanges(
      marks.map((m) => m.grain),
      grainMs,
      level,
      options.mergeGapMs ?? MERGE_GAP_MS.opensearch,
    ))
      await rebuildRange(client, prefix, c, index, range, level, pageSize, run);
    await client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true });
  }
  await clearMarks(client, prefix, c, marks);
  return marks.length;
}

/** One range of one level: its rows computed and overwritten, then the range's rows this run did not write deleted. */
async function rebuildRange(
  client: Client,
  prefix: string,
  c: Collection,
  index: string,
  range: { from: number; to: number },
  level: number,
  pageSize: number,
  run: string,
): Promise<void> {
  let rows: { id: string; source: Record<string, unknown> }[] = [];
  const write = async () => {
    if (rows.length === 0) return;
    const body = rows.flatMap(({ id, source }) => [{ index: { _id: id } }, { ...source, [BUILT]: run }]);
    rows = [];
    const { body: response } = await client.bulk({ index, body });
    if ((response as { errors?: boolean }).errors)
      throw new Error(`rollup rows of ${c} were not written: ${JSON.stringify(response).slice(0, 500)}`);
  };
  // Slices of about a page of rows per composite search: every page of a composite reads all the
  // documents of its query again (the nested documents keep OpenSearch from starting at the page's
  // key), so pages over a whole range read it once per page.
  for await (const slice of slicesOf(client, prefix, c, range, Math.max(level, SLICE_MS), SLICE_DOCS)) {
    for await (const page of computeRows(client, prefix, c, slice, level, pageSize)) {
      rows.push(...page);
      if (rows.length >= pageSize) await write();
    }
  }
  await write();
  // Refreshed first, so that the deletion's snapshot has this run's rows (it skips them anyway: a conflict).
  await client.indices.refresh({ index, ignore_unavailable: true, allow_no_indices: true });
  await client.deleteByQuery({
    index,
    conflicts: 'proceed',
    refresh: true,
    ignore_unavailable: true,
    allow_no_indices: true,
    body: {
      query: {
        bool: {
          filter: [{ range: { timestamp: { gte: range.from, lt: range.to, format: 'epoch_millis' } } }],
          must_not: [{ term: { [BUILT]: run } }],
        },
      },
    },
  });
}
