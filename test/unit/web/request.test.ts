import {
  buildRequest,
  controlFor,
  estimateBuckets,
  type ReportForm,
  SPLIT_OFFER_BUCKETS,
} from '../../../web/src/model/request';

const base: ReportForm = {
  locationIds: ['berlin-mall'],
  source: 'movementEvents',
  firstDay: '2026-03-28',
  lastDay: '2026-03-29',
  overTime: true,
  interval: '1h',
  timeZone: 'Europe/Berlin',
  breakdown: 'label',
  statsField: '',
  stats: [],
  split: false,
};

describe('the report request the explorer builds from its form', () => {
  test('turns the days into the half-open range of the zone, across the change to summer time', () => {
    // Prepare: Berlin moves from +01:00 to +02:00 on 2026-03-29 at 02:00.
    // Act
    const { request, stats } = buildRequest(base);
    // Assess
    expect(request).toEqual({
      source: 'movementEvents',
      locationIds: ['berlin-mall'],
      filters: [
        { type: 'range', field: 'timestamp', from: '2026-03-28T00:00:00+01:00', to: '2026-03-30T00:00:00+02:00' },
      ],
      aggregations: [
        { type: 'dateHistogram', interval: '1h', timeZone: 'Europe/Berlin' },
        { type: 'terms', field: 'label' },
      ],
    });
    expect(stats).toBe(false);
  });

  // The day's range as worked out by hand from the zone's rules, one row per case:
  // - Auckland leaves summer time (+13:00 → +12:00) at 03:00 on Sunday 2026-04-05; midnight is still +13:00.
  // - São Paulo went from -03:00 to -02:00 at midnight on 2018-11-04: that day began at 01:00 local, 03:00 UTC.
  test.each([
    [
      'starts a day at its own midnight when the offset at that hour of UTC is another one',
      'Pacific/Auckland',
      '2026-04-05',
      '2026-04-05T00:00:00+13:00',
      '2026-04-06T00:00:00+12:00',
    ],
    [
      'starts a day whose midnight is skipped at the instant the clocks jump',
      'America/Sao_Paulo',
      '2018-11-04',
      '2018-11-04T01:00:00-02:00',
      '2018-11-05T00:00:00-02:00',
    ],
  ])('%s (%s)', (_title, timeZone, day, from, to) => {
    const { request } = buildRequest({ ...base, firstDay: day, lastDay: day, timeZone });
    expect(request.filters).toEqual([{ type: 'range', field: 'timestamp', from, to }]);
  });

  test('steps out of the breakdown’s nested items into the stats field’s, and names only the stats asked for', () => {
    const { request, pointers, stats } = buildRequest({
      ...base,
      breakdown: 'crossedPaths',
      statsField: 'polygons.value',
      stats: ['max', 'avg'],
    });
    expect(request.aggregations).toEqual([
      { type: 'dateHistogram', interval: '1h', timeZone: 'Europe/Berlin' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
      { type: 'reverseNested' },
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', min: false, max: true, avg: true, sum: false, count: false },
    ]);
    expect(stats).toBe(true);
    expect(controlFor(pointers, '/aggregations/3/field')).toBe('breakdown');
    expect(controlFor(pointers, '/aggregations/4')).toBe('statsField');
    expect(controlFor(pointers, '/aggregations/6/field')).toBe('statsField');
  });

  test('asks for the average when no stat is ticked, without a nested step for a field of the document', () => {
    const { request } = buildRequest({
      ...base,
      source: 'parkingLotStats',
      overTime: false,
      breakdown: '',
      statsField: 'occupied',
      stats: [],
    });
    expect(request.aggregations).toEqual([
      { type: 'stats', field: 'occupied', min: false, max: false, avg: true, sum: false, count: false },
    ]);
  });

  test('counts the whole range with one filter stage when there is neither a time axis nor a breakdown, and never splits it', () => {
    const { request, pointers } = buildRequest({
      ...base,
      locationIds: [],
      overTime: false,
      breakdown: '',
      split: true,
    });
    expect(request).toEqual({
      source: 'movementEvents',
      filters: [
        { type: 'range', field: 'timestamp', from: '2026-03-28T00:00:00+01:00', to: '2026-03-30T00:00:00+02:00' },
      ],
      aggregations: [
        {
          type: 'filter',
          filter: {
            type: 'range',
            field: 'timestamp',
            from: '2026-03-28T00:00:00+01:00',
            to: '2026-03-30T00:00:00+02:00',
          },
        },
      ],
    });
    expect(controlFor(pointers, '/aggregations/0/filter/from')).toBe('breakdown');
  });

  test('asks for splitInterval auto for a time series when the split option is on', () => {
    expect(buildRequest({ ...base, split: true }).request.splitInterval).toBe('auto');
  });

  test('sends each JSON Pointer of a problem to the control that made that part, the longest prefix winning', () => {
    const { pointers } = buildRequest(base);
    expect(
      [
        '/locationIds/0',
        '/source',
        '/filters/0',
        '/filters/0/from',
        '/filters/0/to',
        '/aggregations/0/interval',
        '/aggregations/0/timeZone',
        '/aggregations/1/field',
        '/splitInterval',
        '/nestedFilters/0',
        '',
      ].map((p) => controlFor(pointers, p)),
    ).toEqual([
      'locations',
      'source',
      'firstDay',
      'firstDay',
      'lastDay',
      'interval',
      'timeZone',
      'breakdown',
      'split',
      undefined,
      undefined,
    ]);
    // A prefix matches whole pointer tokens only.
    expect(controlFor(pointers, '/sourceX')).toBeUndefined();
  });
});

describe('the bucket estimate that decides when to offer splitInterval auto', () => {
  const day = 86_400_000;
  test('counts fixed intervals exactly and calendar ones roughly', () => {
    expect(estimateBuckets('15m', 0, 200 * day)).toBe(19_200);
    expect(estimateBuckets('1h', 0, 7 * day)).toBe(168);
    expect(estimateBuckets('1M', 0, 365 * day)).toBe(12);
  });
  test('has no estimate for an interval it cannot read or an empty range', () => {
    expect(estimateBuckets('7x', 0, day)).toBeUndefined();
    expect(estimateBuckets('1h', day, day)).toBeUndefined();
  });
  test('offers slices beyond the service’s auto slice size', () => {
    expect(SPLIT_OFFER_BUCKETS).toBe(16_384);
  });
});
