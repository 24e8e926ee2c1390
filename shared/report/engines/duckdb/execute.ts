import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIGINT, DOUBLE, DuckDBInstance, VARCHAR, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { AppError, EngineUnavailableError, TooManyBucketsError } from '../../../errors';
import { DEFAULT_LIMITS, type EngineLimits, type EngineResult, type ReportEngine, type RunOptions, type Scope } from '../engine';
import type { DateHistogramAggNode, ReportPlan } from '../../plan/plan';
import { countBuckets, DEFAULT_MAX_BUCKETS, refuseBeyondBucketFloor } from '../bucket-limit';
import { histogramKeys } from '../../histogram/keys';
import { keySegments, type KeySegment } from './sql/buckets';
import { compileReport, readsItemsAlone, type ResultRowKind } from './sql/compile';
import { compileScopeNumbers, compileTimeExtent } from './sql/compile-scope';
import { mapDuckDbError } from './errors';
import { readResult, type ResultRow } from './reduce/read';
import { createRounding } from '../../histogram/rounding';
import { expectedLayout, schemaStatements, type TableLayout } from './storage/schema';
import type { SqlQuery, SqlType } from './sql/sql-params';

export interface DuckDbEngineOptions {
  /** @default DEFAULT_LIMITS (the same as the OpenSearch engine's) */
  readonly limits?: EngineLimits;
  /** Refuse reports with more buckets than this, as OpenSearch's `search.max_buckets`. @default 65535 */
  readonly maxBuckets?: number;
  /** Compile every report stage by stage, never grouped (see compile.ts; tests compare the two). @default false */
  readonly stageByStage?: boolean;
  /**
   * How long a stopped report's answer waits for DuckDB to notice the interrupt, after which it is
   * answered anyway (the query stops when DuckDB next checks, its connection is closed then).
   * @default DEFAULT_INTERRUPT_GRACE_MS
   */
  readonly interruptGraceMs?: number;
}

/**
 * DuckDB checks for an interrupt between vectors, so a report usually stops within milliseconds; some
 * operators (a spill to disk, a large sort) check rarely, and the answer must not wait for them: the
 * deadline leaves 2 s for the answer (RESPONSE_MARGIN_MS), this takes a fraction of it.
 */
export const DEFAULT_INTERRUPT_GRACE_MS = 250;

/**
 * What one DuckDB instance may use. DuckDB applies `memory_limit` and `threads` to the whole instance
 * (both are GLOBAL settings: https://duckdb.org/docs/stable/configuration/overview), so they bound all
 * the reports running at once together, which is stricter than a bound per query.
 */
export interface DuckDbResources {
  /**
   * DuckDB's `memory_limit` (its buffer manager: table blocks, hash tables, sorts). Beyond it DuckDB
   * spills to the temp directory, then fails the query (503). The default keeps a hostile report's
   * peak well under 1 GB of process memory with the Node server around it, and still holds the
   * largest legitimate report over the benchmark's 10M events (bench/README.md). @default '512MB'
   */
  readonly memoryLimit?: string;
  /**
   * Worker threads. Each thread keeps its own partial hash tables, so memory grows with threads; two
   * leave the rest of a developer's machine (and the Node event loop) free. @default 2
   */
  readonly threads?: number;
  /**
   * Where DuckDB spills (`temp_directory`); its old spill files are deleted on open, as a process that
   * was killed mid-query leaves them behind. @default `<path>.tmp` for a file; none (no spilling) in memory
   */
  readonly tempDirectory?: string;
  /** Most spill data on disk (`max_temp_directory_size`). @default '4GB' */
  readonly maxTempDirectorySize?: string;
}

export const DEFAULT_DUCKDB_RESOURCES = { memoryLimit: '512MB', threads: 2, maxTempDirectorySize: '4GB' } as const;

/**
 * Opens (or creates) a DuckDB database file, or an in-memory one with `':memory:'`, with bounded
 * resources (DuckDbResources), and makes sure the report tables exist with the current layout. A
 * file another process holds open fails with EngineUnavailableError; a file of the previous layout
 * is migrated (see checkLayout), one of another layout fails with an Error saying so.
 */
export async function openDuckDb(path = ':memory:', resources: DuckDbResources = {}): Promise<DuckDBInstance> {
  const memory = path === ':memory:' || path === '';
  const tempDirectory = resources.tempDirectory ?? (memory ? '' : `${path}.tmp`);
  try {
    const instance = await DuckDBInstance.create(path, {
      memory_limit: resources.memoryLimit ?? DEFAULT_DUCKDB_RESOURCES.memoryLimit,
      threads: String(resources.threads ?? DEFAULT_DUCKDB_RESOURCES.threads),
      temp_directory: tempDirectory,
      max_temp_directory_size: resources.maxTempDirectorySize ?? DEFAULT_DUCKDB_RESOURCES.maxTempDirectorySize,
    });
    // The file lock is ours now, so no other process spills there: what is left is from a killed one.
    if (tempDirectory) removeSpillFiles(tempDirectory);
    const connection = await instance.connect();
    try {
      for (const statement of schemaStatements()) await connection.run(statement);
      await checkLayout(connection, path);
    } finally {
      connection.closeSync();
    }
    return instance;
  } catch (e) {
    // At startup the real message helps more than a problem body: only "busy" becomes a 503.
    const mapped = mapDuckDbError(e);
    throw mapped instanceof EngineUnavailableError ? mapped : e;
  }
}

/** Deletes DuckDB's spill files (`duckdb_temp_*`) in `directory`, and nothing else. */
function removeSpillFiles(directory: string): void {
  if (!existsSync(directory)) return;
  for (const name of readdirSync(directory)) if (name.startsWith('duckdb_temp')) rmSync(join(directory, name), { force: true, recursive: true });
}

/**
 * The embedded engine (`npm start`, tests): answers exactly as the OpenSearch engine does. A report
 * runs on its own connection: at most three statements (the time extent of a histogram without
 * both bounds, the scope numbers of a nested report that reads the items alone, then the report).
 * A run stops at its deadline (`connection.interrupt()`: DuckDB checks for it between vectors, so
 * it stops within milliseconds) with ReportTimeoutError, and every run stops on {@link close}.
 */
export class DuckDbEngine implements ReportEngine {
  private readonly limits: EngineLimits;
  readonly maxBuckets: number;
  private readonly stageByStage: boolean;
  private readonly closing = new AbortController();
  /** Every report's work until it has let go of its connection (close() waits for them). */
  private readonly running = new Set<Promise<unknown>>();
  private readonly interruptGraceMs: number;

  constructor(
    private readonly instance: DuckDBInstance,
    options: DuckDbEngineOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    this.stageByStage = options.stageByStage ?? false;
    this.interruptGraceMs = options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
  }

  async run(plan: ReportPlan, scope: Scope, options: RunOptions = {}): Promise<EngineResult> {
    const { deadline } = options;
    const signals = [this.closing.signal, ...(deadline ? [deadline.signal] : [])];
    try {
      if (signals.some((signal) => signal.aborted)) throw new Error('stopped before it started');
      const work = this.work(plan, scope, signals);
      const settled = work.then(noop, noop);
      this.running.add(settled);
      void settled.then(() => this.running.delete(settled));
      return await untilStopped(work, signals, this.interruptGraceMs);
    } catch (e) {
      // Our own refusals (a 422) stand; what an interrupt cut short is a shutdown or the deadline.
      if (e instanceof AppError) throw e;
      if (this.closing.signal.aborted) throw new EngineUnavailableError('The local report engine is shutting down; try again shortly.', 5, { cause: e });
      if (deadline?.expired) throw deadline.error(e);
      throw mapDuckDbError(e);
    }
  }

  /**
   * Refuses new runs (503), interrupts the running ones and waits until they have let go of their
   * connections, so that the database can be checkpointed and closed (the local server's Ctrl-C).
   */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all(this.running);
  }

  /** The report on its own connection, interrupted when a signal fires; the connection is closed once it has stopped. */
  private async work(plan: ReportPlan, scope: Scope, signals: readonly AbortSignal[]): Promise<EngineResult> {
    const stopped = () => signals.some((signal) => signal.aborted);
    const connection = await this.instance.connect();
    const interrupt = (): void => connection.interrupt();
    for (const signal of signals) signal.addEventListener('abort', interrupt, { once: true });
    try {
      // A signal that fired while connecting found no connection to interrupt.
      if (stopped()) throw new Error('stopped while connecting');
      return await this.report(connection, plan, scope, () => {
        if (stopped()) throw new Error('stopped between statements');
      });
    } finally {
      for (const signal of signals) signal.removeEventListener('abort', interrupt);
      connection.closeSync();
    }
  }

  /** The statements of one report; `check` throws once the run is to stop. */
  private async report(connection: DuckDBConnection, plan: ReportPlan, scope: Scope, check: () => void): Promise<EngineResult> {
    const first = plan.pipeline[0];
    const histogram = first?.kind === 'dateHistogram' ? await this.histogram(connection, plan, scope, first) : undefined;
    // Before any work on the documents: refuse what must exceed the limit whatever the data. Even a
    // histogram without buckets counts its empty-bucket template, as OpenSearch's final reduce does.
    refuseBeyondBucketFloor(plan.pipeline, histogram?.keys.length ?? 0, this.maxBuckets);
    if (histogram && histogram.keys.length === 0) return { root: { kind: 'histogram', buckets: [] }, truncated: false };
    check();
    const options = { limits: this.limits, stageByStage: this.stageByStage, ...(histogram ? { histogramSegments: histogram.segments } : {}) };
    const scopeNumbers = readsItemsAlone(plan, options) ? (await select(connection, compileScopeNumbers(plan, scope))).map((row) => Number(row[0])) : undefined;
    check();
    const query = compileReport(plan, scope, { ...options, ...(scopeNumbers ? { scopeNumbers } : {}) });
    const rows = (await select(connection, query)).map(toResultRow);
    const result = readResult(plan.pipeline, rows, histogram?.keys);
    if (countBuckets(plan.pipeline, result.root) > this.maxBuckets) throw new TooManyBucketsError(this.maxBuckets);
    return result;
  }

  /** Bucket keys and key segments over the bounds, or over the documents' extent where a bound is missing. */
  private async histogram(
    connection: DuckDBConnection,
    plan: ReportPlan,
    scope: Scope,
    node: DateHistogramAggNode,
  ): Promise<{ keys: number[]; segments: KeySegment[] }> {
    let lo = node.bounds?.from;
    let hi = node.bounds?.to === undefined ? undefined : node.bounds.to - 1;
    if (lo === undefined || hi === undefined) {
      const [row] = await select(connection, compileTimeExtent(plan, scope));
      lo ??= toNumberOrUndefined(row?.[0]);
      hi ??= toNumberOrUndefined(row?.[1]);
    }
    if (lo === undefined || hi === undefined || lo > hi) return { keys: [], segments: [] };
    const rounding = createRounding(node.interval, node.timeZone, lo, hi);
    return { keys: histogramKeys(rounding, lo, hi, this.maxBuckets), segments: keySegments(rounding, lo, hi) };
  }
}

/**
 * A file written by an older layout would fail every report with a binder error. Tables of the
 * layout before the item counts, item positions and parent copies (schema.ts) are migrated in
 * place, in one transaction; any other difference is refused, once, clearly.
 */
async function checkLayout(connection: DuckDBConnection, path: string): Promise<void> {
  const reader = await connection.runAndReadAll("SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns() WHERE schema_name = 'main' GROUP BY table_name");
  const actual = new Map((reader.getRowsJS() as [string, string[]][]).map(([table, columns]) => [table, columns.join(',')]));
  const matches = (tables: readonly TableLayout[]) => tables.every(({ table, columns }) => actual.get(table) === columns.join(','));
  const migrations: string[] = [];
  for (const { tables, legacy } of expectedLayout()) {
    if (matches(tables)) continue;
    const former = legacy.find((l) => matches(l.tables));
    if (former) {
      migrations.push(...former.migration);
      continue;
    }
    const { table, columns } = tables.find((t) => actual.get(t.table) !== t.columns.join(',')) as TableLayout;
    throw new Error(`${path}: table ${table} has columns (${actual.get(table)}), expected (${columns.join(',')}); it was written by an older version, delete the file and seed again`);
  }
  if (migrations.length === 0) return;
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const statement of migrations) await connection.run(statement);
    await connection.run('COMMIT');
  } catch (e) {
    await connection.run('ROLLBACK');
    throw e;
  }
}

const TYPES: Readonly<Record<SqlType, DuckDBType>> = { VARCHAR, DOUBLE, BIGINT };

async function select(connection: DuckDBConnection, query: SqlQuery): Promise<unknown[][]> {
  const values = query.params.map((p) => p.value);
  const types = query.params.map((p) => TYPES[p.type]);
  const reader = await connection.runAndReadAll(query.sql, values, types);
  return reader.getRowsJS() as unknown[][];
}

const noop = (): void => undefined;

/**
 * `work`'s outcome, unless a signal fires first: then its outcome if it comes within `graceMs` (the
 * interrupt's own error, usually), else an Error saying it is still stopping.
 */
function untilStopped<T>(work: Promise<T>, signals: readonly AbortSignal[], graceMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      timer ??= setTimeout(() => reject(new Error(`stopped; the query had not noticed its interrupt within ${graceMs} ms`)), graceMs);
    };
    for (const signal of signals) {
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
    });
  });
}

function toNumberOrUndefined(v: unknown): number | undefined {
  return v === null || v === undefined ? undefined : Number(v);
}

/** `[what, lvl, k0.., n, mn, mx, sm, shard]` → ResultRow. */
function toResultRow(row: unknown[]): ResultRow {
  const [what, lvl] = row as [ResultRowKind, number];
  const [n, mn, mx, sm, shard] = row.slice(-5);
  return {
    what,
    lvl: Number(lvl),
    keys: (row.slice(2, -5) as (string | null)[]).filter((k): k is string => k !== null),
    shard: toNumberOrUndefined(shard) ?? 0,
    n: Number(n),
    mn: toNumberOrUndefined(mn) ?? null,
    mx: toNumberOrUndefined(mx) ?? null,
    sm: toNumberOrUndefined(sm) ?? null,
  };
}
