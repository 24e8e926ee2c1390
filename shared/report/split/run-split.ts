import { AppError, InternalError } from '../../errors';
import type { EngineResult, ReportEngine, Scope } from '../engines/engine';
import type { ReportPlan } from '../plan/plan';
import { mergeResults } from './merge';
import { planSlices, type Slice } from './plan-slices';

/**
 * Runs the slices of a split plan. Locally an in-process pool on the engine
 * ({@link inProcessSliceExecutor}); in AWS a Step Functions Express execution whose Map state runs
 * one worker Lambda per slice (functions/commons/step-functions-executor.ts).
 */
export interface SliceExecutor {
  /**
   * Every slice's result, in slice order. Rejects when any slice fails (with the first AppError,
   * e.g. 422 or 503); never resolves with part of the results.
   */
  runSlices(plan: ReportPlan, slices: readonly Slice[], scope: Scope): Promise<readonly EngineResult[]>;
}

export interface SplitOptions {
  /** Most slices per report. @default DEFAULT_MAX_SLICES (400) */
  readonly maxSlices?: number;
}

/** Slices running at once in the in-process pool, unless configured otherwise. */
export const DEFAULT_SPLIT_CONCURRENCY = 2;

/**
 * A plan with splitInterval → its slices, run by `executor`, merged exactly. The answer equals the
 * unsplit plan's whenever that one fits in the engine's bucket limit.
 */
export async function runSplit(plan: ReportPlan, scope: Scope, executor: SliceExecutor, options: SplitOptions = {}): Promise<EngineResult> {
  const slices = planSlices(plan, options);
  if (slices.length === 0) return mergeResults([]);
  let results: readonly EngineResult[];
  try {
    results = await executor.runSlices(plan, slices, scope);
  } catch (e) {
    throw explainSliceFailure(e, plan);
  }
  if (results.length !== slices.length) {
    throw new InternalError({ cause: new Error(`${results.length} results for ${slices.length} slices`) });
  }
  return mergeResults(results);
}

/**
 * The local executor: slices run on `engine` in a pool of `concurrency` (default 2) in this process.
 */
export function inProcessSliceExecutor(engine: ReportEngine, options: { readonly concurrency?: number } = {}): SliceExecutor {
  const concurrency = options.concurrency ?? DEFAULT_SPLIT_CONCURRENCY;
  return { runSlices: (_plan, slices, scope) => runPool(slices, concurrency, (slice) => engine.run(slice.plan, scope)) };
}

/**
 * `task` over every item, at most `concurrency` at once, results in item order. After the first
 * failure no new task starts; once the running ones have settled, the first AppError is thrown
 * (else the first error), so a failure never leaves work running behind the caller's back.
 */
export async function runPool<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (errors.length === 0 && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (errors.length > 0) throw errors.find((e) => e instanceof AppError) ?? errors[0];
  return results;
}

/**
 * A too_many_buckets refusal of one slice means the split interval is still too coarse: say so.
 * Other AppErrors pass unchanged; anything else is a bug (500, cause logged, never sent).
 */
function explainSliceFailure(e: unknown, plan: ReportPlan): AppError {
  if (!(e instanceof AppError)) return new InternalError({ cause: e });
  if (e.slug !== 'too-many-buckets') return e;
  const limit = typeof e.extensions.maxBuckets === 'number' ? e.extensions.maxBuckets : undefined;
  return new SliceTooManyBucketsError(limit, plan.splitInterval?.text ?? '', { cause: e });
}

/** 422: one slice alone is over the bucket limit. Same problem type as the unsplit refusal. */
export class SliceTooManyBucketsError extends AppError {
  constructor(readonly limit: number | undefined, splitInterval: string, options?: ErrorOptions) {
    const limitText = limit === undefined ? 'the configured bucket limit' : `the bucket limit of ${limit}`;
    super(
      422,
      'too-many-buckets',
      'Too many buckets',
      `Even one slice of splitInterval "${splitInterval}" would create more buckets than ${limitText}. ` +
        'Use a smaller splitInterval, a coarser dateHistogram interval, or fewer series.',
      { ...options, extensions: { ...(limit === undefined ? {} : { maxBuckets: limit }), splitInterval } },
    );
  }
}
