import type { AggResult, EngineResult } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { csvSize, renderCsv } from '#shared/report/render/csv';
import { renderJson } from '#shared/report/render/json';
import { shapeReport } from '#shared/report/shape/model';

const T0 = Date.UTC(2024, 2, 1);
const T1 = Date.UTC(2024, 2, 2);
const result = (root: AggResult): EngineResult => ({ root, truncated: false });
const json = async (body: unknown, root: AggResult): Promise<unknown> =>
  JSON.parse(await renderJson(await shapeReport(buildPlan(body), result(root))));
const csv = async (body: unknown, root: AggResult): Promise<string> =>
  renderCsv(await shapeReport(buildPlan(body), result(root)));

const nestedDirections = {
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'nested', path: 'crossedPaths' },
    { type: 'terms', field: 'crossedPaths.end' },
    { type: 'terms', field: 'crossedPaths.id', keyJoiner: '_' },
  ],
};
/** Day 1: north A 2, north B 1, south A 4. Day 2: nothing. */
const directionsTree: AggResult = {
  kind: 'histogram',
  buckets: [
    {
      key: T0,
      count: 5,
      sub: {
        kind: 'single',
        count: 7,
        sub: {
          kind: 'terms',
          buckets: [
            { key: 'B', count: 1, sub: { kind: 'terms', buckets: [{ key: 'north', count: 1 }] } },
            {
              key: 'A',
              count: 6,
              sub: {
                kind: 'terms',
                buckets: [
                  { key: 'south', count: 4 },
                  { key: 'north', count: 2 },
                ],
              },
            },
          ],
        },
      },
    },
    { key: T1, count: 0, sub: { kind: 'single', count: 0, sub: { kind: 'terms', buckets: [] } } },
  ],
};

describe('shapeReport: histogram shape', () => {
  test('names series by their key parts with the direction last, joined by each part’s keyJoiner', async () => {
    // Prepare / Act
    const rows = await json(nestedDirections, directionsTree);
    // Assess: direction A sorts before B; within A, north before south; "north" + "_" + "A".
    expect(rows).toEqual([
      { timestamp: '2024-03-01T00:00:00.000Z', north_A: 2, south_A: 4, north_B: 1 },
      { timestamp: '2024-03-02T00:00:00.000Z' },
    ]);
  });

  test('writes CSV with every series as a column and absent counts as 0', async () => {
    expect(await csv(nestedDirections, directionsTree)).toBe(
      'timestamp,north_A,south_A,north_B\r\n2024-03-01T00:00:00.000Z,2,4,1\r\n2024-03-02T00:00:00.000Z,0,0,0\r\n',
    );
  });

  test('names the only series count when nothing below the histogram makes a part', async () => {
    const body = { source: 'movementEvents', aggregations: [{ type: 'dateHistogram', interval: '1d' }] };
    const tree: AggResult = {
      kind: 'histogram',
      buckets: [
        { key: T0, count: 3 },
        { key: T1, count: 0 },
      ],
    };
    expect(await json(body, tree)).toEqual([
      { timestamp: '2024-03-01T00:00:00.000Z', count: 3 },
      { timestamp: '2024-03-02T00:00:00.000Z' },
    ]);
    expect(await csv(body, tree)).toBe(
      'timestamp,count\r\n2024-03-01T00:00:00.000Z,3\r\n2024-03-02T00:00:00.000Z,0\r\n',
    );
  });

  test('leaves an absent stat empty in CSV, and leaves out an average of nothing', async () => {
    const body = {
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'nested', path: 'polygons' },
        { type: 'stats', field: 'polygons.value', sum: true },
      ],
    };
    const tree: AggResult = {
      kind: 'histogram',
      buckets: [
        {
          key: T0,
          count: 2,
          sub: { kind: 'single', count: 4, sub: { kind: 'stats', count: 4, min: 1, max: 5, sum: 10 } },
        },
        {
          key: T1,
          count: 0,
          sub: { kind: 'single', count: 0, sub: { kind: 'stats', count: 0, min: null, max: null, sum: 0 } },
        },
      ],
    };
    expect(await json(body, tree)).toEqual([
      { timestamp: '2024-03-01T00:00:00.000Z', avg: 2.5, sum: 10 },
      { timestamp: '2024-03-02T00:00:00.000Z', sum: 0 },
    ]);
    expect(await csv(body, tree)).toBe(
      'timestamp,avg,sum\r\n2024-03-01T00:00:00.000Z,2.5,10\r\n2024-03-02T00:00:00.000Z,,0\r\n',
    );
  });
});

describe('shapeReport: object shape', () => {
  test('names stats by key part then stat, in the spec’s stat order', async () => {
    const body = {
      aggregations: [
        { type: 'nested', path: 'polygons' },
        { type: 'terms', field: 'polygons.id', keyJoiner: ':' },
        { type: 'stats', field: 'polygons.value', sum: true, min: true },
      ],
    };
    const tree: AggResult = {
      kind: 'single',
      count: 3,
      sub: {
        kind: 'terms',
        buckets: [
          { key: 'zoneB', count: 1, sub: { kind: 'stats', count: 1, min: 7, max: 7, sum: 7 } },
          { key: 'zoneA', count: 2, sub: { kind: 'stats', count: 2, min: 1, max: 2, sum: 3 } },
        ],
      },
    };
    const body2 = await renderJson(await shapeReport(buildPlan(body), result(tree)));
    expect(body2).toBe('{"zoneA:min":1,"zoneA:avg":1.5,"zoneA:sum":3,"zoneB:min":7,"zoneB:avg":7,"zoneB:sum":7}');
    expect(await csv(body, tree)).toBe(
      'zoneA:min,zoneA:avg,zoneA:sum,zoneB:min,zoneB:avg,zoneB:sum\r\n1,1.5,3,7,7,7\r\n',
    );
  });

  test('keeps filters buckets in request order, with zero counts', async () => {
    const body = {
      aggregations: [
        {
          type: 'filters',
          filters: {
            trucks: { type: 'terms', field: 'label', values: ['truck'] },
            cars: { type: 'terms', field: 'label', values: ['car'] },
          },
        },
      ],
    };
    const tree: AggResult = {
      kind: 'filters',
      buckets: [
        { key: 'trucks', count: 0 },
        { key: 'cars', count: 4 },
      ],
    };
    expect(await renderJson(await shapeReport(buildPlan(body), result(tree)))).toBe('{"trucks":0,"cars":4}');
  });

  test('names a lone count and a lone stat by themselves', async () => {
    expect(
      await json(
        {
          source: 'movementEvents',
          aggregations: [{ type: 'filter', filter: { type: 'terms', field: 'label', values: ['car'] } }],
        },
        { kind: 'single', count: 9 },
      ),
    ).toEqual({ count: 9 });
    expect(
      await json(
        { aggregations: [{ type: 'stats', field: 'duration', max: true }] },
        { kind: 'stats', count: 2, min: 3, max: 8, sum: 11 },
      ),
    ).toEqual({ max: 8, avg: 5.5 });
  });

  test('adds up counts of series whose names collide', async () => {
    const body = {
      aggregations: [
        { type: 'terms', field: 'label', keyJoiner: '' },
        { type: 'terms', field: 'trackingCameraId' },
      ],
    };
    const tree: AggResult = {
      kind: 'terms',
      buckets: [
        { key: 'a', count: 1, sub: { kind: 'terms', buckets: [{ key: 'bc', count: 1 }] } },
        { key: 'ab', count: 2, sub: { kind: 'terms', buckets: [{ key: 'c', count: 2 }] } },
      ],
    };
    expect(await json(body, tree)).toEqual({ abc: 3 });
  });
});

describe('renderCsv', () => {
  const daily = { source: 'movementEvents', aggregations: [{ type: 'dateHistogram', interval: '1d' }] };
  const days: AggResult = {
    kind: 'histogram',
    buckets: [
      { key: T0, count: 3 },
      { key: T1, count: 0 },
    ],
  };

  test('writes each bucket’s start on the local clock beside the UTC one when given the report’s zone', async () => {
    const model = await shapeReport(buildPlan(daily), result(days));
    // Kolkata is UTC+05:30 all year: 00:00Z is 05:30 there.
    expect(await renderCsv(model, undefined, 'Asia/Kolkata')).toBe(
      'timestamp,localTime,count\r\n2024-03-01T00:00:00.000Z,2024-03-01T05:30:00+05:30,3\r\n2024-03-02T00:00:00.000Z,2024-03-02T05:30:00+05:30,0\r\n',
    );
    // St. John's, UTC−03:30 in March (before its DST change on the 10th): the previous evening.
    expect((await renderCsv(model, undefined, 'America/St_Johns')).split('\r\n')[1]).toBe(
      '2024-03-01T00:00:00.000Z,2024-02-29T20:30:00-03:30,3',
    );
    expect((await renderCsv(model, undefined, 'UTC')).split('\r\n')[1]).toBe(
      '2024-03-01T00:00:00.000Z,2024-03-01T00:00:00+00:00,3',
    );
  });

  test('names the local column of the earlier period of a comparison too, empty where a bucket has no partner', async () => {
    const model = {
      kind: 'histogramComparison' as const,
      columns: [{ name: 'count', isStat: false }],
      rows: [
        {
          current: { timestamp: T1, values: new Map([['count', 2]]) },
          previous: { timestamp: T0, values: new Map([['count', 1]]) },
        },
        { current: { timestamp: T1 + 86_400_000, values: new Map() } },
      ],
    };
    expect(await renderCsv(model, undefined, 'Europe/Berlin')).toBe(
      'timestamp,localTime,count,previous timestamp,previous localTime,previous count\r\n' +
        '2024-03-02T00:00:00.000Z,2024-03-02T01:00:00+01:00,2,2024-03-01T00:00:00.000Z,2024-03-01T01:00:00+01:00,1\r\n' +
        '2024-03-03T00:00:00.000Z,2024-03-03T01:00:00+01:00,0,,,\r\n',
    );
  });

  test('counts the local column in the size it announces without writing the CSV', async () => {
    const model = await shapeReport(buildPlan(daily), result(days));
    const written = await renderCsv(model, undefined, 'Asia/Kolkata');
    expect(csvSize(model, 'Asia/Kolkata')).toEqual({
      bytes: Buffer.byteLength(written),
      jsonStringBytes: Buffer.byteLength(JSON.stringify(written)),
    });
  });

  test('marks a dateHistogram whose request named a time zone, UTC too, and no other', () => {
    const first = (body: unknown) => buildPlan(body).pipeline[0] as { zoneNamed?: true };
    expect(
      first({ ...daily, aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: 'UTC' }] }).zoneNamed,
    ).toBe(true);
    expect(
      first({ ...daily, aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' }] })
        .zoneNamed,
    ).toBe(true);
    expect(first(daily).zoneNamed).toBeUndefined();
  });

  test('quotes names holding commas, quotes or line breaks (RFC 4180)', async () => {
    const body = { aggregations: [{ type: 'terms', field: 'label' }] };
    const tree: AggResult = {
      kind: 'terms',
      buckets: [
        { key: 'a,b', count: 1 },
        { key: 'say "hi"', count: 2 },
      ],
    };
    expect(await csv(body, tree)).toBe('"a,b","say ""hi"""\r\n1,2\r\n');
  });
});
