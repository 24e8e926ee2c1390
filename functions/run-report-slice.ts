import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { AppError, EngineUnavailableError, InternalError } from '#shared/errors';
import type { ReportEngine } from '#shared/stores/store';
import {
  DEFAULT_INLINE_LIMIT_BYTES,
  encodeSliceError,
  type SliceEvent,
  type SliceOutput,
} from '#shared/report/split/contract';
import { encodeSlice } from '#shared/report/split/encoding';
import { slicePlan } from '#shared/report/split/plan-slices';
import { reportEngine } from '#commons/clients/store';
import { observability } from '#commons/powertools/observability';
import type { Provider } from '#commons/clients/lazy';
import { logger } from '#commons/powertools/logger';
import { measuredEngine } from '#commons/powertools/metrics';
import { sliceStoreFromEnv, type SliceResultStore } from '#commons/split/slice-store';

/**
 * The slice worker: the Step Functions Map task of a splitInterval report (lib/split.ts). Its event
 * and answer are the split contract's (shared/report/split/contract.ts): the worker answers a
 * SliceOutput, or throws a `SliceError` whose message is the problem as JSON, so that the query
 * function can answer the same 422 or 503 the engine gave.
 */
export interface SliceWorkerDeps {
  /** The report engine the slice runs on. */
  readonly engine: Provider<ReportEngine>;
  /** Where a result too large for the state payload goes (S3 in AWS); undefined: nowhere. */
  readonly store: () => SliceResultStore | undefined;
}

/**
 * The worker with its dependencies injected, one object given in part (tests bind a test engine and a memory store).
 */
export function createSliceWorker(
  given: Partial<SliceWorkerDeps> = {},
): (event: SliceEvent, context?: Context) => Promise<SliceOutput> {
  const { engine, store }: SliceWorkerDeps = { engine: reportEngine, store: sliceStoreFromEnv, ...given };
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

export const handler = middy(createSliceWorker()).use(observability());

/**
 * AppErrors travel as their problem (the split contract's codec); anything else is logged here and travels as a bare
 * 500.
 */
export function toSliceError(e: unknown): Error {
  if (!(e instanceof AppError)) logger.error('slice failed', { error: e as Error });
  return encodeSliceError(e instanceof AppError ? e : new InternalError({ cause: e }));
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
