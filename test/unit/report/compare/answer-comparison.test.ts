import type { AggResult, EngineResult, ReportEngine } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import type { ReportPlan } from '#shared/report/plan/plan';
import { answerReport } from '#shared/report/query-report';
import { csvSize } from '#shared/report/render/csv';
import { shapeComparison } from '#shared/report/shape/comparison';
import { periodsOf } from '#shared/report/compare/periods';

/**
 * A `compare` report from its plan to its body, on an engine that answers each period from a table
 * (what the engines answer is the conformance suite's business): the pairing, the JSON and CSV
 * shapes, and the bucket bound counting both periods (the 400s: build-plan.test.ts).
 */
const scope = { organizationId: 'org-a' };
const H = 3_600_000;
const MAR_7 = Date.UTC(2024, 2, 7);
const MAR_14 = Date.UTC(2024, 2, 14);

/** Hourly buckets from `start`, each with the terms counts given (`{}`: an empty bucket). */
function hours(start: number, counts: readonly Record<string, number>[]): AggResult {
  return {
    kind: 'histogram',
    buckets: counts.map((c, i) => {
      const buckets = Object.entries(c).map(([key, count]) => ({ key, count }));
      const count = buckets.reduce((s, b) => s + b.count, 0);
      return { key: start + i * H, count, ...(count > 0 ? { sub: { kind: 'terms' as const, buckets } } : {}) };
    }),
  };
}

/** An engine answering by the period's start; the plans it saw, in order. */
function engineOf(byFrom: ReadonlyMap<number, AggResult>): ReportEngine & { readonly plans: ReportPlan[] } {
  const plans: ReportPlan[] = [];
  return {
    plans,
    maxBuckets: 65_535,
    run: async (plan) => {
      plans.push(plan);
      const root = byFrom.get(plan.timeRange?.from ?? NaN);
      if (!root) throw new Error(`no answer for ${plan.timeRange?.from}`);
      return { root, truncated: false } satisfies EngineResult;
    },
  };
}

const threeHours = (from: number, extra: object = {}) => ({
  source: 'movementEvents',
  filters: [
    { type: 'range', field: 'timestamp', from: new Date(from).toISOString(), to: new Date(from + 3 * H).toISOString() },
  ],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
  compare: { offset: '1w' },
  ...extra,
});

const weeks = new Map([
  [MAR_14, hours(MAR_14, [{ car: 2 }, {}, { person: 1 }])],
  [MAR_7, hours(MAR_7, [{ car: 1 }, { truck: 3 }, {}])],
]);

describe('a compare report', () => {
  test('runs the report, then the week before, and pairs their hours as JSON', async () => {
    // Prepare
    const engine = engineOf(weeks);
    // Act
    const answer = await answerReport(threeHours(MAR_14), scope, engine, 'application/json');
    // Assess
    expect(engine.plans.map((p) => p.timeRange?.from)).toEqual([MAR_14, MAR_7]);
    expect(JSON.parse(answer.body)).toEqual([
      {
        current: { timestamp: '2024-03-14T00:00:00.000Z', car: 2 },
        previous: { timestamp: '2024-03-07T00:00:00.000Z', car: 1 },
      },
      {
        current: { timestamp: '2024-03-14T01:00:00.000Z' },
        previous: { timestamp: '2024-03-07T01:00:00.000Z', truck: 3 },
      },
      {
        current: { timestamp: '2024-03-14T02:00:00.000Z', person: 1 },
        previous: { timestamp: '2024-03-07T02:00:00.000Z' },
      },
    ]);
  });

  test('writes both periods side by side in CSV, with every series of either period', async () => {
    const answer = await answerReport(threeHours(MAR_14), scope, engineOf(weeks), 'text/csv');
    expect(answer.body).toBe(
      'timestamp,car,person,truck,previous timestamp,previous car,previous person,previous truck\r\n' +
        '2024-03-14T00:00:00.000Z,2,0,0,2024-03-07T00:00:00.000Z,1,0,0\r\n' +
        '2024-03-14T01:00:00.000Z,0,0,0,2024-03-07T01:00:00.000Z,0,0,3\r\n' +
        '2024-03-14T02:00:00.000Z,0,1,0,2024-03-07T02:00:00.000Z,0,0,0\r\n',
    );
  });

  test('leaves the cells of a bucket without partner empty, and counts the CSV it would write exactly', async () => {
    // Prepare: the earlier period has a fourth hour (as a 25-hour autumn day has)
    const plan = buildPlan(threeHours(MAR_14));
    const periods = periodsOf(plan);
    const previous = hours(MAR_7, [{ car: 1 }, {}, {}, { '=x': 1 }]);
    // Act
    const model = await shapeComparison(
      periods,
      { root: weeks.get(MAR_14) as AggResult, truncated: false },
      { root: previous, truncated: false },
    );
    const csv = await answerReport(
      threeHours(MAR_14),
      scope,
      engineOf(
        new Map([
          [MAR_14, weeks.get(MAR_14) as AggResult],
          [MAR_7, previous],
        ]),
      ),
      'text/csv',
    );
    // Assess
    expect(csv.body.split('\r\n')).toEqual([
      // '=x' sorts first (code units); escaped where it starts a cell, not after `previous `
      "timestamp,'=x,car,person,previous timestamp,previous =x,previous car,previous person",
      '2024-03-14T00:00:00.000Z,0,2,0,2024-03-07T00:00:00.000Z,0,1,0',
      '2024-03-14T01:00:00.000Z,0,0,0,2024-03-07T01:00:00.000Z,0,0,0',
      '2024-03-14T02:00:00.000Z,0,0,1,2024-03-07T02:00:00.000Z,0,0,0',
      ',,,,2024-03-07T03:00:00.000Z,1,0,0',
      '',
    ]);
    expect(csvSize(model)).toEqual({
      bytes: Buffer.byteLength(csv.body),
      jsonStringBytes: Buffer.byteLength(JSON.stringify(csv.body)),
    });
  });

  test('counts both periods toward the buckets one answer may hold: each fits alone, not together', async () => {
    // Prepare: each period holds 3 hours and 2 terms buckets, 5; the answer may hold 8
    const options = { maxAnswerBuckets: 8 };
    // Act / Assess
    await expect(
      answerReport({ ...threeHours(MAR_14), compare: undefined }, scope, engineOf(weeks), 'application/json', options),
    ).resolves.toBeDefined();
    await expect(
      answerReport(threeHours(MAR_14), scope, engineOf(weeks), 'application/json', options),
    ).rejects.toMatchObject({ status: 422, slug: 'too-many-buckets', extensions: { maxAnswerBuckets: 8 } });
  });

  test("counts the report's own period toward the slices of the earlier one when split", async () => {
    // Prepare: hourly slices, the same hours as above: 5 buckets in each period, 8 allowed
    const slices = (start: number, counts: readonly Record<string, number>[]) =>
      counts.map((c, i) => [start + i * H, hours(start + i * H, [c])] as const);
    const engine = engineOf(
      new Map([...slices(MAR_14, [{ car: 2 }, {}, { person: 1 }]), ...slices(MAR_7, [{ car: 1 }, { truck: 3 }, {}])]),
    );
    // Act
    const answer = answerReport(threeHours(MAR_14, { splitInterval: '1h' }), scope, engine, 'application/json', {
      maxAnswerBuckets: 8,
    });
    // Assess
    await expect(answer).rejects.toMatchObject({
      status: 422,
      slug: 'too-many-buckets',
      detail: expect.stringContaining('with the period it is compared with'),
    });
  });
});
