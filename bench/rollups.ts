import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument, type ReportDocument } from '#shared/documents/documents';
import { DuckDbEngine, openDuckDb, duckDbStore, ingestDocuments } from '#shared/stores/duckdb/store';
import type { ReportEngine } from '#shared/stores/store';
import { answerReport } from '#shared/report/query-report';
import { seedMovementEvents } from '../bin/seed/generate';
import { alternate, byLabelAndDirection, ingest as ingestMonth, ORG } from './duckdb';
import { machine } from './stats';

/**
 * Issue 23: rollups against the documents on DuckDB, in the same run (docs/rollups.md).
 *
 * (a) The 30-day daily × label × direction report over the duckdb benchmark's file (BENCH_DUCKDB_EVENTS,
 *     default 10M): from rollups vs from the documents. Goal ≤ 50 ms and ≥ 20× faster.
 * (b) A 365-day daily × label report over a year of events (BENCH_ROLLUP_YEAR_EVENTS, default 3M:
 *     the file is built once in /var/tmp/lrs-bench-rollups). Goal ≤ 200 ms.
 *     Both files keep their rollups: a run rebuilds only the grains marked dirty (all of them the
 *     first time, as ingest marks what it writes; none after), and BENCH_ROLLUP_FULL_REBUILD=1 marks
 *     every grain of the 30-day file first, to time a full rebuild.
 * (c) Ingest with rollup maintenance (grains recorded, rebuilt after every batch: the worst cadence;
 *     the local server rebuilds every 2 s) vs without (nothing recorded, nothing rebuilt), into a new file,
 *     BENCH_ROLLUP_INGEST_EVENTS (default 1M; 0 skips it) pre-validated events in batches of 100,000. Goal ≥ 0.75×.
 */
const DIR = process.env.BENCH_ROLLUP_DIR ?? '/var/tmp/lrs-bench-rollups';
const FULL_REBUILD = process.env.BENCH_ROLLUP_FULL_REBUILD === '1';
const YEAR_EVENTS = Number(process.env.BENCH_ROLLUP_YEAR_EVENTS ?? 3_000_000);
const INGEST_EVENTS = Number(process.env.BENCH_ROLLUP_INGEST_EVENTS ?? 1_000_000);
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 15));
const BATCH = 100_000;
const SITES = 5;
export const YEAR_NOW = Date.UTC(2025, 0, 1);

export const yearRange = {
  type: 'range',
  field: 'timestamp',
  from: new Date(YEAR_NOW - 365 * 86_400_000).toISOString(),
  to: new Date(YEAR_NOW).toISOString(),
};
export const yearByLabel = {
  source: 'movementEvents',
  filters: [yearRange],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
  ],
};

/** One report through the whole report path (plan, engine, shape, JSON), timed; fails on the wrong path. */
export const timed =
  (engine: ReportEngine, body: unknown, expect: 'rollup' | undefined, bodies: string[]) =>
  async (): Promise<number> => {
    let source: string | undefined;
    const watched: ReportEngine = {
      maxBuckets: engine.maxBuckets,
      run: async (...a) => {
        const r = await engine.run(...a);
        source = r.source;
        return r;
      },
    };
    const t = performance.now();
    const answer = await answerReport(body, { organizationId: ORG }, watched, 'application/json');
    const ms = performance.now() - t;
    if (expect && source !== expect) throw new Error(`answered from ${source}, not ${expect}`);
    bodies.push(answer.body);
    return ms;
  };

/**
 * Rollup vs raw for one report, alternating (medians); the answers must be the same bytes. With the 1-minute load
 * average before and after.
 */
export async function compareEngines(
  rollups: ReportEngine,
  raw: ReportEngine,
  body: unknown,
): Promise<{ rollupMs: number; rawMs: number; load: string }> {
  const bodies: string[] = [];
  const before = load();
  const [rollupMs, rawMs] = (await alternate(
    [timed(rollups, body, 'rollup', bodies), timed(raw, body, undefined, bodies)],
    RUNS,
  )) as [number, number];
  if (new Set(bodies).size !== 1) throw new Error('rollups and documents answered differently');
  return { rollupMs, rawMs, load: `${before}–${load()}` };
}

const load = (): string => (loadavg()[0] ?? 0).toFixed(1);

/** Rebuilds the dirty grains (all of them in a file just written) and checkpoints; the grains and ms. */
async function rebuild(db: DuckDBInstance): Promise<{ grains: number; ms: number }> {
  const t = performance.now();
  const outcome = await duckDbStore(db).rebuildRollups();
  const grains = Object.values(outcome.rebuilt).reduce((a, b) => a + b, 0);
  if (grains > 0) await count(db, 'CHECKPOINT');
  return { grains, ms: performance.now() - t };
}

const compare = (db: DuckDBInstance, body: unknown) =>
  compareEngines(new DuckDbEngine(db, { rollups: true }), new DuckDbEngine(db), body);

async function count(db: DuckDBInstance, sql: string): Promise<number> {
  const c = await db.connect();
  try {
    return Number((await c.runAndReadAll(sql)).getRowsJS()[0]?.[0]);
  } finally {
    c.closeSync();
  }
}

/** Validated events of the seed generator, `n` of them over `days` up to `now`. */
function events(n: number, days: number, now: number): ReportDocument<'movementEvents'>[] {
  const docs: ReportDocument<'movementEvents'>[] = [];
  for (const e of seedMovementEvents({
    organizationId: ORG,
    days,
    locations: SITES,
    now,
    eventsPerDay: Math.ceil(n / (days * SITES)),
    seed: 23,
  }))
    docs.push(parseDocument('movementEvents', e));
  return docs;
}

/** The year file, built once per size. */
async function yearFile(): Promise<DuckDBInstance> {
  mkdirSync(DIR, { recursive: true });
  const [path, meta] = [join(DIR, 'year.duckdb'), join(DIR, 'year.json')];
  if (existsSync(path) && existsSync(meta) && JSON.parse(readFileSync(meta, 'utf8')).events === YEAR_EVENTS) {
    // A file of an earlier rollup layout has every grain marked again (prepareRollups): rebuild them.
    const db = await openDuckDb(path);
    await rebuild(db);
    return db;
  }
  for (const f of [path, `${path}.wal`, meta]) rmSync(f, { force: true });
  const db = await openDuckDb(path);
  const docs = events(YEAR_EVENTS, 365, YEAR_NOW);
  for (let i = 0; i < docs.length; i += BATCH) await ingestDocuments(db, 'movementEvents', docs.slice(i, i + BATCH));
  await rebuild(db);
  writeFileSync(meta, JSON.stringify({ events: YEAR_EVENTS }));
  return db;
}

/**
 * Writes `docs` into a new database file, with or without rollup maintenance; ms. A file, as the
 * local server writes: in memory, a million events and their rollups outgrow DuckDB's memory limit
 * with nowhere to spill.
 */
async function ingestRate(docs: readonly ReportDocument<'movementEvents'>[], maintain: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-bench-rollup-ingest-'));
  const db = await openDuckDb(join(dir, 'ingest.duckdb'));
  try {
    const t = performance.now();
    for (let i = 0; i < docs.length; i += BATCH) {
      await ingestDocuments(db, 'movementEvents', docs.slice(i, i + BATCH), { rollups: maintain });
      if (maintain) await duckDbStore(db).rebuildRollups();
    }
    return performance.now() - t;
  } finally {
    db.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchRollups(): Promise<void> {
  const month = (await ingestMonth()).instance;
  // Every grain dirty, as a file of an earlier version starts: the full rebuild's time.
  if (FULL_REBUILD)
    await count(
      month,
      'INSERT INTO rollup_dirty SELECT DISTINCT \'movementEvents\', "timestamp" - "timestamp" % 900000 FROM movement_events',
    );
  const rebuilt = await rebuild(month);
  const monthEvents = await count(month, 'SELECT count(*) FROM movement_events');
  const rowsAt = (minutes: number) =>
    count(
      month,
      ['movement_events', 'movement_crossed_paths', 'movement_polygons']
        .map((t) => `(SELECT count(*) FROM ${t}__rollup_${minutes}m)`)
        .join(' + ')
        .replace(/^/, 'SELECT '),
    );
  const rollupRows = `${(await rowsAt(15)).toLocaleString('en')} rows of 15 minutes, ${(await rowsAt(60)).toLocaleString('en')} hourly, ${(await rowsAt(1440)).toLocaleString('en')} daily`;
  const days30 = await compare(month, byLabelAndDirection);
  month.closeSync();

  const t = performance.now();
  const year = await yearFile();
  const yearBuildMs = performance.now() - t;
  const yearEvents = await count(year, 'SELECT count(*) FROM movement_events');
  const days365 = await compare(year, yearByLabel);
  year.closeSync();

  const goal = (ok: boolean) => (ok ? 'met' : '**not met**');
  const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en')}/s`;
  const rebuiltWhat =
    rebuilt.grains > 0
      ? `${rebuilt.grains.toLocaleString('en')} dirty grains rebuilt in ${(rebuilt.ms / 1000).toFixed(1)} s${FULL_REBUILD ? ' (a full rebuild)' : ''}`
      : 'rollups up to date, nothing rebuilt';
  console.log(
    `\nRollups on DuckDB, ${await machine()}, load average ${load()} after the reports; medians of ${RUNS} alternating runs after 3 warm-up rounds, through answerReport (plan, engine, shape, JSON)\n`,
  );
  console.log(
    `30 days: ${monthEvents.toLocaleString('en')} events → ${rollupRows} (${rebuiltWhat}); a year: ${yearEvents.toLocaleString('en')} events (file opened or built in ${(yearBuildMs / 1000).toFixed(0)} s)\n`,
  );
  console.log('| report | rollups | documents | speed-up | goal | load (1 min) |\n|---|---|---|---|---|---|');
  console.log(
    `| 30-day daily × label × direction | ${days30.rollupMs.toFixed(1)} ms | ${days30.rawMs.toFixed(0)} ms | ${(days30.rawMs / days30.rollupMs).toFixed(0)}× | ≤ 50 ms, ≥ 20×: ${goal(days30.rollupMs <= 50 && days30.rawMs / days30.rollupMs >= 20)} | ${days30.load} |`,
  );
  console.log(
    `| 365-day daily × label | ${days365.rollupMs.toFixed(1)} ms | ${days365.rawMs.toFixed(0)} ms | ${(days365.rawMs / days365.rollupMs).toFixed(0)}× | ≤ 200 ms: ${goal(days365.rollupMs <= 200)} | ${days365.load} |`,
  );
  if (INGEST_EVENTS <= 0) return;
  const docs = events(INGEST_EVENTS, 30, Date.UTC(2024, 5, 1));
  const withoutMs = await ingestRate(docs, false);
  const withMs = await ingestRate(docs, true);
  console.log(
    `\nIngest of ${INGEST_EVENTS.toLocaleString('en')} validated events, batches of ${BATCH.toLocaleString('en')}, into a new file\n`,
  );
  console.log('| ingest | time | rate | ratio | goal |\n|---|---|---|---|---|');
  console.log(
    `| without rollups (nothing recorded) | ${(withoutMs / 1000).toFixed(1)} s | ${rate(INGEST_EVENTS, withoutMs)} | 1 | |`,
  );
  console.log(
    `| with rollups (grains recorded, rebuilt after every batch) | ${(withMs / 1000).toFixed(1)} s | ${rate(INGEST_EVENTS, withMs)} | ${(withoutMs / withMs).toFixed(2)}× | ≥ 0.75×: ${goal(withoutMs / withMs >= 0.75)} |`,
  );
}
