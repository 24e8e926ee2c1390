import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@opensearch-project/opensearch';
import { parseDocument } from '#shared/documents/documents';
import { COLLECTIONS } from '#shared/documents/fields';
import {
  toSource,
  OpenSearchEngine,
  dirtyIndexName,
  rollupIndexName,
  rollupIndexNames,
  openSearchStore,
} from '#shared/stores/opensearch/store';
import { seedMovementEvents, type SeedOptions } from '../bin/seed/generate';
import { startOpenSearch } from '../bin/dev/opensearch-node';
import { byLabelAndDirection, ORG } from './duckdb';
import { ensureBenchEvents } from './opensearch-data';
import { compareEngines, YEAR_NOW, yearByLabel } from './rollups';
import { machine } from './stats';

/**
 * Issue 23 on OpenSearch: the reports of bench/rollups.ts from the rollup indices against the
 * documents, alternating in one run, through answerReport with the OpenSearch engine (request cache
 * off on both sides; the answers are checked to be the same bytes).
 *
 * - 30 days: the seed of bench/duckdb.ts (5 sites in 5 zones, up to 2024-06-01), BENCH_ROLLUP_OS_EVENTS
 *   events (default BENCH_DUCKDB_EVENTS, else 10M), daily × label × direction. Goal ≤ 50 ms, ≥ 20×.
 * - 365 days: the year of bench/rollups.ts (seed 23, up to 2025-01-01), BENCH_ROLLUP_YEAR_EVENTS
 *   events (default 3M), daily × label. Goal ≤ 200 ms.
 *
 * The node's data folder, /var/tmp/lrs-bench-rollups-os (BENCH_ROLLUP_OS_DIR), keeps the one-shard
 * monthly indices between runs (reloaded only when the size asked for changes); the rollups are
 * built anew on every run (indices and marks deleted, backfill and rebuild timed), as a domain
 * that turns rollups on over stored documents builds them.
 */
const DIR = process.env.BENCH_ROLLUP_OS_DIR ?? '/var/tmp/lrs-bench-rollups-os';
const MONTH_EVENTS = Number(process.env.BENCH_ROLLUP_OS_EVENTS ?? process.env.BENCH_DUCKDB_EVENTS ?? 10_000_000);
const YEAR_EVENTS = Number(process.env.BENCH_ROLLUP_YEAR_EVENTS ?? 3_000_000);
const SITES = 5;

interface DataSet {
  readonly name: string;
  readonly prefix: string;
  readonly requested: number;
  readonly seed: SeedOptions;
  readonly report: unknown;
  readonly goalMs: number;
  readonly goalRatio?: number;
}

const sets: DataSet[] = [
  {
    name: '30-day daily × label × direction',
    prefix: 'rollups-month-',
    requested: MONTH_EVENTS,
    seed: {
      organizationId: ORG,
      days: 30,
      locations: SITES,
      now: Date.UTC(2024, 5, 1),
      eventsPerDay: Math.ceil(MONTH_EVENTS / (30 * SITES)),
      seed: 3,
    },
    report: byLabelAndDirection,
    goalMs: 50,
    goalRatio: 20,
  },
  {
    name: '365-day daily × label',
    prefix: 'rollups-year-',
    requested: YEAR_EVENTS,
    seed: {
      organizationId: ORG,
      days: 365,
      locations: SITES,
      now: YEAR_NOW,
      eventsPerDay: Math.ceil(YEAR_EVENTS / (365 * SITES)),
      seed: 23,
    },
    report: yearByLabel,
    goalMs: 200,
  },
];

/**
 * The seed's events as the ingest path stores them (validated, `start` derived; no `id`: raw `_bulk` picks the `_id`).
 */
const documents = (set: DataSet) =>
  function* (): Generator<Record<string, unknown>> {
    for (const e of seedMovementEvents(set.seed)) yield toSource(parseDocument('movementEvents', e));
  };

/**
 * How many events the seed makes for a set (it draws them per hour, so not exactly the number
 * asked for): remembered in the data folder, so that a run over loaded indices skips generating.
 */
function eventCount(set: DataSet): number {
  const path = join(DIR, `${set.prefix}meta.json`);
  const meta = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as { seed?: SeedOptions; count?: number })
    : {};
  if (JSON.stringify(meta.seed) === JSON.stringify(set.seed) && typeof meta.count === 'number') return meta.count;
  // A new size: the indices are loaded anew (ensureBenchEvents compares counts).
  let count = 0;
  for (const _ of documents(set)()) count++;
  writeFileSync(path, JSON.stringify({ seed: set.seed, count }));
  return count;
}

/**
 * Deletes the rollups of a prefix and builds them again from the documents: backfill, then rebuild
 * runs until no grain is dirty. BENCH_ROLLUP_OS_REBUILD=keep keeps rollups a former run built (only
 * dirty grains are rebuilt), to measure reads again without the wait.
 */
async function buildRollups(client: Client, prefix: string): Promise<{ ms: number; grains: number; runs: number }> {
  const indices = [...COLLECTIONS.flatMap((c) => rollupIndexNames(prefix, c)), dirtyIndexName(prefix)];
  if (process.env.BENCH_ROLLUP_OS_REBUILD !== 'keep')
    await client.indices.delete({ index: indices.join(','), ignore_unavailable: true });
  const t = performance.now();
  let grains = 0;
  let runs = 0;
  for (;;) {
    const outcome = await openSearchStore(client, { indexPrefix: prefix }).rebuildRollups();
    runs++;
    grains += outcome.rebuilt.movementEvents;
    if (!outcome.more) break;
  }
  return { ms: performance.now() - t, grains, runs };
}

const count = async (client: Client, index: string): Promise<number> =>
  (await client.count({ index })).body.count as number;

/** `npm run bench -- rollups-opensearch`, and the OpenSearch part of `npm run bench -- rollups`. */
export async function benchRollupsOpenSearch(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const node = await startOpenSearch({ heap: '2g', dataDir: DIR });
  const lines: string[] = [];
  const before = loadavg()[0]?.toFixed(1);
  try {
    const client = new Client({ node: node.url, requestTimeout: 600_000 });
    for (const set of sets) {
      const t = performance.now();
      const events = eventCount(set);
      await ensureBenchEvents(client, set.prefix, events, documents(set));
      const loadMs = performance.now() - t;
      const build = await buildRollups(client, set.prefix);
      // Rows per level (15 minutes, hours, days), and the Lucene documents they are with their nested items.
      const levels = rollupIndexNames(set.prefix, 'movementEvents');
      const rows = await Promise.all(levels.map((index) => count(client, index)));
      const { body: stats } = await client.indices.stats({ index: levels.join(','), metric: ['docs'] });
      const luceneDocs = levels.map(
        (index) =>
          (stats as { indices: Record<string, { primaries: { docs: { count: number } } }> }).indices[index]?.primaries
            .docs.count ?? 0,
      );
      const rowsText = levels
        .map(
          (index, i) =>
            `${(rows[i] ?? 0).toLocaleString('en')} ${index.slice(rollupIndexName(set.prefix, 'movementEvents').length) || '15m'}`,
        )
        .join(', ');
      const raw = new OpenSearchEngine(client, { indexPrefix: set.prefix, requestCache: false });
      const rollups = new OpenSearchEngine(client, { indexPrefix: set.prefix, requestCache: false, rollups: true });
      const { rollupMs, rawMs, load } = await compareEngines(rollups, raw, set.report);
      const ratio = rawMs / rollupMs;
      const met = rollupMs <= set.goalMs && (set.goalRatio === undefined || ratio >= set.goalRatio);
      lines.push(
        `| ${set.name} | ${events.toLocaleString('en')} events (loaded or found in ${(loadMs / 1000).toFixed(0)} s) → rollup rows ${rowsText} (${luceneDocs.map((n) => n.toLocaleString('en')).join(', ')} Lucene documents with their items), ${build.grains.toLocaleString('en')} grains built in ${(build.ms / 1000).toFixed(1)} s (${build.runs} rebuild runs) | ${rollupMs.toFixed(1)} ms | ${rawMs.toFixed(0)} ms | ${ratio.toFixed(1)}× | ≤ ${set.goalMs} ms${set.goalRatio ? `, ≥ ${set.goalRatio}×` : ''}: ${met ? 'met' : '**not met**'} | ${load} |`,
      );
      console.error(lines.at(-1));
    }
    await client.close();
  } finally {
    await node.stop();
  }
  console.log(
    `\nRollups on OpenSearch 2.19.3 (one node, 2 GB heap, one-shard monthly and rollup indices, request cache off), ${await machine()}, load average ${before} before and ${loadavg()[0]?.toFixed(1)} after; medians of alternating runs through answerReport, the same bytes from both\n`,
  );
  console.log(
    '| report | data | rollups | documents | speed-up | goal | load average |\n|---|---|---|---|---|---|---|',
  );
  console.log(lines.join('\n'));
}
