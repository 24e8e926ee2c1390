import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import {
  EngineUnavailableError,
  ReportTimeoutError,
  ReportTooExpensiveError,
  TooManyBucketsError,
} from '#shared/errors';
import { Deadline } from '#shared/report/deadline';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { HEAVY_AGGREGATIONS, HEAVY_ORG, openHeavyDuckDb } from '../../../fixtures/heavy-report';

/**
 * What bounds a DuckDB report besides its answer: the deadline (the query is interrupted, not left
 * running), close() on shutdown, the bucket floor checked before any SQL, the instance's memory and
 * thread settings, and spill files left by a killed process.
 */
const EVENTS = 1_000_000;
let db: DuckDBInstance;

beforeAll(async () => {
  db = await openHeavyDuckDb(EVENTS);
});
afterAll(() => db.closeSync());

const scope = { organizationId: HEAVY_ORG };
/**
 * What a stopped report's cause says, whichever came first on a loaded machine: DuckDB noticed the
 * interrupt (INTERRUPT Error), the grace for noticing it ran out, or the run stopped between its
 * statements. Each means the report was stopped, none that it finished and was refused afterwards.
 */
const STOPPED =
  /INTERRUPT Error|had not noticed its interrupt|stopped (between statements|while connecting|before it started)/;
const heavy = buildPlan({ aggregations: HEAVY_AGGREGATIONS });

describe('the deadline', () => {
  test('interrupts the running query and answers 503 report-timeout with Retry-After', async () => {
    // Act
    const error = await new DuckDbEngine(db)
      .run(heavy, scope, { deadline: Deadline.after(300) })
      .catch((e: unknown) => e);
    // Assess: stopped by the interrupt, not finished and then refused
    expect(error).toBeInstanceOf(ReportTimeoutError);
    expect(error).toMatchObject({ status: 503, headers: { 'Retry-After': '10' }, extensions: { timeoutMs: 300 } });
    expect(String((error as Error).cause)).toMatch(STOPPED);
  });

  test('leaves the database free for the next report', async () => {
    await new DuckDbEngine(db).run(heavy, scope, { deadline: Deadline.after(100) }).catch(() => undefined);
    const next = await new DuckDbEngine(db).run(
      buildPlan({ aggregations: [{ type: 'terms', field: 'label' }] }),
      scope,
    );
    expect(next.root).toEqual({
      kind: 'terms',
      buckets: [
        { key: 'car', count: 333_334 },
        { key: 'person', count: 333_333 },
        { key: 'truck', count: 333_333 },
      ],
    });
  });

  test('is answered at the deadline although the query has not stopped yet, and close() waits until it has', async () => {
    // Prepare: no grace at all, so the answer never waits for DuckDB to notice the interrupt
    const engine = new DuckDbEngine(db, { interruptGraceMs: 0 });
    // Act
    const error = await engine.run(heavy, scope, { deadline: Deadline.after(200) }).catch((e: unknown) => e);
    // Assess: 503 at once; the query stops afterwards, and close() returns once it has let go
    expect(error).toBeInstanceOf(ReportTimeoutError);
    expect(String((error as Error).cause)).toMatch(/had not noticed its interrupt/);
    await engine.close();
    await expect(
      new DuckDbEngine(db).run(buildPlan({ aggregations: [{ type: 'terms', field: 'label' }] }), scope),
    ).resolves.toMatchObject({ root: { kind: 'terms' } });
  });

  test('refuses a report whose deadline has passed before any work', async () => {
    const deadline = Deadline.after(0);
    await expect(new DuckDbEngine(db).run(heavy, scope, { deadline })).rejects.toBeInstanceOf(ReportTimeoutError);
  });
});

describe('memory', () => {
  test('a report that needs more than the memory limit is 503 report-too-expensive with Retry-After, and a cheap one still answers', async () => {
    // Prepare: 10,000 events (about 6 MB) under a 16 MB limit
    const small = await openHeavyDuckDb(10_000, { memoryLimit: '16MB' });
    try {
      // Act
      const error = await new DuckDbEngine(small).run(heavy, scope).catch((e: unknown) => e);
      const cheap = await new DuckDbEngine(small).run(
        buildPlan({ aggregations: [{ type: 'terms', field: 'label' }] }),
        scope,
      );
      // Assess
      expect(error).toBeInstanceOf(ReportTooExpensiveError);
      expect(error).toMatchObject({ status: 503, slug: 'report-too-expensive', headers: { 'Retry-After': '10' } });
      expect(String((error as Error).cause)).toMatch(/Out of Memory Error/);
      expect(cheap.root).toEqual({
        kind: 'terms',
        buckets: [
          { key: 'car', count: 3334 },
          { key: 'person', count: 3333 },
          { key: 'truck', count: 3333 },
        ],
      });
    } finally {
      small.closeSync();
    }
  });
});

describe('close()', () => {
  test('interrupts the running reports (503) and refuses new ones', async () => {
    // Prepare
    const engine = new DuckDbEngine(db);
    const running = engine.run(heavy, scope).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Act
    await engine.close();
    // Assess: close() returned only once the running report had let go
    const error = await running;
    expect(error).toBeInstanceOf(EngineUnavailableError);
    expect(String((error as Error).cause)).toMatch(STOPPED);
    await expect(engine.run(heavy, scope)).rejects.toBeInstanceOf(EngineUnavailableError);
  });
});

describe('the bucket floor', () => {
  test('refuses three filters stages of 100 buckets (1,010,100 buckets) before any SQL runs', async () => {
    // Prepare: a database without the table, so that any report SQL would fail with a 500
    const empty = await openDuckDb(':memory:');
    const c = await empty.connect();
    await c.run('DROP TABLE movement_events');
    c.closeSync();
    const stage = (s: number) => ({
      type: 'filters',
      filters: Object.fromEntries(
        Array.from({ length: 100 }, (_, j) => [`s${s}b${j}`, { type: 'terms', field: 'label', values: ['car'] }]),
      ),
    });
    // Act / Assess
    await expect(
      new DuckDbEngine(empty).run(buildPlan({ aggregations: [stage(0), stage(1), stage(2)] }), scope),
    ).rejects.toMatchObject({ status: 422, limit: 65_535 });
    // a histogram's buckets and its empty template count too: 3 days + 3 × 2 = 9 > 8
    const daily = buildPlan({
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-04T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        {
          type: 'filters',
          filters: {
            a: { type: 'terms', field: 'label', values: ['car'] },
            b: { type: 'terms', field: 'label', values: ['bus'] },
          },
        },
        {
          type: 'filters',
          filters: {
            c: { type: 'terms', field: 'label', values: ['car'] },
            d: { type: 'terms', field: 'label', values: ['bus'] },
          },
        },
      ],
    });
    await expect(new DuckDbEngine(empty, { maxBuckets: 8 }).run(daily, scope)).rejects.toBeInstanceOf(
      TooManyBucketsError,
    );
    empty.closeSync();
  });
});

describe('openDuckDb resources', () => {
  test('sets the memory limit, threads and checkpoint threshold, and no spilling in memory', async () => {
    const fresh = await openDuckDb(':memory:');
    const c = await fresh.connect();
    const [row] = (
      await c.runAndReadAll(
        "SELECT current_setting('memory_limit'), current_setting('threads'), current_setting('temp_directory'), current_setting('checkpoint_threshold')",
      )
    ).getRowsJS();
    c.closeSync();
    fresh.closeSync();
    // 64MB: 64 × 10⁶ bytes, as DuckDB reads the unit
    expect(row).toEqual(['488.2 MiB', 2n, '', '61.0 MiB']);
  });

  test('spills next to a database file, and deletes the spill files a killed process left there', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'lrs-spill-'));
    const path = join(dir, 'reports.duckdb');
    const spill = `${path}.tmp`;
    (await openDuckDb(path)).closeSync();
    rmSync(spill, { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(spill);
    writeFileSync(join(spill, 'duckdb_temp_storage_S32K-0.tmp'), 'left by a killed process');
    writeFileSync(join(spill, 'notes.txt'), 'not DuckDB’s');
    // Act
    const reopened = await openDuckDb(path, { memoryLimit: '256MB', threads: 1 });
    // Assess
    expect(readdirSync(spill)).toEqual(['notes.txt']);
    const c = await reopened.connect();
    const [row] = (
      await c.runAndReadAll(
        "SELECT current_setting('temp_directory'), current_setting('memory_limit'), current_setting('threads')",
      )
    ).getRowsJS();
    c.closeSync();
    expect(row).toEqual([spill, '244.1 MiB', 1n]);
    reopened.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });
});
