import { compileSearch } from '#shared/stores/opensearch/report/compile';
import { buildPlan } from '#shared/report/plan/build-plan';

const options = { indexPrefix: 't-', limits: { termsCap: 50 } };
const scope = { organizationId: 'org-1' };
const compile = (body: unknown) => compileSearch(buildPlan(body), scope, options);
const march = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' };

describe('compileSearch', () => {
  test('always scopes to the caller’s organization, whatever the body says', () => {
    const request = compile({ locationIds: ['l1', 'l1', 'l2'], aggregations: [{ type: 'terms', field: 'label' }] });
    expect(request.index).toBe('t-movement-events-*');
    expect(request.body?.query).toEqual({
      bool: { filter: [{ term: { organizationId: 'org-1' } }, { terms: { locationId: ['l1', 'l2'] } }] },
    });
  });

  test('asks terms for every key up to the cap, ordered by key, so answers are deterministic', () => {
    expect(compile({ aggregations: [{ type: 'terms', field: 'label' }] }).body?.aggs).toEqual({
      s0: { terms: { field: 'label', size: 50, min_doc_count: 1, order: { _key: 'asc' } } },
    });
  });

  test('spans the histogram over the half-open range with empty buckets', () => {
    const aggs = compile({
      filters: [march],
      aggregations: [
        { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' },
        { type: 'terms', field: 'label' },
      ],
    }).body?.aggs;
    expect(aggs?.s0).toMatchObject({
      date_histogram: {
        field: 'timestamp',
        calendar_interval: '1d',
        time_zone: 'Europe/Berlin',
        min_doc_count: 0,
        extended_bounds: { min: Date.UTC(2024, 2, 1), max: Date.UTC(2024, 3, 1) - 1 },
      },
    });
  });

  test('sends fixed intervals in milliseconds and calendar ones by unit', () => {
    const histogram = (interval: string) =>
      (
        compile({ source: 'movementEvents', aggregations: [{ type: 'dateHistogram', interval }] }).body!.aggs!.s0 as {
          date_histogram: object;
        }
      ).date_histogram;
    expect(histogram('15m')).toMatchObject({ fixed_interval: '900000ms' });
    expect(histogram('1w')).toMatchObject({ calendar_interval: '1w' });
    expect(histogram('1q')).toMatchObject({ calendar_interval: '1q' });
    expect(histogram('1d')).not.toHaveProperty('extended_bounds');
  });

  test('turns nestedFilters into a nested query and an item filter under the nested aggregation', () => {
    const request = compile({
      nestedFilters: [
        { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['north'] }] },
      ],
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
      ],
    });
    const north = { bool: { filter: [{ terms: { 'crossedPaths.id': ['north'] } }] } };
    expect(request.body?.query?.bool?.filter).toContainEqual({ nested: { path: 'crossedPaths', query: north } });
    expect(request.body?.aggs?.s0).toEqual({
      nested: { path: 'crossedPaths' },
      aggs: {
        s0i: {
          filter: north,
          aggs: { s1: { terms: { field: 'crossedPaths.end', size: 50, min_doc_count: 1, order: { _key: 'asc' } } } },
        },
      },
    });
  });

  test('compiles numeric ranges without a date format and never fails partially', () => {
    const request = compile({
      source: 'parkingEvents',
      filters: [{ type: 'range', field: 'duration', from: 60 }],
      aggregations: [{ type: 'stats', field: 'duration' }],
    });
    expect(request.body?.query?.bool?.filter).toContainEqual({ range: { duration: { gte: 60 } } });
    expect(request.allow_partial_search_results).toBe(false);
    expect(request.body?.aggs?.s0).toEqual({ stats: { field: 'duration' } });
  });

  test('sends the time left as the search timeout, whole milliseconds and at least one, none without a deadline', () => {
    const body = { aggregations: [{ type: 'terms', field: 'label' }] };
    expect(compileSearch(buildPlan(body), scope, { ...options, timeoutMs: 1234.9 }).body).toMatchObject({
      timeout: '1234ms',
    });
    expect(compileSearch(buildPlan(body), scope, { ...options, timeoutMs: 0 }).body).toMatchObject({ timeout: '1ms' });
    expect(compile(body).body).not.toHaveProperty('timeout');
  });

  test('sends range bounds finer than a millisecond rounded up, so that [from, to) holds the documents it means', () => {
    const range = {
      type: 'range',
      field: 'timestamp',
      from: '2024-03-01T12:00:00.0005Z',
      to: '2024-03-01T13:00:00.0000001Z',
    };
    const request = compile({ filters: [range], aggregations: [{ type: 'terms', field: 'label' }] });
    const noon = Date.UTC(2024, 2, 1, 12);
    expect(request.body?.query?.bool?.filter).toContainEqual({
      range: { timestamp: { gte: noon + 1, lt: noon + 3_600_001, format: 'epoch_millis' } },
    });
  });
});
