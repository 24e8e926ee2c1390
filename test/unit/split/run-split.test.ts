import { AppError, EngineUnavailableError, TooManyBucketsError } from '#shared/errors';
import type { AggResult, EngineResult, ReportEngine, Scope } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import type { ReportPlan } from '#shared/report/plan/plan';
import { answerReport, ResponseTooLargeError } from '#shared/report/query-report';
import { runPool } from '#shared/concurrency';
import { inProcessSliceExecutor, runSplit, SliceTooManyBucketsError } from '#shared/report/split/run-split';

const H = 3_600_000;
const scope: Scope = { organizationId: 'org-a' };

/**
 * A tiny reference engine for `dateHistogram 1h (UTC) › terms label` over in-memory documents: every
 * hour of the plan's bounds, labels counted. Enough to see slices run and merge without a node.
 */
class HourlyLabelEngine implements ReportEngine {
  readonly maxBuckets = 65_535;
  readonly plans: ReportPlan[] = [];
  constructor(private readonly docs: readonly { t: number; label: string }[]) {}

  async run(plan: ReportPlan): Promise<EngineResult> {
    this.plans.push(plan);
    const { from = 0, to = 0 } = plan.timeRange ?? {};
    const buckets = [];
    for (let key = Math.floor(from / H) * H; key < to; key += H) {
      const inBucket = this.docs.filter((d) => d.t >= Math.max(key, from) && d.t < Math.min(key + H, to));
      const labels = [...new Set(inBucket.map((d) => d.label))].sort();
      const sub: AggResult = {
        kind: 'terms',
        buckets: labels.map((l) => ({ key: l, count: inBucket.filter((d) => d.label === l).length })),
      };
      buckets.push({ key, count: inBucket.length, sub });
    }
    return { root: { kind: 'histogram', buckets }, truncated: false };
  }
}

const body = (splitInterval?: string) => ({
  filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-01-01T06:00:00Z' }],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
  ...(splitInterval ? { splitInterval } : {}),
});
const t0 = Date.parse('2024-01-01T00:00:00Z');
const docs = [
  { t: t0 + 10 * 60_000, label: 'car' },
  { t: t0 + 70 * 60_000, label: 'car' },
  { t: t0 + 75 * 60_000, label: 'person' },
  { t: t0 + 5 * H + 59 * 60_000, label: 'truck' },
];

describe('runPool', () => {
  test('runs at most `concurrency` tasks at once and keeps results in item order', async () => {
    let running = 0;
    let most = 0;
    const results = await runPool([30, 10, 20, 5, 1], 2, async (ms, i) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i * 10;
    });
    expect(results).toEqual([0, 10, 20, 30, 40]);
    expect(most).toBe(2);
  });

  test('runs one task at a time when the configured concurrency is not a positive number', async () => {
    let running = 0;
    let most = 0;
    const task = async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    await runPool([1, 2, 3], Number('two'), task);
    await runPool([1, 2, 3], 0, task);
    expect(most).toBe(1);
  });

  test('starts nothing after a failure, waits for the running task, and throws the first AppError', async () => {
    // Prepare: item 0 fails with a bug after 5 ms, item 1 with a 503 after 20 ms; items 2-5 must never start.
    const started: number[] = [];
    let settled = 0;
    const task = async (item: string, i: number) => {
      started.push(i);
      await new Promise((r) => setTimeout(r, i === 0 ? 5 : 20));
      settled++;
      if (item === 'bug') throw new Error('bug');
      if (item === 'busy') throw new EngineUnavailableError('busy');
      return item;
    };
    // Act
    const outcome = runPool(['bug', 'busy', 'ok', 'ok', 'ok', 'ok'], 2, task);
    // Assess
    await expect(outcome).rejects.toBeInstanceOf(EngineUnavailableError);
    expect(started).toEqual([0, 1]);
    expect(settled).toBe(2);
  });
});

describe('runSplit with the in-process executor', () => {
  test('runs one engine query per slice and merges them into the unsplit answer', async () => {
    // Prepare: 2h slices of a 6h range: [0,2) [2,4) [4,6).
    const engine = new HourlyLabelEngine(docs);
    // Act
    const split = await runSplit(buildPlan(body('2h')), scope, inProcessSliceExecutor(engine));
    const whole = await new HourlyLabelEngine(docs).run(buildPlan(body()));
    // Assess
    expect(engine.plans.map((p) => [p.timeRange?.from, p.timeRange?.to])).toEqual([
      [t0, t0 + 2 * H],
      [t0 + 2 * H, t0 + 4 * H],
      [t0 + 4 * H, t0 + 6 * H],
    ]);
    expect(split).toEqual(whole);
    expect(split.root.kind === 'histogram' && split.root.buckets.map((b) => b.count)).toEqual([1, 2, 0, 0, 0, 1]);
  });

  test('answers 422 naming the split interval when one slice alone is over the bucket limit', async () => {
    const refusing: ReportEngine = {
      maxBuckets: 65_535,
      run: async () => Promise.reject(new TooManyBucketsError(2000)),
    };
    const attempt = runSplit(buildPlan(body('1d')), scope, inProcessSliceExecutor(refusing));
    await expect(attempt).rejects.toBeInstanceOf(SliceTooManyBucketsError);
    await expect(attempt).rejects.toMatchObject({
      status: 422,
      slug: 'too-many-buckets',
      extensions: { maxBuckets: 2000, splitInterval: '1d' },
    });
    await expect(attempt).rejects.toThrow(/one slice of splitInterval "1d"/);
  });

  test('answers 500 without internals when a slice fails with something that is not an AppError', async () => {
    const broken: ReportEngine = {
      maxBuckets: 65_535,
      run: async () => Promise.reject(new TypeError('x is undefined')),
    };
    await expect(runSplit(buildPlan(body('1h')), scope, inProcessSliceExecutor(broken))).rejects.toMatchObject({
      status: 500,
      detail: 'An unexpected error occurred.',
    });
  });
});

describe('runSplit with splitInterval "auto"', () => {
  /** The reference engine with a bucket limit: histogram buckets plus label buckets of one run. */
  class LimitedEngine extends HourlyLabelEngine {
    constructor(private readonly limit: number) {
      super(docs);
    }

    override async run(plan: ReportPlan): Promise<EngineResult> {
      const result = await super.run(plan);
      const buckets =
        result.root.kind === 'histogram'
          ? result.root.buckets.reduce((n, b) => n + 1 + (b.sub?.kind === 'terms' ? b.sub.buckets.length : 0), 0)
          : 0;
      if (buckets > this.limit) throw new TooManyBucketsError(this.limit);
      return result;
    }
  }
  const ranges = (engine: HourlyLabelEngine) =>
    engine.plans.map((p) => [(p.timeRange!.from! - t0) / H, (p.timeRange!.to! - t0) / H]);

  test('runs a report that fits as one query, unsplit', async () => {
    const engine = new LimitedEngine(100);
    const answer = await runSplit(buildPlan(body('auto')), scope, inProcessSliceExecutor(engine));
    expect(ranges(engine)).toEqual([[0, 6]]);
    expect(answer).toEqual(await new HourlyLabelEngine(docs).run(buildPlan(body())));
  });

  test('cuts four times finer at hour edges after a refusal, and answers exactly what the unsplit report would', async () => {
    // Prepare: the whole 6 h take 6 hour buckets + 4 label buckets = 10 > 5. Four parts cut at 1.5 h, 3 h and 4.5 h,
    // moved down to the hour: [0,1) 2 buckets, [1,3) 4, [3,4) 1, [4,6) 3, each within 5.
    const engine = new LimitedEngine(5);
    // Act
    const answer = await runSplit(buildPlan(body('auto')), scope, inProcessSliceExecutor(engine, { concurrency: 1 }));
    // Assess
    expect(ranges(engine)).toEqual([
      [0, 6],
      [0, 1],
      [1, 3],
      [3, 4],
      [4, 6],
    ]);
    expect(answer).toEqual(await new HourlyLabelEngine(docs).run(buildPlan(body())));
  });

  test('answers 422 once a finer cut adds no slice (one hour bucket per slice), naming how many slices it tried', async () => {
    // Hour 0 alone has 2 buckets (the hour and "car"); 1, 4, then 6 slices (16 parts collapse to 6 hours), then stop.
    const engine = new LimitedEngine(1);
    const attempt = runSplit(buildPlan(body('auto')), scope, inProcessSliceExecutor(engine, { concurrency: 1 }));
    await expect(attempt).rejects.toMatchObject({
      status: 422,
      slug: 'too-many-buckets',
      extensions: { maxBuckets: 1, splitInterval: 'auto' },
    });
    await expect(attempt).rejects.toThrow(
      'Even cut into 6 slices (splitInterval "auto"), one slice would create more buckets than the bucket limit of 1.',
    );
  });

  test('stops at the slice cap', async () => {
    const attempt = runSplit(
      buildPlan(body('auto')),
      scope,
      inProcessSliceExecutor(new LimitedEngine(3), { concurrency: 1, maxSlices: 4 }),
    );
    await expect(attempt).rejects.toThrow(/^Even cut into 4 slices/);
  });

  test('passes other failures through unchanged, without retrying', async () => {
    let runs = 0;
    const busy: ReportEngine = {
      maxBuckets: 65_535,
      run: async () => (runs++, Promise.reject(new EngineUnavailableError('busy'))),
    };
    await expect(runSplit(buildPlan(body('auto')), scope, inProcessSliceExecutor(busy))).rejects.toMatchObject({
      status: 503,
    });
    expect(runs).toBe(1);
  });
});

describe('answerReport', () => {
  test('runs a splitInterval report in slices and renders the same CSV as unsplit', async () => {
    const split = await answerReport(body('1h'), scope, new HourlyLabelEngine(docs), 'text/csv');
    const whole = await answerReport(body(), scope, new HourlyLabelEngine(docs), 'text/csv');
    expect(split.body).toBe(whole.body);
    expect(split.body.split('\r\n').slice(0, 3)).toEqual([
      'timestamp,car,person,truck',
      '2024-01-01T00:00:00.000Z,1,0,0',
      '2024-01-01T01:00:00.000Z,1,1,0',
    ]);
  });

  test('answers 422 with advice rather than a truncated body when the body is over the limit', async () => {
    // Prepare: the 6 JSON rows take 284 bytes, 318 as the JSON string they travel in (34 quotes escaped);
    // the CSV takes 220, 236 as a JSON string (7 CRLFs escaped as \r\n).
    const attempt = answerReport(body(), scope, new HourlyLabelEngine(docs), 'application/json', { maxBodyBytes: 300 });
    await expect(attempt).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(attempt).rejects.toMatchObject({
      status: 422,
      slug: 'response-too-large',
      extensions: { bytes: 318, maxBytes: 300 },
    });
    await expect(attempt).rejects.toThrow(
      'This report would be 318 bytes, more than the 300 bytes a response may carry. Ask for it as CSV (Accept: text/csv, 236 bytes), or narrow',
    );
  });

  test('passes AppErrors of the executor through unchanged', async () => {
    const executor = {
      runSlices: async () => Promise.reject(new AppError(503, 'engine-unavailable', 'Service unavailable', 'busy')),
    };
    await expect(
      answerReport(body('1h'), scope, new HourlyLabelEngine(docs), 'application/json', {
        sliceExecutor: () => executor,
      }),
    ).rejects.toMatchObject({ status: 503, detail: 'busy' });
  });
});
