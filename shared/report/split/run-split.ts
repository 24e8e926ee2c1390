import { AppError, InternalError } from '../../errors';
import { AnswerBucketsError, refuseBeyondSplitFloor } from '../bucket-limit';
import type { EngineResult, ReportEngine, RunOptions, Scope } from '../../stores/store';
import type { ReportPlan } from '../plan/plan';
import type { Deadline } from '../deadline';
import { runPool } from '../../concurrency';
import { AnswerBudget } from './answer-budget';
import { mergeResults } from './merge';
import { DEFAULT_MAX_SLICES, histogramBucketEstimate, planEvenSlices, planSlices, type Slice } from './plan-slices';

/**
 * Runs the slices of a split plan. Locally an in-process pool on the engine
 * ({@link inProcessSliceExecutor}); in AWS a Step Functions Express execution whose Map state runs
 * one worker Lambda per slice (functions/commons/split/step-functions-executor.ts).
 */
export interface SliceExecutor {
  /** Most slices this executor runs for one report. @default DEFAULT_MAX_SLICES (400) */
  readonly maxSlices?: number | undefined;
  /**
   * Every slice's result, in slice order. Rejects when any slice fails (with the first AppError,
   * e.g. 422 or 503); never resolves with part of the results. Each result is handed to
   * `options.budget` as soon as it is read, so that an answer too large stops the rest.
   */
  runSlices(
    plan: ReportPlan,
    slices: readonly Slice[],
    scope: Scope,
    options?: SliceRunOptions,
  ): Promise<readonly EngineResult[]>;
}

/** How the slices of one report are bounded: the deadline, and the buckets their results may hold together. */
export interface SliceRunOptions extends RunOptions {
  readonly budget?: AnswerBudget;
}

/** How a split report is bounded as a whole. */
export interface SplitOptions extends RunOptions {
  /**
   * The engine's bucket limit (ReportEngine.maxBuckets): with it, a report that must exceed its
   * bounds however it is split is refused before any slice runs (refuseBeyondSplitFloor, here and
   * nowhere else). @default unchecked
   */
  readonly maxBuckets?: number;
  /**
   * A plan answered together with this one (the other period of a `compare`): the floor counts its time buckets too.
   */
  readonly alongside?: ReportPlan;
  /** The most buckets the slices' results may hold together (MAX_ANSWER_BUCKETS for a report). @default unbounded */
  readonly maxAnswerBuckets?: number;
  /** Buckets the answer holds besides these slices' (the other period of a `compare` report). @default 0 */
  readonly heldBuckets?: number;
}

/** Slices running at once in the in-process pool, unless configured otherwise. */
export const DEFAULT_SPLIT_CONCURRENCY = 2;

/**
 * A plan with splitInterval → its slices, run by `executor`, merged exactly. The answer equals the
 * unsplit plan's whenever that one fits in the engine's bucket limit.
 */
export async function runSplit(
  plan: ReportPlan,
  scope: Scope,
  executor: SliceExecutor,
  options: SplitOptions = {},
): Promise<EngineResult> {
  // Slices pass the per-query floor one by one; the report as a whole must not multiply it, and its
  // answer is bounded before any slice runs (the time and filters buckets the request asks for) and
  // as the slices' results come back (terms keys).
  if (options.maxBuckets !== undefined) {
    const keys = histogramBucketEstimate(plan) + (options.alongside ? histogramBucketEstimate(options.alongside) : 0);
    refuseBeyondSplitFloor(plan.pipeline, keys, options.maxBuckets, options.maxAnswerBuckets);
  }
  if (plan.splitInterval && 'kind' in plan.splitInterval) return runAutoSplit(plan, scope, executor, options);
  const slices = planSlices(plan, executor.maxSlices === undefined ? {} : { maxSlices: executor.maxSlices });
  try {
    return await runSlices(plan, slices, scope, executor, options);
  } catch (e) {
    throw explainSliceFailure(e, plan, undefined, options.deadline);
  }
}

/**
 * `auto` starts with one slice per this many histogram buckets: a quarter of OpenSearch's default limit (65,535), room
 * for a few series under each.
 */
export const AUTO_BUCKETS_PER_SLICE = 16_384;
/** How many times finer `auto` cuts after a slice was refused for too many buckets. */
export const AUTO_REFINE_FACTOR = 4;

/**
 * `splitInterval: "auto"`: equal slices at bucket edges, as few as expected to fit (one per
 * AUTO_BUCKETS_PER_SLICE histogram buckets, often one: the report runs unsplit); when a slice is
 * refused for too many buckets, the whole range is cut AUTO_REFINE_FACTOR times finer and run again,
 * up to the slice cap. The bucket limit is the engine's own (a cluster setting for OpenSearch), so
 * it is learnt from the refusal rather than configured twice. The deadline covers every attempt: one
 * that passes it is a ReportTimeoutError (503), not the 422 of a cut that is still too coarse.
 */
async function runAutoSplit(
  plan: ReportPlan,
  scope: Scope,
  executor: SliceExecutor,
  options: SplitOptions,
): Promise<EngineResult> {
  const maxSlices = executor.maxSlices ?? DEFAULT_MAX_SLICES;
  let parts = Math.min(maxSlices, Math.max(1, Math.ceil(histogramBucketEstimate(plan) / AUTO_BUCKETS_PER_SLICE)));
  let slices = planEvenSlices(plan, parts);
  for (;;) {
    options.deadline?.throwIfExpired();
    try {
      return await runSlices(plan, slices, scope, executor, options);
    } catch (e) {
      if (!(e instanceof AppError && e.slug === 'too-many-buckets') || e instanceof AnswerBucketsError)
        throw explainSliceFailure(e, plan, undefined, options.deadline);
      parts = Math.min(maxSlices, parts * AUTO_REFINE_FACTOR);
      const finer = planEvenSlices(plan, parts);
      // Stop at the slice cap, or where cutting finer adds no slice (one bucket per slice already).
      if (finer.length <= slices.length) throw explainSliceFailure(e, plan, slices.length);
      slices = finer;
    }
  }
}

async function runSlices(
  plan: ReportPlan,
  slices: readonly Slice[],
  scope: Scope,
  executor: SliceExecutor,
  options: SplitOptions,
): Promise<EngineResult> {
  if (slices.length === 0) return mergeResults([]);
  const { deadline, maxAnswerBuckets } = options;
  // A new budget per attempt (`auto` may run several): only the slices of the answer count.
  const budget = maxAnswerBuckets === undefined ? undefined : new AnswerBudget(maxAnswerBuckets, options.heldBuckets);
  const results = await executor.runSlices(plan, slices, scope, {
    ...(deadline ? { deadline } : {}),
    ...(budget ? { budget } : {}),
  });
  if (results.length !== slices.length) {
    throw new InternalError({ cause: new Error(`${results.length} results for ${slices.length} slices`) });
  }
  return mergeResults(results);
}

/**
 * The local executor: slices run on `engine` in a pool of `concurrency` (default 2) in this process.
 */
export function inProcessSliceExecutor(
  engine: ReportEngine,
  options: { readonly concurrency?: number; readonly maxSlices?: number } = {},
): SliceExecutor {
  const concurrency = options.concurrency ?? DEFAULT_SPLIT_CONCURRENCY;
  return {
    maxSlices: options.maxSlices,
    runSlices: (_plan, slices, scope, { budget, ...options } = {}) =>
      runPool(slices, concurrency, async (slice) => {
        const result = await engine.run(slice.plan, scope, options);
        budget?.take(result, slices.length);
        return result;
      }),
  };
}

/**
 * A too_many_buckets refusal of one slice means the split interval is still too coarse: say so.
 * Other AppErrors pass unchanged; anything else is a bug (500, cause logged, never sent). Once the
 * deadline has passed, a failure that is not the client's (a 4xx stands) is the deadline's 503: the
 * slices it stopped fail in whatever way their engine stops, as the engines themselves answer.
 */
function explainSliceFailure(e: unknown, plan: ReportPlan, slices?: number, deadline?: Deadline): AppError {
  if (deadline?.expired && !(e instanceof AppError && e.status < 500))
    return e instanceof AppError && e.slug === 'report-timeout' ? e : deadline.error(e);
  if (!(e instanceof AppError)) return new InternalError({ cause: e });
  if (e.slug !== 'too-many-buckets' || e instanceof AnswerBucketsError) return e;
  const limit = typeof e.extensions.maxBuckets === 'number' ? e.extensions.maxBuckets : undefined;
  return new SliceTooManyBucketsError(limit, plan.splitInterval?.text ?? '', { cause: e, slices });
}

/** 422: one slice alone is over the bucket limit. Same problem type as the unsplit refusal. */
export class SliceTooManyBucketsError extends AppError {
  constructor(
    readonly limit: number | undefined,
    splitInterval: string,
    options?: ErrorOptions & { readonly slices?: number | undefined },
  ) {
    const limitText = limit === undefined ? 'the configured bucket limit' : `the bucket limit of ${limit}`;
    const detail =
      splitInterval === 'auto'
        ? `Even cut into ${options?.slices ?? 'the most allowed'} slices (splitInterval "auto"), one slice would create more buckets than ${limitText}. ` +
          'Use a coarser dateHistogram interval, fewer series, or a shorter time range.'
        : `Even one slice of splitInterval "${splitInterval}" would create more buckets than ${limitText}. ` +
          'Use a smaller splitInterval, a coarser dateHistogram interval, or fewer series.';
    super(422, 'too-many-buckets', 'Too many buckets', detail, {
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
      extensions: { ...(limit === undefined ? {} : { maxBuckets: limit }), splitInterval },
    });
  }
}
