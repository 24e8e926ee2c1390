import { AppError, EngineUnavailableError, InternalError } from '#shared/errors';
import type { EngineResult, Scope } from '#shared/stores/store';
import type { ReportPlan } from '#shared/report/plan/plan';
import { runPool } from '#shared/concurrency';
import {
  decodeSliceError,
  STATE_PAYLOAD_LIMIT_BYTES,
  type SliceOutput,
  type SplitExecutionInput,
} from '#shared/report/split/contract';
import { decodeSlice, type EncodedSlice } from '#shared/report/split/encoding';
import type { Slice } from '#shared/report/split/plan-slices';
import type { AnswerBudget } from '#shared/report/split/answer-budget';
import type { SliceExecutor, SliceRunOptions } from '#shared/report/split/run-split';
import { lazy } from '../clients/lazy';
import { tracer } from '../powertools/tracer';
import type { SliceResultStore } from './slice-store';

/** The most one stored-result reference takes in the Map output (bucket name ≤ 63, uuid key). */
const MAX_REF_BYTES = 200;

/** What one synchronous execution answers: StartSyncExecution's fields, or a local run's. */
export interface SyncExecution {
  readonly status: string;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}

/** Starts one synchronous Express execution with this input (JSON) and waits for its end, or until `signal` aborts. */
export type StartSyncExecution = (input: string, signal?: AbortSignal) => Promise<SyncExecution>;

export interface StepFunctionsExecutorOptions {
  /** Bytes the Map output may take in all (slices share it). @default 0.8 × 256 KiB */
  readonly payloadBudgetBytes?: number;
  /** Stored results fetched at once. @default 8 */
  readonly fetchConcurrency?: number;
  /** Most slices one report may have. @default DEFAULT_MAX_SLICES */
  readonly maxSlices?: number;
}

/**
 * The AWS slice executor: one synchronous Express execution per report (lib/split.ts), its Map
 * state running functions/run-report-slice.ts per slice. Every slice gets an equal share of the
 * payload budget as its inline limit, so the whole Map output stays under 256 KiB; larger results
 * come back from the store. A failed execution becomes the failed slice's own AppError.
 */
export class StepFunctionsSliceExecutor implements SliceExecutor {
  constructor(
    private readonly start: StartSyncExecution,
    private readonly store: SliceResultStore | undefined,
    private readonly options: StepFunctionsExecutorOptions = {},
  ) {}

  get maxSlices(): number | undefined {
    return this.options.maxSlices;
  }

  async runSlices(
    plan: ReportPlan,
    slices: readonly Slice[],
    scope: Scope,
    options: SliceRunOptions = {},
  ): Promise<EngineResult[]> {
    const budget = this.options.payloadBudgetBytes ?? Math.floor(0.8 * STATE_PAYLOAD_LIMIT_BYTES);
    const inlineLimitBytes = Math.max(MAX_REF_BYTES, Math.floor(budget / slices.length));
    const execution: SplitExecutionInput = {
      plan,
      scope,
      inlineLimitBytes,
      slices: slices.map(({ from, to }) => ({ from, to })),
    };
    const input = JSON.stringify(execution);
    if (Buffer.byteLength(input) > STATE_PAYLOAD_LIMIT_BYTES)
      throw new SplitInputTooLargeError(Buffer.byteLength(input));
    // At the deadline the query function stops waiting and answers 503; an Express execution cannot be
    // stopped (StopExecution is for Standard ones), but each slice worker stops at its own deadline.
    const { deadline } = options;
    const answer = await this.start(input, deadline?.signal).catch((e: unknown) =>
      Promise.reject(deadline?.expired ? deadline.error(e) : e),
    );
    if (answer.status === 'SUCCEEDED') return this.decode(answer.output ?? '[]', plan, slices.length, options.budget);
    if (answer.status === 'FAILED') throw failureOf(answer);
    throw new EngineUnavailableError(
      `The report slices did not finish in time (${answer.status}); try a larger splitInterval or a shorter range.`,
    );
  }

  /**
   * Each result read back (from the store, 8 at once) and counted against the budget: an answer too large stops the
   * reading.
   */
  private async decode(
    output: string,
    plan: ReportPlan,
    expected: number,
    budget: AnswerBudget | undefined,
  ): Promise<EngineResult[]> {
    const outputs = JSON.parse(output) as SliceOutput[];
    if (!Array.isArray(outputs) || outputs.length !== expected)
      throw new Error(`expected ${expected} slice results, got ${output.slice(0, 200)}`);
    return runPool(outputs, this.options.fetchConcurrency ?? 8, async (out) => {
      const result = decodeSlice(await this.encoded(out), plan.pipeline);
      budget?.take(result, expected);
      return result;
    });
  }

  private async encoded(out: SliceOutput): Promise<EncodedSlice> {
    if ('inline' in out) return out.inline;
    if (!this.store) throw new Error('a slice result was stored, but no slice result store is configured');
    try {
      return JSON.parse(await this.store.get(out.stored)) as EncodedSlice;
    } catch (e) {
      throw new EngineUnavailableError('A slice result could not be read back; try again shortly.', 5, { cause: e });
    }
  }
}

/** The failed slice's AppError (the split contract's codec), or 503 for Lambda throttling, else 500. */
export function failureOf(execution: SyncExecution): AppError {
  const sliceError = decodeSliceError(execution.error, execution.cause);
  if (sliceError) return sliceError;
  if (execution.error === 'States.Timeout' || execution.error?.startsWith('Lambda.')) {
    return new EngineUnavailableError('The report slices could not all run; try again shortly.', 5, {
      cause: new Error(`${execution.error}: ${execution.cause}`),
    });
  }
  return new InternalError({ cause: new Error(`split execution failed: ${execution.error}: ${execution.cause}`) });
}

/** 422: the split plan alone is too large for the 256 KiB execution input. */
export class SplitInputTooLargeError extends AppError {
  constructor(bytes: number) {
    super(
      422,
      'split-too-large',
      'Report too large to split',
      `This report's plan takes ${bytes} bytes, more than the slice runner accepts (${STATE_PAYLOAD_LIMIT_BYTES}); use fewer filter values or locationIds.`,
    );
  }
}

/** The Step Functions SDK and the process's client, loaded and built on the first split report. */
const stepFunctions = lazy(async () => {
  const [{ createSyncExecutionStarter }, t] = await Promise.all([import('../clients/sfn-client'), tracer()]);
  return createSyncExecutionStarter((client) => t?.captureAWSv3Client(client) ?? client);
});

/** StartSyncExecution on one state machine; SDK failures (throttling, network) are 503. */
export function startSyncExecution(stateMachineArn: string): StartSyncExecution {
  return async (input, signal) => {
    const start = await stepFunctions();
    try {
      const r = await start(stateMachineArn, input, signal);
      return {
        status: r.status ?? 'FAILED',
        ...(r.output ? { output: r.output } : {}),
        ...(r.error ? { error: r.error } : {}),
        ...(r.cause ? { cause: r.cause } : {}),
      };
    } catch (e) {
      throw new EngineUnavailableError('The report slices could not be started; try again shortly.', 5, { cause: e });
    }
  };
}
