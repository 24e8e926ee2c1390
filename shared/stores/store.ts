import type { Collection } from '../documents/fields';
import type { DocumentToWrite, Repeat } from '../documents/identified';
import type { Deadline } from '../report/deadline';
import type { ReportPlan } from '../report/plan/plan';

/**
 * One store of documents, as the service uses it: OpenSearch in AWS (./opensearch/store.ts), DuckDB
 * embedded for `npm start` (./duckdb/store.ts). Both answer every part alike (the conformance suite
 * compares their reports byte for byte), so the handlers, the local server, the CLIs and the
 * benchmarks name a backend only where they choose one, and take a Store from there on.
 */
export interface Store {
  /** Reports over the documents. */
  readonly reports: ReportEngine;
  /** Where documents are written, each exactly once. */
  readonly writer: DocumentWriter;
  /** Deletes (with `dryRun`: counts) one organization's documents, every collection and month. */
  eraseOrganization(run: OrganizationErasure): Promise<DeletedDocuments>;
  /**
   * Deletes the documents of the months older than the retention (the current month and `months`
   * before it are kept; 0 keeps all), by the month each document is filed under.
   */
  applyRetention(run: RetentionRun): Promise<RetentionOutcome>;
  /** One pass of rollup upkeep (docs/rollups.md): the dirty grains recomputed from the documents. */
  rebuildRollups(): Promise<RebuildOutcome>;
  /** Where the documents are, for messages: `DuckDB <file>`, `OpenSearch (prefix 'x')`. */
  readonly description: string;
  /**
   * Stops the running reports (they answer 503) and releases the store once the writes under way
   * are done: DuckDB checkpoints its log into the file and closes it; OpenSearch closes its client.
   */
  close(): Promise<void>;
}

export interface OrganizationErasure {
  readonly organizationId: string;
  /** Count what would be deleted, delete nothing. @default false */
  readonly dryRun?: boolean;
}

/** Documents deleted (or that a dry run would delete) per collection. */
export type DeletedDocuments = Record<Collection, number>;

export interface RetentionRun {
  /** Months kept before the current one (shared/documents/retention.ts); 0 deletes nothing. */
  readonly months: number;
  readonly nowMs: number;
  /** List what would be deleted, delete nothing. @default false */
  readonly dryRun?: boolean;
}

/** One monthly index of a collection (OpenSearch: `<prefix><collection>-YYYY.MM`). */
export interface MonthlyIndex {
  readonly collection: Collection;
  readonly index: string;
  /** YYYYMM, from the index name. */
  readonly month: number;
}

/**
 * What a retention run deleted (or a dry run would): whole monthly indices, listed with those kept
 * (OpenSearch), or rows counted per collection (DuckDB, whose tables are not split by month).
 */
export type RetentionOutcome =
  | { readonly kind: 'indices'; readonly expired: readonly MonthlyIndex[]; readonly kept: readonly MonthlyIndex[] }
  | { readonly kind: 'rows'; readonly deleted: DeletedDocuments };

export interface RebuildOutcome {
  /** Grains recomputed per collection. */
  readonly rebuilt: Record<Collection, number>;
  /** Grains marked by a backfill per collection (rollups that were not ready yet; OpenSearch only). */
  readonly backfilled: Record<Collection, number>;
  /** Some collection had more dirty grains than one pass takes. */
  readonly more: boolean;
  /** Another rebuild held the lease: this one did nothing. */
  readonly busy?: boolean;
}

/**
 * What became of one document:
 * - `written`: it is stored now;
 * - `duplicate`: the same document (same identity, same content) was stored before: nothing changed;
 * - `conflict`: a document with the same `id` and other content was stored before; it stays (the
 *   first write wins) and this one is refused;
 * - `refused`: the store refused this document for good (a mapping error): `reason` says why.
 */
export type WriteOutcome =
  | { readonly kind: 'written' }
  | Repeat
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Where documents are written exactly once: DuckDB (./duckdb/write.ts) or OpenSearch
 * (./opensearch/write.ts). Documents of one call have distinct identities (firstOfEachIdentity).
 * Each document is written whole or not at all; one that fails for a passing reason (the store
 * busy or unreachable) makes the call throw EngineUnavailableError (503) after the others are done,
 * and writing the same call again then writes only what is missing: the rest are duplicates.
 */
export interface DocumentWriter {
  write<C extends Collection>(collection: C, documents: readonly DocumentToWrite<C>[]): Promise<WriteOutcome[]>;
}

/**
 * Whose documents a report may see: always applied, whatever the body says. The organization by the
 * engine; the location grant (shared/access/scope.ts) by narrowing the plan's `locationIds` to it
 * before the engine runs (../report/plan/grant.ts). Undefined `locationIds`: every location.
 */
export interface Scope {
  readonly organizationId: string;
  readonly locationIds?: readonly string[];
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
