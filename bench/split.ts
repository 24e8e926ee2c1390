import { Client } from '@opensearch-project/opensearch';
import { mkdirSync } from 'node:fs';
import { AppError } from '#shared/errors';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine, openDuckDb, ingestDocuments } from '#shared/stores/duckdb/store';
import { DEFAULT_LIMITS, type ReportEngine } from '#shared/stores/store';
import { compileSearch, OpenSearchEngine } from '#shared/stores/opensearch/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { answerReport } from '#shared/report/query-report';
import { encodeSlice } from '#shared/report/split/encoding';
import { planSlices } from '#shared/report/split/plan-slices';
import { runPool } from '#shared/concurrency';
import { inProcessSliceExecutor } from '#shared/report/split/run-split';
import { startOpenSearch } from '../bin/dev/opensearch-node';
import { ensureBenchEvents } from './opensearch-data';
import { machine, median } from './stats';
import { syntheticMovementEvents } from './synthetic';

/**
 * Issue 5 benchmark: the one-year report (15-minute histogram × 3 labels, 2024) with
 * splitInterval "1M" on a node with OpenSearch's default bucket limit (65,535; the report unsplit is
 * refused). Serial (pool of 1) ÷ parallel (pool of 2) wall time, alternating, request cache off,
 * medians; goal ≥ 1.5× on 2 cores. Then the slice results in the compact encoding against
 * 0.8 × 256 KiB, and DuckDB: parallel split ÷ the same report unsplit (limit lifted), goal ≤ 1.1×.
 * Documents: BENCH_SPLIT_DOCS (default 1,000,000) synthetic movement events over the year, in
 * one-shard monthly indices kept in /var/tmp/lrs-bench-split-opensearch between runs.
 */
const ORG = '00000000-0000-4000-8000-000000000005';
const START = Date.UTC(2024, 0, 1);
const DAYS = 366;
const DOCS = Number(process.env.BENCH_SPLIT_DOCS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PREFIX = 'bench-split-';
const scope = { organizationId: ORG };
const INLINE_BUDGET = Math.floor(0.8 * 256 * 1024);

const report = (splitInterval?: string) => ({
  source: 'movementEvents',
  filters: [
    { type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' },
    { type: 'terms', field: 'label', values: ['car', 'person', 'truck'] },
  ],
  aggregations: [
    { type: 'dateHistogram', interval: '15m' },
    { type: 'terms', field: 'label' },
  ],
  ...(splitInterval ? { splitInterval } : {}),
});

const documents = () => syntheticMovementEvents({ count: DOCS, organizationId: ORG, start: START, days: DAYS });

/**
 * Wall time (ms) of the split report with a pool of `concurrency`, through answerReport (plan, slices, merge, JSON).
 */
async function timeSplit(engine: ReportEngine, concurrency: number): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const answer = await answerReport(report('1M'), scope, engine, 'application/json', {
    sliceExecutor: () => inProcessSliceExecutor(engine, { concurrency }),
  });
  return { ms: performance.now() - t, bytes: Buffer.byteLength(answer.body) };
}

async function timeUnsplit(engine: ReportEngine): Promise<number> {
  const t = performance.now();
  await answerReport(report(), scope, engine, 'application/json');
  return performance.now() - t;
}

/** Alternating runs after two warm-ups; medians. */
async function alternate(runs: readonly (() => Promise<number>)[]): Promise<number[]> {
  for (let w = 0; w < 2; w++) for (const run of runs) await run();
  const samples = runs.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) for (const [k, run] of runs.entries()) samples[k]?.push(await run());
  return samples.map(median);
}

/** Bytes of every slice result: compact encoding, and plain AggResult JSON for comparison. */
async function sliceSizes(engine: ReportEngine): Promise<{ encoded: number[]; plain: number[] }> {
  const encoded: number[] = [];
  const plain: number[] = [];
  for (const slice of planSlices(buildPlan(report('1M')))) {
    const result = await engine.run(slice.plan, scope);
    encoded.push(Buffer.byteLength(JSON.stringify(encodeSlice(result))));
    plain.push(Buffer.byteLength(JSON.stringify(result)));
  }
  return { encoded, plain };
}

/** Control: the slices' `_search` requests alone (no reading, merging or rendering), in a pool of `concurrency`. */
async function timeRawSearches(client: Client, concurrency: number): Promise<number> {
  const requests = planSlices(buildPlan(report('1M'))).map((s) =>
    compileSearch(s.plan, scope, { indexPrefix: PREFIX, limits: DEFAULT_LIMITS, requestCache: false }),
  );
  const t = performance.now();
  await runPool(requests, concurrency, (request) => client.search(request));
  return performance.now() - t;
}

async function unsplitRefusal(engine: ReportEngine): Promise<string> {
  try {
    await timeUnsplit(engine);
    return 'answered (not refused)';
  } catch (e) {
    return e instanceof AppError ? `${e.status} ${e.slug}` : String(e);
  }
}

async function benchOpenSearch(lines: string[]): Promise<void> {
  const dataDir = '/var/tmp/lrs-bench-split-opensearch';
  mkdirSync(dataDir, { recursive: true });
  const node = await startOpenSearch({ heap: '2g', dataDir });
  try {
    const client = new Client({ node: node.url, requestTimeout: 120_000 });
    await ensureBenchEvents(client, PREFIX, DOCS, documents);
    const engine = new OpenSearchEngine(client, { indexPrefix: PREFIX, requestCache: false });
    const refusal = await unsplitRefusal(engine);
    const { bytes } = await timeSplit(engine, 2);
    const [serial, parallel, four, rawSerial, rawParallel] = await alternate([
      ...[1, 2, 4].map((c) => async () => (await timeSplit(engine, c)).ms),
      () => timeRawSearches(client, 1),
      () => timeRawSearches(client, 2),
    ]);
    const sizes = await sliceSizes(engine);
    const largest = Math.max(...sizes.encoded);
    lines.push(
      `OpenSearch 2.19.3, ${DOCS.toLocaleString('en')} documents in 12 one-shard monthly indices, default search.max_buckets (65,535):`,
      `- unsplit: ${refusal}; JSON body of the split answer: ${(bytes / 2 ** 20).toFixed(2)} MiB (limit 5.5 MiB)`,
      '',
      '| pool | median wall time | serial ÷ this |',
      '|---|---|---|',
      `| 1 (serial) | ${serial?.toFixed(0)} ms | 1.00× |`,
      `| 2 | ${parallel?.toFixed(0)} ms | ${((serial ?? 0) / (parallel ?? 1)).toFixed(2)}× |`,
      `| 4 | ${four?.toFixed(0)} ms | ${((serial ?? 0) / (four ?? 1)).toFixed(2)}× |`,
      '',
      `- control, the 12 \`_search\` requests alone: serial ${rawSerial?.toFixed(0)} ms, pool of 2 ${rawParallel?.toFixed(0)} ms (${((rawSerial ?? 0) / (rawParallel ?? 1)).toFixed(2)}×)`,
      `- slice results (12 months), compact encoding: largest ${largest.toLocaleString('en')} B = ${(largest / INLINE_BUDGET).toFixed(3)} × (0.8 × 256 KiB = ${INLINE_BUDGET.toLocaleString('en')} B); ` +
        `all 12 together ${sizes.encoded.reduce((a, b) => a + b, 0).toLocaleString('en')} B; as plain AggResult JSON the largest would be ${Math.max(...sizes.plain).toLocaleString('en')} B`,
    );
    await client.close();
  } finally {
    await node.stop();
  }
}

async function benchDuckDb(lines: string[]): Promise<void> {
  const instance = await openDuckDb(':memory:');
  const docs = [...documents()].map((d) => parseDocument('movementEvents', d));
  for (let i = 0; i < docs.length; i += 100_000)
    await ingestDocuments(instance, 'movementEvents', docs.slice(i, i + 100_000));
  // The unsplit report needs more than 65,535 buckets: lift the limit for the comparison only.
  const engine = new DuckDbEngine(instance, { maxBuckets: Number.MAX_SAFE_INTEGER });
  const [unsplit, parallel] = await alternate([() => timeUnsplit(engine), async () => (await timeSplit(engine, 2)).ms]);
  lines.push(
    '',
    `DuckDB (in memory, same ${DOCS.toLocaleString('en')} documents, bucket limit lifted so the unsplit report runs):`,
    `- unsplit ${unsplit?.toFixed(0)} ms; split 1M, pool of 2: ${parallel?.toFixed(0)} ms; split ÷ unsplit = ${((parallel ?? 0) / (unsplit ?? 1)).toFixed(2)}× (goal ≤ 1.1×)`,
  );
  instance.closeSync();
}

/** `npm run bench -- split`. */
export async function benchSplit(): Promise<void> {
  const lines: string[] = [];
  await benchOpenSearch(lines);
  await benchDuckDb(lines);
  const load = (await import('node:os')).loadavg()[0]?.toFixed(1);
  console.log(
    `\nsplitInterval: one year, 15-minute histogram × 3 labels, splitInterval 1M (median of ${RUNS} alternating runs), ${await machine()}, load average ${load} at the end\n`,
  );
  console.log(lines.join('\n'));
}
