import { AppError, TooManyBucketsError } from '#shared/errors';
import type { EngineResult, ReportEngine } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { planSlices } from '#shared/report/split/plan-slices';
import {
  failureOf,
  StepFunctionsSliceExecutor,
  type StartSyncExecution,
} from '../../../functions/commons/split/step-functions-executor';
import { memorySliceStore } from '../../../functions/commons/split/slice-store';
import type { SliceEvent, SliceOutput } from '#shared/report/split/contract';
import { createSliceWorker } from '../../../functions/run-report-slice';

const H = 3_600_000;
const scope = { organizationId: 'org-a' };
const plan = buildPlan({
  filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-01-04T00:00:00Z' }],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
  splitInterval: '1d',
});
const slices = planSlices(plan);

/** Every hour of the slice: `car` counted as the hour of the day + 1 (1..24). */
const engine: ReportEngine = {
  maxBuckets: 65_535,
  run: async (p): Promise<EngineResult> => {
    const buckets = [];
    for (let key = p.timeRange?.from ?? 0; key < (p.timeRange?.to ?? 0); key += H) {
      const count = ((key / H) % 24) + 1;
      buckets.push({ key, count, sub: { kind: 'terms' as const, buckets: [{ key: 'car', count }] } });
    }
    return { root: { kind: 'histogram', buckets }, truncated: false };
  },
};

/**
 * The state machine as AWS runs it (Map over `$.slices`, ItemSelector adding plan, scope and
 * inlineLimitBytes), with a failed worker reported in the Lambda error envelope.
 */
function mapState(worker: (e: SliceEvent) => Promise<SliceOutput>, inputs: unknown[] = []): StartSyncExecution {
  return async (input) => {
    const { slices: items, ...shared } = JSON.parse(input) as { slices: SliceEvent['slice'][] } & Omit<
      SliceEvent,
      'slice'
    >;
    inputs.push(JSON.parse(input));
    try {
      const outputs = await Promise.all(items.map((slice) => worker({ ...shared, slice })));
      return { status: 'SUCCEEDED', output: JSON.stringify(outputs) };
    } catch (e) {
      const error = e as Error;
      return {
        status: 'FAILED',
        error: error.name,
        cause: JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: ['at x'] }),
      };
    }
  };
}

describe('StepFunctionsSliceExecutor with the slice worker', () => {
  test('sends the plan once with the slice ranges, and each slice an equal share of the payload budget', async () => {
    const inputs: unknown[] = [];
    const executor = new StepFunctionsSliceExecutor(
      mapState(createSliceWorker({ engine: () => engine, store: () => undefined }), inputs),
      undefined,
      { payloadBudgetBytes: 30_000 },
    );
    await executor.runSlices(plan, slices, scope);
    expect(inputs).toEqual([
      {
        plan: JSON.parse(JSON.stringify(plan)),
        scope,
        inlineLimitBytes: 10_000,
        slices: slices.map(({ from, to }) => ({ from, to })),
      },
    ]);
  });

  test('gives back exactly what the engine gave for each slice, inline or through the store', async () => {
    // Prepare: a day of 24 hourly counts 1..24 encodes to 209 bytes. A 300-byte budget gives each of the
    // 3 slices 100 bytes, raised to the 200 a stored reference may take: still too small, so all are stored.
    const store = memorySliceStore();
    const worker = createSliceWorker({ engine: () => engine, store: () => store });
    const inline = new StepFunctionsSliceExecutor(mapState(worker), store);
    const stored = new StepFunctionsSliceExecutor(mapState(worker), store, { payloadBudgetBytes: 300 });
    const expected = await Promise.all(slices.map((s) => engine.run(s.plan, scope)));
    // Act / Assess
    await expect(inline.runSlices(plan, slices, scope)).resolves.toEqual(expected);
    expect(store.objects.size).toBe(0);
    await expect(stored.runSlices(plan, slices, scope)).resolves.toEqual(expected);
    expect(store.objects.size).toBe(3);
  });

  test('fails with the failed slice’s own problem (422 with its limit), carried in the Lambda error envelope', async () => {
    const refusing: ReportEngine = {
      maxBuckets: 65_535,
      run: async () => Promise.reject(new TooManyBucketsError(2000)),
    };
    const executor = new StepFunctionsSliceExecutor(
      mapState(createSliceWorker({ engine: () => refusing, store: () => undefined })),
      undefined,
    );
    const attempt = executor.runSlices(plan, slices, scope);
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({
      status: 422,
      slug: 'too-many-buckets',
      extensions: { maxBuckets: 2000 },
    });
  });

  test('fails with 503 when a large result cannot be stored', async () => {
    const broken = { put: async () => Promise.reject(new Error('AccessDenied')), get: async () => '' };
    const executor = new StepFunctionsSliceExecutor(
      mapState(createSliceWorker({ engine: () => engine, store: () => broken })),
      broken,
      { payloadBudgetBytes: 1 },
    );
    await expect(executor.runSlices(plan, slices, scope)).rejects.toMatchObject({
      status: 503,
      slug: 'engine-unavailable',
    });
  });

  test('answers 503 with Retry-After when the execution timed out', async () => {
    const executor = new StepFunctionsSliceExecutor(async () => ({ status: 'TIMED_OUT' }), undefined);
    await expect(executor.runSlices(plan, slices, scope)).rejects.toMatchObject({
      status: 503,
      headers: { 'Retry-After': '5' },
    });
  });
});

describe('failureOf', () => {
  test('keeps the status, type, detail and Retry-After of a 503 slice', () => {
    const problem = {
      status: 503,
      slug: 'engine-unavailable',
      title: 'Service unavailable',
      detail: 'busy',
      headers: { 'Retry-After': '5' },
      extensions: {},
    };
    const error = failureOf({
      status: 'FAILED',
      error: 'SliceError',
      cause: JSON.stringify({ errorType: 'SliceError', errorMessage: JSON.stringify(problem) }),
    });
    expect(error.toProblem()).toEqual({
      type: '/problems#engine-unavailable',
      title: 'Service unavailable',
      status: 503,
      detail: 'busy',
    });
    expect(error.headers).toEqual({ 'Retry-After': '5' });
  });

  test('turns Lambda throttling into 503 and anything unknown into a 500 without internals', () => {
    expect(
      failureOf({ status: 'FAILED', error: 'Lambda.TooManyRequestsException', cause: 'Rate exceeded' }).status,
    ).toBe(503);
    expect(
      failureOf({ status: 'FAILED', error: 'States.Runtime', cause: 'secret internals' }).toProblem(),
    ).toMatchObject({ status: 500, detail: 'An unexpected error occurred.' });
  });
});
