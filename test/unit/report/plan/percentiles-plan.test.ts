import { buildPlan } from '#shared/report/plan/build-plan';
import { errorsOf } from './plan-errors';

const durationStats = (extra: Record<string, unknown>) => ({
  source: 'parkingEvents',
  aggregations: [{ type: 'stats', field: 'duration', ...extra }],
});

describe('buildPlan: median and percentiles', () => {
  test('lists median first, then the percentiles in request order, and drops the default avg', () => {
    const plan = buildPlan(durationStats({ median: true, percentiles: [99.9, 10] }));
    expect(plan.pipeline[0]).toMatchObject({
      kind: 'stats',
      stats: [],
      percentiles: [
        { name: 'median', percent: 50 },
        { name: 'p99.9', percent: 99.9 },
        { name: 'p10', percent: 10 },
      ],
    });
  });

  test('keeps the stats asked for beside the percentiles', () => {
    expect(buildPlan(durationStats({ count: true, percentiles: [0, 100] })).pipeline[0]).toMatchObject({
      stats: ['count'],
      percentiles: [{ name: 'p0' }, { name: 'p100' }],
    });
  });

  test('refuses a percent outside 0..100, naming the entry and the range', () => {
    expect(errorsOf(durationStats({ percentiles: [50, 100.5, -1] }))).toEqual([
      { path: '/aggregations/0/percentiles/1', message: 'must be a percent from 0 to 100' },
      { path: '/aggregations/0/percentiles/2', message: 'must be a percent from 0 to 100' },
    ]);
  });

  test('refuses more than 2 decimals and a repeated percent, naming the first', () => {
    expect(errorsOf(durationStats({ percentiles: [99.995, 90, 90] }))).toEqual([
      {
        path: '/aggregations/0/percentiles/0',
        message: 'must be a percent from 0 to 100 with at most 2 decimals, such as 50, 90 or 99.9',
      },
      { path: '/aggregations/0/percentiles/2', message: 'repeats percentiles/1 (90); ask for each percentile once' },
    ]);
  });

  test('refuses 50 beside median, more than 10 and none at all', () => {
    expect(errorsOf(durationStats({ median: true, percentiles: [50] }))).toEqual([
      { path: '/aggregations/0/percentiles/0', message: 'repeats median, which is percentile 50; ask for it once' },
    ]);
    expect(errorsOf(durationStats({ percentiles: Array.from({ length: 11 }, (_, i) => i) }))).toEqual([
      { path: '/aggregations/0/percentiles', message: 'must have at most 10 items' },
    ]);
    expect(errorsOf(durationStats({ median: true, percentiles: Array.from({ length: 10 }, (_, i) => i) }))).toEqual([
      { path: '/aggregations/0/percentiles', message: 'at most 10 percentiles, median included' },
    ]);
    expect(errorsOf(durationStats({ percentiles: [] }))).toEqual([
      { path: '/aggregations/0/percentiles', message: 'must have at least 1 item' },
    ]);
  });

  test('refuses percentiles of a keyword field, listing the number fields', () => {
    const [error] = errorsOf({
      source: 'parkingEvents',
      aggregations: [{ type: 'stats', field: 'spotId', median: true }],
    });
    expect(error?.path).toBe('/aggregations/0/field');
    expect(error?.message).toContain('duration');
  });

  test('refuses median and percentiles with splitInterval', () => {
    const body = {
      source: 'parkingEvents',
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'stats', field: 'duration', median: true },
      ],
      splitInterval: '1w',
    };
    expect(errorsOf(body)).toEqual([
      { path: '/aggregations/1/median', message: expect.stringContaining('not answered with splitInterval') },
    ]);
  });
});
