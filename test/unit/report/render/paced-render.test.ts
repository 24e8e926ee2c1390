import { ReportTimeoutError } from '#shared/errors';
import { Deadline } from '#shared/report/deadline';
import type { EngineResult, ReportEngine } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { answerReport, ResponseTooLargeError } from '#shared/report/query-report';
import { csvSize, renderCsv } from '#shared/report/render/csv';
import { renderJson } from '#shared/report/render/json';
import type { ReportModel } from '#shared/report/shape/comparison';
import { shapeReport } from '#shared/report/shape/model';

/**
 * What happens after the engine: the CSV size of a report too large as JSON is counted, not written;
 * shaping and rendering let the event loop run and stop at the deadline.
 */
const scope = { organizationId: 'org-a' };
const T0 = Date.UTC(2024, 0, 1);
const M = 60_000;

const histogram = (model: Extract<ReportModel, { kind: 'histogram' }>): ReportModel => model;

/** `minutes` one-minute rows, each with a car count and a person count. */
function minutes(n: number): EngineResult {
  const buckets = Array.from({ length: n }, (_, i) => ({
    key: T0 + i * M,
    count: 3,
    sub: {
      kind: 'terms' as const,
      buckets: [
        { key: 'car', count: 1 + (i % 7) },
        { key: 'person', count: 2 },
      ],
    },
  }));
  return { root: { kind: 'histogram', buckets }, truncated: false };
}
const minutesBody = (n: number) => ({
  source: 'movementEvents',
  filters: [
    { type: 'range', field: 'timestamp', from: new Date(T0).toISOString(), to: new Date(T0 + n * M).toISOString() },
  ],
  aggregations: [
    { type: 'dateHistogram', interval: '1m' },
    { type: 'terms', field: 'label' },
  ],
});
const engineOf = (result: EngineResult): ReportEngine => ({ run: async () => result, maxBuckets: 65_535 });

describe('csvSize', () => {
  test.each<[string, ReportModel]>([
    [
      'counts, absent counts (0), fractional, negative and absent stats',
      histogram({
        kind: 'histogram',
        columns: [
          { name: 'car', isStat: false },
          { name: 'duration avg', isStat: true },
        ],
        rows: [
          {
            timestamp: T0,
            values: new Map([
              ['car', 12],
              ['duration avg', -2.5],
            ]),
          },
          { timestamp: T0 + M, values: new Map() },
          { timestamp: T0 + 2 * M, values: new Map([['duration avg', 1 / 3]]) },
        ],
      }),
    ],
    [
      'names that need quotes, escapes in JSON and formula escapes',
      histogram({
        kind: 'histogram',
        columns: [
          { name: 'say "hi"', isStat: false },
          { name: 'a,b\nc', isStat: false },
          { name: '=cmd', isStat: false },
          { name: 'back\\slash é', isStat: false },
        ],
        rows: [{ timestamp: T0, values: new Map([['=cmd', 1e21]]) }],
      }),
    ],
    ['no rows', histogram({ kind: 'histogram', columns: [], rows: [] })],
    [
      'the object shape',
      {
        kind: 'object',
        entries: [
          ['cars', 4],
          ['"q"', 0.1],
        ],
      },
    ],
  ])('is the size of the CSV renderCsv writes, and of it as a JSON string: %s', async (_, model) => {
    const csv = await renderCsv(model);
    expect(csvSize(model)).toEqual({
      bytes: Buffer.byteLength(csv),
      jsonStringBytes: Buffer.byteLength(JSON.stringify(csv)),
    });
  });
});

describe('answerReport over the response limit', () => {
  test('measures the JSON body alone, and estimates the CSV from the rows', async () => {
    // Prepare: a sender that halves every body (as compression would) and records what it measured
    const measured: string[] = [];
    const sentBytes = async (body: string) => (
      measured.push(body), Math.ceil(Buffer.byteLength(JSON.stringify(body)) / 2)
    );
    // Act
    const error = await answerReport(minutesBody(100), scope, engineOf(minutes(100)), 'application/json', {
      maxBodyBytes: 2_000,
      sentBytes,
    }).catch((e: unknown) => e);
    // Assess: one body measured (the JSON). The CSV: a header of 22 bytes and 100 rows of 30
    // (`2024-01-01T00:00:00.000Z,c,2` and CRLF), 3,022 bytes, 3,226 as a JSON string (2 quotes, 101 CRLFs
    // written \r\n); the JSON (6,803 bytes as a string) went as 3,402, so the CSV as ⌈3,226 × 3,402 / 6,803⌉ = 1,614
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(measured).toHaveLength(1);
    expect(measured[0]?.startsWith('[{"timestamp"')).toBe(true);
    const csv = await renderCsv(await shapeReport(buildPlan(minutesBody(100)), minutes(100)));
    expect(Buffer.byteLength(JSON.stringify(csv))).toBe(3_226);
    expect((error as ResponseTooLargeError).detail).toContain('Ask for it as CSV (Accept: text/csv, 1614 bytes)');
  });
});

describe('shaping and rendering in turns', () => {
  test('answers 503 when the deadline passes after the engine, before the body is rendered', async () => {
    // Prepare: an engine that answers after the deadline (as slices that just made it would)
    const deadline = Deadline.after(5);
    const late: ReportEngine = {
      run: () => new Promise((r) => setTimeout(() => r(minutes(10)), 20)),
      maxBuckets: 65_535,
    };
    // Act / Assess
    await expect(answerReport(minutesBody(10), scope, late, 'text/csv', { deadline })).rejects.toBeInstanceOf(
      ReportTimeoutError,
    );
  });

  test('lets a timer run while 50,000 rows are shaped and rendered as JSON and as CSV', async () => {
    // Prepare: a timer due at once; each step of the work takes far longer than a turn
    const result = minutes(50_000);
    const plan = buildPlan(minutesBody(50_000));
    const ticks: string[] = [];
    const step = async <T>(name: string, work: Promise<T>): Promise<T> => {
      let fired = false;
      const timer = setTimeout(() => (fired = true), 0);
      const value = await work;
      clearTimeout(timer);
      ticks.push(`${name}: ${fired}`);
      return value;
    };
    // Act
    const model = await step('shape', shapeReport(plan, result));
    await step('json', renderJson(model));
    await step('csv', renderCsv(model));
    // Assess
    expect(ticks).toEqual(['shape: true', 'json: true', 'csv: true']);
  });

  test('renders the same text in chunks as in one piece', async () => {
    const model = await shapeReport(buildPlan(minutesBody(1_000)), minutes(1_000));
    const rows = (model as { rows: readonly { timestamp: number; values: ReadonlyMap<string, number> }[] }).rows;
    const whole = JSON.stringify(
      rows.map((r) => ({ timestamp: new Date(r.timestamp).toISOString(), ...Object.fromEntries(r.values) })),
    );
    expect(await renderJson(model)).toBe(whole);
    const csv = await renderCsv(model);
    expect(csv.split('\r\n')).toHaveLength(1_002);
    expect(csv.split('\r\n')[1_000]).toBe('2024-01-01T16:39:00.000Z,6,2');
  });
});
