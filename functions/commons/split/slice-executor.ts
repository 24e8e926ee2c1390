import type { ReportEngine } from '#shared/stores/store';
import { DEFAULT_SPLIT_CONCURRENCY, inProcessSliceExecutor, type SliceExecutor } from '#shared/report/split/run-split';
import { ENV } from '../env';
import { sliceStoreFromEnv } from './slice-store';
import { startSyncExecution, StepFunctionsSliceExecutor } from './step-functions-executor';

let provided: SliceExecutor | undefined;
let stepFunctions: SliceExecutor | undefined;

/** Puts a ready executor in place of the one from the environment (tests; as ../clients/store.ts provides stores). */
export function provideSliceExecutor(executor: SliceExecutor | undefined): void {
  provided = executor;
}

const positive = (name: string): number | undefined => {
  const value = Number(process.env[name] ?? 0);
  return value > 0 ? value : undefined;
};

/**
 * Who runs the slices of this process's split reports: the provided executor; else the state machine
 * of SPLIT_STATE_MACHINE_ARN (results by reference from SLICE_RESULTS_BUCKET), built once; else an
 * in-process pool of REPORT_SPLIT_CONCURRENCY (default 2) on `engine`. REPORT_MAX_SLICES caps slices.
 */
export function sliceExecutor(engine: ReportEngine): SliceExecutor {
  if (provided) return provided;
  const maxSlices = positive(ENV.maxSlices);
  const arn = process.env[ENV.splitStateMachineArn];
  if (arn)
    return (stepFunctions ??= new StepFunctionsSliceExecutor(
      startSyncExecution(arn),
      sliceStoreFromEnv(),
      maxSlices ? { maxSlices } : {},
    ));
  return inProcessSliceExecutor(engine, {
    concurrency: positive(ENV.splitConcurrency) ?? DEFAULT_SPLIT_CONCURRENCY,
    ...(maxSlices ? { maxSlices } : {}),
  });
}
