import { BIGINT, DOUBLE, VARCHAR, type DuckDBConnection, type DuckDBInstance, type DuckDBType } from '@duckdb/node-api';
import { onAbort } from '../../../abort';
import { AppError, EngineUnavailableError, TooManyBucketsError } from '../../../errors';
import {
  DEFAULT_LIMITS,
  type EngineLimits,
  type EngineResult,
  type ReportEngine,
  type RunOptions,
  type Scope,
} from '../../store';
import type { DateHistogramAggNode, ReportPlan, TimeRange } from '../../../report/plan/plan';
import { countBuckets, DEFAULT_MAX_BUCKETS, refuseBeyondBucketFloor } from '../../../report/bucket-limit';
import { histogramKeys } from '../../../report/histogram/keys';
import { keySegments, type KeySegment } from './sql/buckets';
import { compileReport, readsItemsAlone } from './sql/compile';
import { compileScopeNumbers, compileTimeExtent } from './sql/compile-scope';
import { mapDuckDbError } from '../errors';
import { readResult } from './reduce/read';
import { hasPercentiles, toResultRow } from './result-row';
import { createRounding } from '../../../report/histogram/rounding';
import { ZoneOffsets, type OffsetPeriod } from '../../../time/zone-offsets';
import { ENGINE_RAW_REASONS } from '../../../rollups/match';
import { chooseRollup, EXACT_LIMIT, type RollupRead } from '../../../rollups/read';
import { readWatermark } from '../rollups/marks';
import { exactStatsQuery } from './sql/rollup-read';
import { SqlParams, type SqlQuery, type SqlType } from './sql/sql-params';

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
  /**
   * Answer from the rollups where the matcher proves the answer the same (docs/rollups.md); the
   * result then says which path served it (without, it says nothing). @default false (the local server turns it on)
   */
  readonly rollups?: boolean;
}

/**
 * DuckDB checks for an interrupt between vectors, so a report usually stops within milliseconds; some
 * operators (a spill to disk, a large sort) check rarely, and the answer must not wait for them: the
 * deadline leaves 2 s for the answer (RESPONSE_MARGIN_MS), this takes a fraction of it.
 */
export const DEFAULT_INTERRUPT_GRACE_MS = 250;

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
  private readonly rollups: boolean;

  constructor(
    private readonly instance: DuckDBInstance,
    options: DuckDbEngineOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    this.stageByStage = options.stageByStage ?? false;
    this.interruptGraceMs = options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
    this.rollups = options.rollups ?? false;
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
      if (this.closing.signal.aborted)
        throw new EngineUnavailableError('The local report engine is shutting down; try again shortly.', 5, {
          cause: e,
        });
      if (deadline?.expired) throw deadline.error(e);
      throw mapDuckDbError(e, 'report');
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

  /**
   * The report on its own connection, interrupted when a signal fires; the connection is closed once it has stopped.
   */
  private async work(plan: ReportPlan, scope: Scope, signals: readonly AbortSignal[]): Promise<EngineResult> {
    const stopped = () => signals.some((signal) => signal.aborted);
    const connection = await this.instance.connect();
    const forget = signals.map((signal) => onAbort(signal, () => connection.interrupt()));
    try {
      // A signal that fired while connecting found no connection to interrupt.
      if (stopped()) throw new Error('stopped while connecting');
      return await this.report(connection, plan, scope, () => {
        if (stopped()) throw new Error('stopped between statements');
      });
    } finally {
      for (const f of forget) f();
      connection.closeSync();
    }
  }

  /**
   * The statements of one report; `check` throws once the run is to stop. With rollups, in one
   * read transaction: the watermark and the rows read are of one moment (a write in between would
   * otherwise be read in part). It ends with the connection, closed right after (`work`): DuckDB
   * rolls back a closed connection's transaction, without one more round trip to its thread.
   */
  private async report(
    connection: DuckDBConnection,
    plan: ReportPlan,
    scope: Scope,
    check: () => void,
  ): Promise<EngineResult> {
    if (!this.rollups) return this.answer(connection, plan, scope, check);
    await connection.run('BEGIN TRANSACTION');
    const rollup = await rollupReadFor(connection, plan, scope);
    check();
    if (typeof rollup === 'string')
      return { ...(await this.answer(connection, plan, scope, check)), source: 'raw', rawReason: rollup };
    return {
      ...(await this.answer(connection, plan, scope, check, rollup)),
      source: 'rollup',
      rollupWindow: { from: rollup.from, to: rollup.to },
    };
  }

  private async answer(
    connection: DuckDBConnection,
    plan: ReportPlan,
    scope: Scope,
    check: () => void,
    rollup?: RollupRead,
  ): Promise<EngineResult> {
    const first = plan.pipeline[0];
    const histogram =
      first?.kind === 'dateHistogram' ? await this.histogram(connection, plan, scope, first) : undefined;
    // Before any work on the documents: refuse what must exceed the limit whatever the data. Even a
    // histogram without buckets counts its empty-bucket template, as OpenSearch's final reduce does.
    refuseBeyondBucketFloor(plan.pipeline, histogram?.keys.length ?? 0, this.maxBuckets);
    if (histogram && histogram.keys.length === 0) return { root: { kind: 'histogram', buckets: [] }, truncated: false };
    check();
    const profileOffsets = await this.profileOffsets(connection, plan, scope);
    const options = {
      limits: this.limits,
      stageByStage: this.stageByStage,
      ...(histogram ? { histogramSegments: histogram.segments } : {}),
      ...(profileOffsets ? { profileOffsets } : {}),
      ...(rollup ? { rollup } : {}),
    };
    const scopeNumbers =
      !rollup && readsItemsAlone(plan, options)
        ? (await select(connection, compileScopeNumbers(plan, scope))).map((row) => Number(row[0]))
        : undefined;
    check();
    const query = compileReport(plan, scope, { ...options, ...(scopeNumbers ? { scopeNumbers } : {}) });
    const withPercentiles = hasPercentiles(plan.pipeline);
    const rows = (await select(connection, query)).map((row) => toResultRow(row, withPercentiles));
    const result = readResult(plan.pipeline, rows, histogram?.keys);
    if (countBuckets(plan.pipeline, result.root) > this.maxBuckets) throw new TooManyBucketsError(this.maxBuckets);
    return result;
  }

  /** The offset periods of each profile stage's zone over the report's range (or its documents' extent). */
  private async profileOffsets(
    connection: DuckDBConnection,
    plan: ReportPlan,
    scope: Scope,
  ): Promise<Map<string, readonly OffsetPeriod[]> | undefined> {
    const zones = new Set(plan.pipeline.flatMap((n) => (n.kind === 'terms' && n.profile ? [n.profile.timeZone] : [])));
    if (zones.size === 0) return undefined;
    const { lo, hi } = await spanOf(connection, plan, scope, plan.timeRange);
    // No documents (or a range that holds none): any period will do, no row reads it.
    const [from, to] = lo === undefined || hi === undefined || lo > hi ? [0, 0] : [lo, hi];
    return new Map([...zones].map((zone) => [zone, ZoneOffsets.scan(zone, from, to).periods]));
  }

  /** Bucket keys and key segments over the bounds, or over the documents' extent where a bound is missing. */
  private async histogram(
    connection: DuckDBConnection,
    plan: ReportPlan,
    scope: Scope,
    node: DateHistogramAggNode,
  ): Promise<{ keys: number[]; segments: KeySegment[] }> {
    const { lo, hi } = await spanOf(connection, plan, scope, node.bounds);
    if (lo === undefined || hi === undefined || lo > hi) return { keys: [], segments: [] };
    const rounding = createRounding(node.interval, node.timeZone, lo, hi);
    return { keys: histogramKeys(rounding, lo, hi, this.maxBuckets), segments: keySegments(rounding, lo, hi) };
  }
}

/** [lo, hi] (UTC ms, both inclusive) of a half-open range, each missing end read from the documents' extent. */
async function spanOf(
  connection: DuckDBConnection,
  plan: ReportPlan,
  scope: Scope,
  range?: TimeRange,
): Promise<{ lo?: number; hi?: number }> {
  let lo = range?.from;
  let hi = range?.to === undefined ? undefined : range.to - 1;
  if (lo === undefined || hi === undefined) {
    const [row] = await select(connection, compileTimeExtent(plan, scope));
    lo ??= toNumberOrUndefined(row?.[0]);
    hi ??= toNumberOrUndefined(row?.[1]);
  }
  return { ...(lo === undefined ? {} : { lo }), ...(hi === undefined ? {} : { hi }) };
}

const TYPES: Readonly<Record<SqlType, DuckDBType>> = { VARCHAR, DOUBLE, BIGINT };

/**
 * How `plan` reads rollups, or why it reads raw (shared/rollups/read.ts): the choice at the file's
 * grain and the collection's watermark, then for stats, whether every value the report would add is
 * an integer (EXACT_LIMIT). To call in the report's transaction, so that the watermark and the rows
 * the report reads are of one moment.
 */
async function rollupReadFor(
  connection: DuckDBConnection,
  plan: ReportPlan,
  scope: Scope,
): Promise<RollupRead | string> {
  const { grainMs, watermark } = await readWatermark(connection, plan.source);
  const read = chooseRollup(plan, grainMs, watermark);
  if (typeof read === 'string') return read;
  return (await exactStats(connection, plan, scope, read)) ? read : ENGINE_RAW_REASONS.inexactSum;
}

/** Whether the report has no stats or every value they add is an integer (else it reads raw). */
async function exactStats(
  connection: DuckDBConnection,
  plan: ReportPlan,
  scope: Scope,
  read: RollupRead,
): Promise<boolean> {
  const stats = plan.pipeline.at(-1);
  if (stats?.kind !== 'stats') return true;
  const params = new SqlParams();
  const sql = exactStatsQuery(read, plan, scope, params, stats.field);
  const [odd, abs] = (await select(connection, { sql, params: params.values }))[0] ?? [];
  return Number(odd) === 0 && Number(abs) < EXACT_LIMIT;
}

/**
 * One statement, prepared directly: `runAndReadAll` with values first splits the text into
 * statements (a parse of the whole report, and a round trip to DuckDB's thread) before preparing it.
 */
async function select(connection: DuckDBConnection, query: SqlQuery): Promise<unknown[][]> {
  const prepared = await connection.prepare(query.sql);
  try {
    prepared.bind(
      query.params.map((p) => p.value),
      query.params.map((p) => TYPES[p.type]),
    );
    return (await prepared.runAndReadAll()).getRowsJS() as unknown[][];
  } finally {
    prepared.destroySync();
  }
}

const noop = (): void => undefined;

/**
 * `work`'s outcome, unless a signal fires first: then its outcome if it comes within `graceMs` (the
 * interrupt's own error, usually), else an Error saying it is still stopping.
 */
function untilStopped<T>(work: Promise<T>, signals: readonly AbortSignal[], graceMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const stopping = (): void => {
      timer ??= setTimeout(
        () => reject(new Error(`stopped; the query had not noticed its interrupt within ${graceMs} ms`)),
        graceMs,
      );
    };
    const forget = signals.map((signal) => onAbort(signal, stopping));
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      for (const f of forget) f();
    });
  });
}

function toNumberOrUndefined(v: unknown): number | undefined {
  return v === null || v === undefined ? undefined : Number(v);
}
