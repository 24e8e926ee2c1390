import type { Deadline } from '../report/deadline';
import type { ReportPlan } from '../report/plan/plan';

/** Whose documents a report may see: always applied by the engine, whatever the body says. */
export interface Scope {
  readonly organizationId: string;
}

/** One engine: compiles a plan (pure) and runs it (I/O). OpenSearch in AWS, DuckDB locally. */
export interface ReportEngine {
  run(plan: ReportPlan, scope: Scope, options?: RunOptions): Promise<EngineResult>;
  /**
   * The engine's bucket limit (OpenSearch's `search.max_buckets`): it bounds a split report as a
   * whole (refuseBeyondSplitFloor). Required, so that a wrapper (a cache, a meter) that forgets to
   * pass it on does not compile: a wrapper without it once skipped that floor locally (issue 20).
   */
  readonly maxBuckets: number;
}

/** How one run is bounded besides the bucket limit. */
export interface RunOptions {
  /**
   * When the run must stop: the engine stops its own work then (not merely stops waiting for it)
   * and rejects with ReportTimeoutError (503). @default none: unbounded (jobs with their own timeout)
   */
  readonly deadline?: Deadline;
  /**
   * The run must reach the engine itself: a cache in front of it (bin/local/report-cache.ts) passes
   * it on, so that the health probe tells whether the engine answers, not whether it once did.
   * @default false
   */
  readonly uncached?: boolean;
}

export interface EngineResult {
  /** The result of plan.pipeline[0] over the scoped, filtered documents. */
  readonly root: AggResult;
  /** True when some terms aggregation had more keys than the configured cap (keys were cut). */
  readonly truncated: boolean;
  /**
   * Which rows answered (docs/rollups.md): rollups, the documents, or (a split report, a comparison)
   * some parts one and some the other. @default unsaid: rollups are off, the engine never says
   */
  readonly source?: ReportSource;
  /** Why rollups did not answer (all of it when `raw`, some slices when `mixed`). @default unsaid */
  readonly rawReason?: string;
  /**
   * `rollup`: the UTC window [from, to) read from rollup rows; whatever of the report's range lies
   * outside it (partial grains at its ends, documents after the watermark) was read raw.
   */
  readonly rollupWindow?: { readonly from: number; readonly to: number };
}

/** Which rows answered a report, see {@link EngineResult.source}. */
export type ReportSource = 'rollup' | 'raw' | 'mixed';

/**
 * Engine-neutral result tree, one node per pipeline stage. `sub` is the next stage's result for
 * that bucket; absent on the last stage, where `count` is the value.
 */
export type AggResult = HistogramResult | KeyedResult | SingleResult | StatsResult;

export interface Bucket<K> {
  readonly key: K;
  readonly count: number;
  readonly sub?: AggResult;
}

/** dateHistogram: keys are bucket starts in epoch ms, ascending, empty buckets included. */
export interface HistogramResult {
  readonly kind: 'histogram';
  readonly buckets: readonly Bucket<number>[];
}

/** terms (buckets with documents only, any order) or filters (every named bucket, in request order). */
export interface KeyedResult {
  readonly kind: 'terms' | 'filters';
  readonly buckets: readonly Bucket<string>[];
}

/** filter, nested, reverseNested: one bucket. */
export interface SingleResult {
  readonly kind: 'single';
  readonly count: number;
  readonly sub?: AggResult;
}

/** stats: min/max are null when no value was seen. avg is derived as sum / count by the shaper. */
export interface StatsResult {
  readonly kind: 'stats';
  readonly count: number;
  readonly min: number | null;
  readonly max: number | null;
  readonly sum: number;
  /** The node's percentiles in its order, null over no values; absent when it asks for none. */
  readonly percentiles?: readonly (number | null)[];
}

/** Engine settings shared by both engines so that they refuse and cut at the same points. */
export interface EngineLimits {
  /** Keys returned per terms aggregation before the answer is marked truncated. */
  readonly termsCap: number;
}

export const DEFAULT_LIMITS: EngineLimits = { termsCap: 1000 };
