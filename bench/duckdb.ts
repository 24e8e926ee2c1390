import { SingleBar, Presets } from 'cli-progress';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { parseDocument, type ReportDocument } from '#shared/documents/documents';
import { DuckDbEngine, openDuckDb, ingestDocuments, expectedLayout } from '#shared/stores/duckdb/store';
import { seedMovementEvents, type SeedOptions } from '../bin/seed/generate';
import { createQueryReportHandler } from '../functions/query-report';
import { invoke } from '../bin/dev/lambda-events';
import { machine, median } from './stats';

/**
 * Issue 3 benchmark: the embedded DuckDB engine over 10M synthetic movement events (the realistic
 * seed generator: 5 sites in 5 time zones, 30 days, daily patterns, ~0.9 crossed lines per event).
 *
 * (a) Ingest through the Appender (ingestDocuments, one transaction per batch of BATCH): documents/s of
 *     the write alone, next to generation and validation (parseDocument), each timed on its own.
 *     Goal ≥ 200k documents/s for the write.
 * (b) The 30-day daily × label × direction report through the query handler vs the same answer by
 *     hand-written SQL over the same tables, alternating, medians. Goal handler ≤ 1.2× SQL.
 * (c) The same days by line and direction (nested) vs the flat one by label, both through the
 *     handler. Goal ≤ 2×.
 *
 * The database file lives in /var/tmp/lrs-bench-duckdb and is reused while it holds the same
 * number of events (BENCH_DUCKDB_EVENTS, default 10,000,000; scale down for a quick run) written
 * with the current table layout (a file of another layout is written anew, so that the ingest
 * figures are those of the current code).
 */
const DIR = process.env.BENCH_DUCKDB_DIR ?? '/var/tmp/lrs-bench-duckdb';
const EVENTS = Number(process.env.BENCH_DUCKDB_EVENTS ?? 10_000_000);
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 15));
const BATCH = 100_000;
export const ORG = '00000000-0000-4000-8000-000000000003';
const DAYS = 30;
/** Events run up to this instant; the report covers the 30 UTC days before it. */
const NOW = Date.UTC(2024, 5, 1);
const FROM = NOW - DAYS * 86_400_000;
const SITES = 5;

export const seedOptions: SeedOptions = {
  organizationId: ORG,
  days: DAYS,
  locations: SITES,
  now: NOW,
  eventsPerDay: Math.ceil(EVENTS / (DAYS * SITES)),
  seed: 3,
};

const range = {
  type: 'range',
  field: 'timestamp',
  from: new Date(FROM).toISOString(),
  to: new Date(NOW).toISOString(),
};
export const byLabelAndDirection = {
  source: 'movementEvents',
  filters: [range],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
    { type: 'nested', path: 'crossedPaths' },
    { type: 'terms', field: 'crossedPaths.end' },
  ],
};
const byLineAndDirection = {
  source: 'movementEvents',
  filters: [range],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'nested', path: 'crossedPaths' },
    { type: 'terms', field: 'crossedPaths.id' },
    { type: 'terms', field: 'crossedPaths.end' },
  ],
};
const byLabel = {
  source: 'movementEvents',
  filters: [range],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
  ],
};

/**
 * The answer of `byLabelAndDirection` by hand: every count the report shows (documents per day,
 * per day × label, crossed lines per day × label, per day × label × direction) in one grouped scan.
 * UTC days, so a day is `timestamp - timestamp % 86400000` (all timestamps are after 1970).
 */
const HAND_WRITTEN_SQL = `
WITH d AS (
  SELECT row_id, label, "timestamp" - "timestamp" % 86400000 AS day
  FROM movement_events
  WHERE "organizationId" = $1 AND "timestamp" >= $2 AND "timestamp" < $3
), c AS (
  SELECT d.day, d.label, p."end" FROM d JOIN movement_crossed_paths p ON p.event_id = d.row_id WHERE d.label IS NOT NULL
)
SELECT 'documents' AS what, day, label, NULL AS direction, count(*) AS n FROM d GROUP BY GROUPING SETS ((day), (day, label))
UNION ALL
SELECT 'lines', day, label, "end", count(*) FROM c GROUP BY GROUPING SETS ((day, label), (day, label, "end"))`;

interface IngestFigures {
  readonly events: number;
  readonly generateMs: number;
  readonly validateMs: number;
  readonly writeMs: number;
  readonly checkpointMs: number;
  readonly fileBytes: number;
}

const metaPath = join(DIR, 'meta.json');
/** The table layout the file was written with (schema.ts). */
const LAYOUT = JSON.stringify(expectedLayout().map((c) => c.tables));
export const dbPath = join(DIR, 'events.duckdb');

/** The stored events if the file holds as many as asked for (with the ingest figures of the run that wrote them). */
async function reusable(instance: DuckDBInstance): Promise<IngestFigures | undefined> {
  if (!existsSync(metaPath)) return undefined;
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as {
    requested: number;
    layout?: string;
    figures: IngestFigures;
  };
  if (meta.requested !== EVENTS || meta.layout !== LAYOUT) return undefined;
  const count = Number((await scalar(instance, 'SELECT count(*) FROM movement_events')) ?? -1);
  return count === meta.figures.events ? meta.figures : undefined;
}

async function scalar(instance: DuckDBInstance, sql: string): Promise<unknown> {
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS()[0]?.[0];
  } finally {
    connection.closeSync();
  }
}

/** Generates, validates and writes the events in batches, timing each step on its own. */
export async function ingest(): Promise<{ instance: DuckDBInstance; figures: IngestFigures; reused: boolean }> {
  mkdirSync(DIR, { recursive: true });
  if (
    existsSync(dbPath) &&
    existsSync(metaPath) &&
    (JSON.parse(readFileSync(metaPath, 'utf8')) as { layout?: string }).layout === LAYOUT
  ) {
    const instance = await openDuckDb(dbPath);
    const figures = await reusable(instance);
    if (figures) return { instance, figures, reused: true };
    instance.closeSync();
  }
  for (const f of [dbPath, `${dbPath}.wal`, metaPath]) rmSync(f, { force: true });
  const instance = await openDuckDb(dbPath);
  const bar = new SingleBar({ format: 'ingesting {bar} {value}/{total} events {eta}s left' }, Presets.shades_classic);
  bar.start(EVENTS, 0);
  let generateMs = 0;
  let validateMs = 0;
  let writeMs = 0;
  let events = 0;
  const generator = seedMovementEvents(seedOptions);
  for (;;) {
    let t = performance.now();
    const inputs: unknown[] = [];
    while (inputs.length < BATCH) {
      const next = generator.next();
      if (next.done) break;
      inputs.push(next.value);
    }
    generateMs += performance.now() - t;
    if (inputs.length === 0) break;
    t = performance.now();
    const docs: ReportDocument<'movementEvents'>[] = inputs.map((input) => parseDocument('movementEvents', input));
    validateMs += performance.now() - t;
    t = performance.now();
    await ingestDocuments(instance, 'movementEvents', docs);
    writeMs += performance.now() - t;
    events += docs.length;
    bar.update(Math.min(events, EVENTS));
  }
  bar.stop();
  const t = performance.now();
  await scalar(instance, 'CHECKPOINT');
  const checkpointMs = performance.now() - t;
  const fileBytes = Number(await scalar(instance, 'SELECT total_blocks * block_size FROM pragma_database_size()'));
  const figures = { events, generateMs, validateMs, writeMs, checkpointMs, fileBytes };
  writeFileSync(metaPath, JSON.stringify({ requested: EVENTS, layout: LAYOUT, figures }, null, 2));
  return { instance, figures, reused: false };
}

/** Medians of `runs` rounds, each round running every measurement once, in turn (after 3 warm-up rounds). */
export async function alternate(measurements: readonly (() => Promise<number>)[], runs = RUNS): Promise<number[]> {
  for (let i = 0; i < 3; i++) for (const m of measurements) await m();
  const samples = measurements.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) for (const [j, m] of measurements.entries()) samples[j]?.push(await m());
  return samples.map(median);
}

export async function benchDuckDb(): Promise<void> {
  const { instance, figures, reused } = await ingest();
  try {
    const handler = createQueryReportHandler({ engine: () => new DuckDbEngine(instance) });
    const viaHandler = (body: unknown) => async () => {
      const t = performance.now();
      const response = await invoke(handler, { body, org: ORG });
      if (response.status !== 200) throw new Error(`${response.status} ${response.body}`);
      return performance.now() - t;
    };
    const sqlConnection: DuckDBConnection = await instance.connect();
    const viaSql = async () => {
      const t = performance.now();
      const rows = (await sqlConnection.runAndReadAll(HAND_WRITTEN_SQL, [ORG, BigInt(FROM), BigInt(NOW)])).getRowsJS();
      if (rows.length === 0) throw new Error('the hand-written SQL found nothing');
      return performance.now() - t;
    };
    const [handlerMs, sqlMs] = (await alternate([viaHandler(byLabelAndDirection), viaSql])) as [number, number];
    const [nestedMs, flatMs] = (await alternate([viaHandler(byLineAndDirection), viaHandler(byLabel)])) as [
      number,
      number,
    ];
    sqlConnection.closeSync();
    const lines = Number(await scalar(instance, 'SELECT count(*) FROM movement_crossed_paths'));

    const rate = (ms: number) => `${Math.round(figures.events / (ms / 1000)).toLocaleString('en')} documents/s`;
    const goal = (ok: boolean) => (ok ? 'met' : '**not met**');
    console.log(
      `\nDuckDB engine, ${figures.events.toLocaleString('en')} movement events (${lines.toLocaleString('en')} crossed lines), ${await machine()}, load average ${loadavg()[0]?.toFixed(1)} at the end\n`,
    );
    console.log(
      `Ingest${reused ? ` (figures of the run that wrote ${dbPath}; delete it to measure again)` : ''}: batches of ${BATCH.toLocaleString('en')}, one transaction each, file on disk (${(figures.fileBytes / 2 ** 20).toFixed(0)} MiB after the checkpoint)\n`,
    );
    console.log('| step | time | rate | goal |\n|---|---|---|---|');
    console.log(
      `| generate (bin/seed/generate.ts) | ${(figures.generateMs / 1000).toFixed(1)} s | ${rate(figures.generateMs)} | |`,
    );
    console.log(
      `| validate (parseDocument, zod) | ${(figures.validateMs / 1000).toFixed(1)} s | ${rate(figures.validateMs)} | |`,
    );
    console.log(
      `| **write (ingestDocuments: Appender + commit)** | ${(figures.writeMs / 1000).toFixed(1)} s | ${rate(figures.writeMs)} | ≥ 200,000/s: ${goal(figures.events / (figures.writeMs / 1000) >= 200_000)} |`,
    );
    console.log(`| final CHECKPOINT | ${(figures.checkpointMs / 1000).toFixed(1)} s | | |`);
    const total = figures.generateMs + figures.validateMs + figures.writeMs + figures.checkpointMs;
    console.log(`| all of it, end to end | ${(total / 1000).toFixed(1)} s | ${rate(total)} | |`);
    console.log(
      `\nReports over 30 days (median of ${RUNS} alternating runs after 3 warm-up rounds; handler = the Lambda handler on an HTTP API event, JSON answer; SQL = hand-written, on an open connection)\n`,
    );
    console.log('| comparison | median | median | ratio | goal |\n|---|---|---|---|---|');
    console.log(
      `| daily × label × direction: handler vs hand-written SQL | ${handlerMs.toFixed(1)} ms | ${sqlMs.toFixed(1)} ms | ${(handlerMs / sqlMs).toFixed(2)}× | ≤ 1.2×: ${goal(handlerMs / sqlMs <= 1.2)} |`,
    );
    console.log(
      `| daily × line × direction (nested) vs daily × label (flat), both via the handler | ${nestedMs.toFixed(1)} ms | ${flatMs.toFixed(1)} ms | ${(nestedMs / flatMs).toFixed(2)}× | ≤ 2×: ${goal(nestedMs / flatMs <= 2)} |`,
    );
  } finally {
    instance.closeSync();
  }
}
