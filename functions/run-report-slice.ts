import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { AppError, EngineUnavailableError, InternalError } from '#shared/errors';
import type { ReportEngine, Scope } from '#shared/report/engines/engine';
import type { ReportPlan } from '#shared/report/plan/plan';
import { encodeSlice, type EncodedSlice } from '#shared/report/split/encoding';
import { slicePlan, type SliceRange } from '#shared/report/split/plan-slices';
import { reportEngine } from '#commons/clients/engine';
import { observability } from '#commons/powertools/observability';
import type { Provider } from '#commons/clients/lazy';
import { logger } from '#commons/powertools/logger';
import { measuredEngine, metrics } from '#commons/powertools/metrics';
import { sliceStoreFromEnv, type SliceRef, type SliceResultStore } from '#commons/split/slice-store';

/**
 * The slice worker: the Step Functions Map task of a splitInterval report (lib/split.ts).
 *
 * Contract with the state machine. The execution input is
 * `{ plan, scope, inlineLimitBytes, slices: [{ from, to }, ...] }`: the plan once, not once per
 * slice, so that 400 slices of a 1 KB plan stay far below the 256 KiB input limit. The Map state
 * iterates `$.slices` and its ItemSelector builds each worker event
 * `{ plan: $.plan, scope: $.scope, inlineLimitBytes: $.inlineLimitBytes, slice: $$.Map.Item.Value }`.
 * The worker answers {@link SliceOutput}; the Map output is the array of them in slice order.
 * A failed slice throws a `SliceError` whose message is the problem as JSON, so that the query
 * function can answer the same 422 or 503 the engine gave.
 */
export interface SliceEvent {
  /** The whole split plan (with splitInterval); the worker cuts its slice out of it. */
  readonly plan: ReportPlan;
  readonly scope: Scope;
  readonly slice: SliceRange;
  /** Encoded results larger than this go to the store. @default DEFAULT_INLINE_LIMIT_BYTES */
  readonly inlineLimitBytes?: number;
}

/** The slice result in the compact encoding, inline or by reference to the store. */
export type SliceOutput = { readonly inline: EncodedSlice } | { readonly stored: SliceRef };

/** 0.8 × the 256 KiB state payload limit: the most one result may take inline. */
export const DEFAULT_INLINE_LIMIT_BYTES = Math.floor(0.8 * 256 * 1024);

/** Name of the error a failed slice throws (the Step Functions `Error` of the failed execution). */
export const SLICE_ERROR = 'SliceError';

/** The worker with its dependencies injected (tests bind it to a test engine and a memory store). */
export function createSliceWorker(
  engine: Provider<ReportEngine> = reportEngine,
  store: () => SliceResultStore | undefined = sliceStoreFromEnv,
): (event: SliceEvent, context?: Context) => Promise<SliceOutput> {
  return async (event) => {
    try {
      checkEvent(event);
      const result = await measuredEngine(await engine()).run(slicePlan(event.plan, event.slice), event.scope);
      const encoded = encodeSlice(result);
      const text = JSON.stringify(encoded);
      if (Buffer.byteLength(text) <= (event.inlineLimitBytes ?? DEFAULT_INLINE_LIMIT_BYTES)) return { inline: encoded };
      const target = store();
      if (!target) throw new Error('a slice result is over the inline limit and SLICE_RESULTS_BUCKET is not set');
      return { stored: await target.put(text).catch((e: unknown) => Promise.reject(storeUnavailable(e))) };
    } catch (e) {
      throw toSliceError(e);
    }
  };
}

export const handler = middy(createSliceWorker())
  .use(observability());

/** What the problem of a failed slice carries through Step Functions (the SliceError message). */
export interface SliceProblem {
  readonly status: number;
  readonly slug: string;
  readonly title: string;
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** AppErrors travel as their problem; anything else is logged here and travels as a bare 500. */
export function toSliceError(e: unknown): Error {
  const app = e instanceof AppError ? e : new InternalError({ cause: e });
  if (!(e instanceof AppError)) logger.error('slice failed', { error: e as Error });
  const problem: SliceProblem = { status: app.status, slug: app.slug, title: app.title, detail: app.detail, headers: app.headers, extensions: app.extensions };
  const error = new Error(JSON.stringify(problem));
  error.name = SLICE_ERROR;
  return error;
}

const storeUnavailable = (cause: unknown) =>
  new EngineUnavailableError('A slice result could not be stored; try again shortly.', 5, { cause });

function checkEvent(event: SliceEvent): void {
  const ok =
    typeof event?.scope?.organizationId === 'string' &&
    Array.isArray(event.plan?.pipeline) &&
    event.plan.splitInterval !== undefined &&
    Number.isFinite(event.slice?.from) &&
    Number.isFinite(event.slice?.to);
  if (!ok) throw new Error('malformed slice event: expected { plan, scope, slice: { from, to }, inlineLimitBytes }');
}
