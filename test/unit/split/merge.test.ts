import type { AggResult, EngineResult, StatsResult } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { renderCsv } from '#shared/report/render/csv';
import { shapeReport } from '#shared/report/shape/model';
import { compensatedSum, mergeResults, mergeStats } from '#shared/report/split/merge';

const stats = (count: number, min: number | null, max: number | null, sum: number): StatsResult => ({
  kind: 'stats',
  count,
  min,
  max,
  sum,
});
const hist = (...buckets: { key: number; count: number; sub?: AggResult }[]): AggResult => ({
  kind: 'histogram',
  buckets,
});
const result = (root: AggResult, truncated = false): EngineResult => ({ root, truncated });
const H = 3_600_000;

describe('mergeStats', () => {
  test('adds counts and sums, takes the least min and greatest max, and ignores a slice without values', () => {
    // Prepare: slice 1 saw 3 and 9; slice 2 saw nothing; slice 3 saw 1, 3 and 5.
    const merged = mergeStats([stats(2, 3, 9, 12), stats(0, null, null, 0), stats(3, 1, 5, 9)]);
    // Assess: 5 values, min 1, max 9, sum 12 + 9 = 21.
    expect(merged).toEqual(stats(5, 1, 9, 21));
  });

  test('keeps min and max null when no slice saw a value', () => {
    expect(mergeStats([stats(0, null, null, 0), stats(0, null, null, 0)])).toEqual(stats(0, null, null, 0));
  });

  test('sums with compensation: 1e16 + 1 − 1e16 is 1, where a plain sum gives 0', () => {
    expect(1e16 + 1 - 1e16).toBe(0);
    expect(compensatedSum([1e16, 1, -1e16])).toBe(1);
  });
});

describe('mergeResults', () => {
  test('concatenates histogram buckets of consecutive slices in time order', () => {
    const merged = mergeResults([
      result(hist({ key: 2 * H, count: 1 }, { key: 3 * H, count: 0 })),
      result(hist({ key: 0, count: 4 }, { key: H, count: 2 })),
    ]);
    expect(merged.root).toEqual(
      hist({ key: 0, count: 4 }, { key: H, count: 2 }, { key: 2 * H, count: 1 }, { key: 3 * H, count: 0 }),
    );
  });

  test('sums a histogram bucket that two slices share, merging its terms by key', () => {
    // Prepare: the bucket at 0 is in both slices: car 2 + 1, person 1, truck 4.
    const a = hist({
      key: 0,
      count: 3,
      sub: {
        kind: 'terms',
        buckets: [
          { key: 'car', count: 2 },
          { key: 'person', count: 1 },
        ],
      },
    });
    const b = hist({
      key: 0,
      count: 5,
      sub: {
        kind: 'terms',
        buckets: [
          { key: 'car', count: 1 },
          { key: 'truck', count: 4 },
        ],
      },
    });
    // Act
    const merged = mergeResults([result(a), result(b)]);
    // Assess
    expect(merged.root).toEqual(
      hist({
        key: 0,
        count: 8,
        sub: {
          kind: 'terms',
          buckets: [
            { key: 'car', count: 3 },
            { key: 'person', count: 1 },
            { key: 'truck', count: 4 },
          ],
        },
      }),
    );
  });

  test('merges filters buckets by name in request order and single buckets by count', () => {
    const filters = (north: number, south: number): AggResult => ({
      kind: 'filters',
      buckets: [
        { key: 'north', count: north, sub: { kind: 'single', count: north * 2 } },
        { key: 'south', count: south, sub: { kind: 'single', count: south * 2 } },
      ],
    });
    const merged = mergeResults([
      result(hist({ key: 0, count: 1, sub: filters(1, 0) })),
      result(hist({ key: 0, count: 2, sub: filters(0, 2) })),
    ]);
    expect(merged.root).toEqual(hist({ key: 0, count: 3, sub: filters(1, 2) }));
  });

  test('is truncated when any slice is', () => {
    expect(mergeResults([result(hist(), false), result(hist(), true), result(hist(), false)]).truncated).toBe(true);
    expect(mergeResults([result(hist(), false), result(hist(), false)]).truncated).toBe(false);
  });

  test('gives an empty histogram for no slice at all', () => {
    expect(mergeResults([])).toEqual({ root: hist(), truncated: false });
  });

  test('refuses to merge results of different kinds (a bug, never a silent answer)', () => {
    expect(() => mergeResults([result(hist()), result({ kind: 'single', count: 1 })])).toThrow(
      /cannot merge a single result into a histogram result/,
    );
  });
});

describe('a merged report, shaped and rendered', () => {
  const plan = buildPlan({
    source: 'parkingLotStats',
    filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-01-01T02:00:00Z' }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'stats', field: 'occupied', min: true, max: true, avg: true, sum: true, count: true },
    ],
    splitInterval: '1h',
  });

  test('derives avg as merged sum ÷ merged count (21 ÷ 5 = 4.2), never the average of slice averages (4.5)', async () => {
    // Prepare: one daily bucket shared by two slices (as if a cut had fallen inside it): values 3, 9 | 1, 3, 5.
    const slices = [
      result(hist({ key: 0, count: 2, sub: stats(2, 3, 9, 12) })),
      result(hist({ key: 0, count: 3, sub: stats(3, 1, 5, 9) })),
    ];
    // Act
    const csv = await renderCsv(await shapeReport(plan, mergeResults(slices)));
    // Assess: slice averages are 6 and 3, whose mean 4.5 would be wrong.
    expect(csv).toBe('timestamp,min,max,avg,sum,count\r\n1970-01-01T00:00:00.000Z,1,9,4.2,21,5\r\n');
  });
});
