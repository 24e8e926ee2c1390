import { TooManyBucketsError } from '#shared/errors';
import { AnswerBucketsError } from '#shared/report/bucket-limit';
import type { EngineResult, ReportEngine, Scope } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import type { ReportPlan } from '#shared/report/plan/plan';
import { answerReport } from '#shared/report/query-report';
import { AnswerBudget } from '#shared/report/split/answer-budget';
import { planSlices } from '#shared/report/split/plan-slices';
import { inProcessSliceExecutor, runSplit } from '#shared/report/split/run-split';
import { memorySliceStore } from '../../../functions/commons/split/slice-store';
import {
  StepFunctionsSliceExecutor,
  type StartSyncExecution,
} from '../../../functions/commons/split/step-functions-executor';
import { createSliceWorker } from '../../../functions/run-report-slice';

/**
 * The answer of a split report is bounded as a whole: from the request before any slice runs (time
 * buckets × the filters buckets under them), and from the slices' results as they come back (terms
 * keys), at MAX_ANSWER_BUCKETS (262,140) whatever the engine, on every executor.
 */
const H = 3_600_000;
const scope: Scope = { organizationId: 'org-a' };

/** Every hour of the plan's range, with `labels` terms buckets under it; records the plans it ran. */
class LabelsEngine implements ReportEngine {
  readonly plans: ReportPlan[] = [];
  constructor(
    private readonly labels: number,
    readonly maxBuckets = 65_535,
  ) {}

  async run(plan: ReportPlan): Promise<EngineResult> {
    this.plans.push(plan);
    const buckets = [];
    for (let key = plan.timeRange?.from ?? 0; key < (plan.timeRange?.to ?? 0); key += H) {
      buckets.push({
        key,
        count: this.labels,
        sub: {
          kind: 'terms' as const,
          buckets: Array.from({ length: this.labels }, (_, i) => ({ key: `l${i}`, count: 1 })),
        },
      });
    }
    return { root: { kind: 'histogram', buckets }, truncated: false };
  }
}

const fineHistogram = (days: number) => ({
  source: 'movementEvents',
  splitInterval: '2h',
  filters: [
    {
      type: 'range',
      field: 'timestamp',
      from: '2024-05-01T00:00:00Z',
      to: new Date(Date.UTC(2024, 4, 1 + days)).toISOString(),
    },
  ],
  aggregations: [
    { type: 'dateHistogram', interval: '1s' },
    { type: 'terms', field: 'label' },
  ],
});

const sixHours = (splitInterval: string) => ({
  source: 'movementEvents',
  splitInterval,
  filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-01-01T06:00:00Z' }],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
});

describe('the whole-answer floor, from the request alone', () => {
  test.each([7, 14, 30])(
    'refuses 1 s × label over %i days split by 2 h before any slice runs, naming the interval and the limit',
    async (days) => {
      // Prepare: 7 days are 604,800 one-second buckets, more than 262,140
      const engine = new LabelsEngine(4);
      // Act
      const error = await answerReport(fineHistogram(days), scope, engine, 'application/json').catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(AnswerBucketsError);
      expect((error as AnswerBucketsError).toProblem()).toMatchObject({
        status: 422,
        maxAnswerBuckets: 262_140,
        errors: [
          {
            path: '/aggregations/0/interval',
            message: `"1s" makes ${(days * 86_400).toLocaleString('en')} time buckets over the time range; at most 262,140 fit in one answer`,
          },
        ],
      });
      expect((error as AnswerBucketsError).detail).toContain(
        `Its ${(days * 86_400).toLocaleString('en')} time buckets make`,
      );
      expect(engine.plans).toEqual([]);
    },
  );

  test('counts the filters buckets under every time bucket', async () => {
    // Prepare: 6 hours × (1 + 2 filters buckets) = 18 > 16; 5 hours make 15
    const body = (to: string) => ({
      ...sixHours('1h'),
      filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to }],
      aggregations: [
        { type: 'dateHistogram', interval: '1h' },
        {
          type: 'filters',
          filters: {
            a: { type: 'terms', field: 'label', values: ['a'] },
            b: { type: 'terms', field: 'label', values: ['b'] },
          },
        },
      ],
    });
    const engine = new LabelsEngine(0, 65_535);
    const options = { maxAnswerBuckets: 16 };
    // Act / Assess
    await expect(
      answerReport(body('2024-01-01T06:00:00Z'), scope, engine, 'application/json', options),
    ).rejects.toThrow(
      "This report's answer would be too large. Its 6 time buckets, each with the 2 buckets of its filters stages under it, make 18 buckets: more than the 16 an answer may hold, however the report is split.",
    );
    expect(engine.plans).toEqual([]);
    await expect(
      answerReport(body('2024-01-01T05:00:00Z'), scope, engine, 'application/json', options),
    ).resolves.toBeDefined();
  });

  test('is runSplit’s own: given the engine’s limit, it refuses before any slice runs, counting a comparison’s other period too', async () => {
    // Prepare: 2 days of 1 s buckets are 172,800, within 262,140; with 2 more days alongside, 345,600 are not.
    const engine = new LabelsEngine(4);
    const run = (alongside?: ReportPlan) =>
      runSplit(buildPlan(fineHistogram(2)), scope, inProcessSliceExecutor(engine), {
        maxBuckets: 65_535,
        maxAnswerBuckets: 262_140,
        ...(alongside ? { alongside } : {}),
      });
    // Act
    const error = await run(buildPlan(fineHistogram(2))).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(AnswerBucketsError);
    expect((error as AnswerBucketsError).detail).toContain('Its 345,600 time buckets make');
    expect(engine.plans).toEqual([]);
  });

  test('refuses in the query function before the Step Functions execution starts', async () => {
    const start = jest.fn<ReturnType<StartSyncExecution>, Parameters<StartSyncExecution>>();
    const executor = new StepFunctionsSliceExecutor(start, memorySliceStore());
    const attempt = answerReport(fineHistogram(7), scope, new LabelsEngine(4, 65_535), 'text/csv', {
      sliceExecutor: () => executor,
    });
    await expect(attempt).rejects.toBeInstanceOf(AnswerBucketsError);
    expect(start).not.toHaveBeenCalled();
  });
});

describe('the whole-answer budget, as the slices come back', () => {
  // 6 hourly slices of 1 + 10 buckets each under a bound of 40: the 4th passes it (44).
  test('stops the in-process pool at the slice that passes it, and runs no slice after', async () => {
    const engine = new LabelsEngine(10);
    const attempt = runSplit(buildPlan(sixHours('1h')), scope, inProcessSliceExecutor(engine, { concurrency: 1 }), {
      maxAnswerBuckets: 40,
    });
    await expect(attempt).rejects.toBeInstanceOf(AnswerBucketsError);
    await expect(attempt).rejects.toThrow(
      "This report's answer would be too large. Its 6 slices hold more buckets together than the 40 an answer may hold, however the report is split.",
    );
    expect(engine.plans).toHaveLength(4);
  });

  test('is not retried with a finer cut by splitInterval "auto": slices cannot shrink an answer', async () => {
    const engine = new LabelsEngine(10);
    const attempt = runSplit(buildPlan(sixHours('auto')), scope, inProcessSliceExecutor(engine, { concurrency: 1 }), {
      maxAnswerBuckets: 40,
    });
    await expect(attempt).rejects.toBeInstanceOf(AnswerBucketsError);
    // One slice of the 6 hours (66 buckets), refused as the answer's: no second attempt.
    expect(engine.plans).toHaveLength(1);
  });

  test('stops reading the stored results of a Step Functions execution at the slice that passes it', async () => {
    // Prepare: every result stored (a budget of 1 byte), read back one at a time
    const engine = new LabelsEngine(10);
    const store = memorySliceStore();
    const worker = createSliceWorker({ engine: () => engine, store: () => store });
    const start: StartSyncExecution = async (input) => {
      const { slices, ...shared } = JSON.parse(input) as {
        slices: { from: number; to: number }[];
        plan: ReportPlan;
        scope: Scope;
        inlineLimitBytes: number;
      };
      return {
        status: 'SUCCEEDED',
        output: JSON.stringify(await Promise.all(slices.map((slice) => worker({ ...shared, slice })))),
      };
    };
    const reads = jest.spyOn(store, 'get');
    const executor = new StepFunctionsSliceExecutor(start, store, { payloadBudgetBytes: 1, fetchConcurrency: 1 });
    const plan = buildPlan(sixHours('1h'));
    // Act
    const attempt = executor.runSlices(plan, planSlices(plan), scope, { budget: new AnswerBudget(40) });
    // Assess
    await expect(attempt).rejects.toBeInstanceOf(AnswerBucketsError);
    expect(reads).toHaveBeenCalledTimes(4);
  });

  test('lets an answer within it through unchanged', async () => {
    const engine = new LabelsEngine(3);
    const plan = buildPlan(sixHours('1h'));
    // 6 × (1 + 3) = 24 ≤ 40
    const answer = await runSplit(plan, scope, inProcessSliceExecutor(engine), { maxAnswerBuckets: 40 });
    expect(answer).toEqual(await new LabelsEngine(3).run(plan));
    expect(new AnswerBucketsError(40, '', '')).toBeInstanceOf(TooManyBucketsError);
  });
});
