import { buildPlan } from '#shared/report/plan/build-plan';
import { matchRollup, ROLLUP_GRAIN_MS, ROLLUP_WINDOW } from '#shared/rollups/match';

const HOUR = 3_600_000;
const march = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' } as const;
const day = (timeZone = 'UTC') => ({ type: 'dateHistogram', interval: '1d', timeZone }) as const;
const byLabelAndDirection = [
  day(),
  { type: 'terms', field: 'label' },
  { type: 'nested', path: 'crossedPaths' },
  { type: 'terms', field: 'crossedPaths.end' },
];

/** The decision for a movement events report. */
const decide = (body: Record<string, unknown>, grainMs = ROLLUP_GRAIN_MS) =>
  matchRollup(buildPlan({ source: 'movementEvents', ...body }), grainMs);
const reasonOf = (body: Record<string, unknown>, grainMs = ROLLUP_GRAIN_MS) => {
  const decision = decide(body, grainMs);
  return decision.use === 'raw' ? decision.reason : 'rollup';
};

describe('matchRollup: reports answered from rollups', () => {
  test('the daily × label × direction report, with the range as the window', () => {
    // Prepare / Act
    const decision = decide({ filters: [march], aggregations: byLabelAndDirection });
    // Assess
    expect(decision).toEqual({ use: 'rollup', window: { from: Date.UTC(2024, 2, 1), to: Date.UTC(2024, 3, 1) } });
  });

  test('a range with bounds inside grains: the window is its whole grains (the partial ones read raw)', () => {
    const range = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00.001Z', to: '2024-03-02T10:20:00Z' };
    expect(decide({ filters: [range], aggregations: [day()] })).toEqual({
      use: 'rollup',
      window: { from: Date.UTC(2024, 2, 1, 0, 15), to: Date.UTC(2024, 2, 2, 10, 15) },
    });
  });

  test('no range: the window is the rollups’ whole span', () => {
    expect(decide({ aggregations: [{ type: 'terms', field: 'label' }] })).toEqual({
      use: 'rollup',
      window: ROLLUP_WINDOW,
    });
  });

  test.each([
    'Asia/Kolkata',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/St_Johns',
    'Europe/Berlin',
  ])(
    'days, hours and 45-minute intervals in %s, and its profiles (offsets of :30 and :45 and their DST are on 15-minute grains)',
    (zone) => {
      const aggregations = [
        { type: 'dateHistogram', interval: '45m', timeZone: zone },
        { type: 'profile', unit: 'hour', timeZone: zone },
        { type: 'profile', unit: 'weekday', timeZone: zone },
      ];
      expect(reasonOf({ filters: [march], aggregations: [day(zone)] })).toBe('rollup');
      expect(reasonOf({ filters: [march], aggregations })).toBe('rollup');
    },
  );

  test('calendar months and quarters in a zone with DST over a year', () => {
    const year = { type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' };
    expect(
      reasonOf({
        filters: [year],
        aggregations: [{ type: 'dateHistogram', interval: '1M', timeZone: 'America/New_York' }],
      }),
    ).toBe('rollup');
    expect(
      reasonOf({
        filters: [year],
        aggregations: [{ type: 'dateHistogram', interval: '1q', timeZone: 'Australia/Adelaide' }],
      }),
    ).toBe('rollup');
  });

  test('filters on dimensions, filter stages on whole grains, and exact stats of nested items', () => {
    const body = {
      filters: [march, { type: 'terms', field: 'label', values: ['car'] }],
      locationIds: ['loc-1'],
      aggregations: [
        day(),
        { type: 'filter', filter: { type: 'range', field: 'timestamp', from: '2024-03-02T10:15:00Z' } },
        { type: 'terms', field: 'trackingCameraId' },
        { type: 'nested', path: 'polygons' },
        { type: 'stats', field: 'polygons.value', min: true, max: true, avg: true, sum: true, count: true },
      ],
    };
    expect(reasonOf(body)).toBe('rollup');
  });
});

describe('matchRollup: reports that read raw, with the reason', () => {
  test('a zone whose offset is not a multiple of the grain (hourly grains, India)', () => {
    expect(reasonOf({ filters: [march], aggregations: [day('Asia/Kolkata')] }, HOUR)).toMatch(
      /^Asia\/(Kolkata|Calcutta) has the offset 330 min, not a multiple of the grain$/,
    );
  });

  test('a zone whose offset is on the grain but not over the whole range (hourly grains, Lord Howe: +10:30, DST +11)', () => {
    const winter = { type: 'range', field: 'timestamp', from: '2024-06-01T00:00:00Z', to: '2024-07-01T00:00:00Z' };
    expect(reasonOf({ filters: [winter], aggregations: [day('Australia/Lord_Howe')] }, HOUR)).toContain(
      'not a multiple of the grain',
    );
  });

  test('a DST transition inside a grain (2-hour grains, Troll: +00 and +02, changing at 01:00 UTC)', () => {
    // Before the change the offset is on the grain, and stays so: only the transition is not.
    const before = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-30T00:00:00Z' };
    expect(reasonOf({ filters: [before], aggregations: [day('Antarctica/Troll')] }, 2 * HOUR)).toBe('rollup');
    expect(reasonOf({ filters: [march], aggregations: [day('Antarctica/Troll')] }, 2 * HOUR)).toBe(
      'Antarctica/Troll changes its offset at 2024-03-31T01:00:00.000Z, inside a grain',
    );
  });

  test('an interval that is not a multiple of the grain', () => {
    expect(reasonOf({ filters: [march], aggregations: [{ type: 'dateHistogram', interval: '10m' }] })).toBe(
      'a 10m interval is not a multiple of the grain',
    );
    expect(reasonOf({ filters: [march], aggregations: [{ type: 'dateHistogram', interval: '90m' }] }, HOUR)).toBe(
      'a 90m interval is not a multiple of the grain',
    );
  });

  test('an hour profile from rows coarser than an hour (daily rows), even in UTC; weekdays still read daily rows', () => {
    const hourly = { type: 'profile', unit: 'hour', timeZone: 'UTC' };
    expect(reasonOf({ filters: [march], aggregations: [hourly] }, 24 * HOUR)).toBe(
      'a profile by hour cannot be read from rows of 1440 minutes',
    );
    expect(reasonOf({ filters: [march], aggregations: [hourly] }, HOUR)).toBe('rollup');
    expect(
      reasonOf({ filters: [march], aggregations: [{ type: 'profile', unit: 'weekday', timeZone: 'UTC' }] }, 24 * HOUR),
    ).toBe('rollup');
  });

  test('a range holding no whole grain', () => {
    const short = { type: 'range', field: 'timestamp', from: '2024-03-01T00:01:00Z', to: '2024-03-01T00:14:00Z' };
    expect(reasonOf({ filters: [short], aggregations: [day()] })).toBe('the time range holds no whole grain');
  });

  test('nestedFilters, reverseNested, and a filter on a number', () => {
    const crossing = { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.end', values: ['A'] }] };
    expect(reasonOf({ nestedFilters: [crossing], aggregations: byLabelAndDirection })).toBe(
      'nestedFilters select documents by their items',
    );
    expect(
      reasonOf({
        aggregations: [
          { type: 'nested', path: 'crossedPaths' },
          { type: 'reverseNested' },
          { type: 'terms', field: 'label' },
        ],
      }),
    ).toBe('reverseNested counts each document once per bucket its items reach');
    const value = { type: 'filter', filter: { type: 'range', field: 'polygons.value', from: 10 } };
    expect(reasonOf({ aggregations: [{ type: 'nested', path: 'polygons' }, value] })).toBe(
      'the filter on polygons.value is not on a rollup dimension',
    );
  });

  test('a root range on a number field, and a timestamp filter stage with a bound inside a grain', () => {
    const parking = (body: Record<string, unknown>) => matchRollup(buildPlan({ source: 'parkingEvents', ...body }));
    expect(parking({ filters: [{ type: 'range', field: 'duration', from: 60 }], aggregations: [day()] })).toEqual({
      use: 'raw',
      reason: 'the filter on duration is not on a rollup dimension',
    });
    expect(
      parking({
        filters: [{ type: 'range', field: 'startingTimestamp', from: '2024-03-01T00:00:00Z' }],
        aggregations: [day()],
      }),
    ).toEqual({
      use: 'raw',
      reason: 'the filter on startingTimestamp is not on a rollup dimension',
    });
    const inside = {
      type: 'filters',
      filters: { early: { type: 'range', field: 'timestamp', to: '2024-03-02T10:20:00Z' } },
    };
    expect(reasonOf({ aggregations: [inside] })).toBe('a timestamp range in an aggregation has a bound inside a grain');
  });

  test('percentiles (they do not add up per grain)', () => {
    const body = {
      aggregations: [
        { type: 'nested', path: 'polygons' },
        { type: 'stats', field: 'polygons.value', median: true },
      ],
    };
    expect(reasonOf(body)).toBe('percentiles do not add up per grain');
  });

  test('stats under a filters stage', () => {
    const body = {
      aggregations: [
        { type: 'filters', filters: { cars: { type: 'terms', field: 'label', values: ['car'] } } },
        { type: 'nested', path: 'polygons' },
        { type: 'stats', field: 'polygons.value', sum: true },
      ],
    };
    expect(reasonOf(body)).toBe('stats under a filters stage are summed per document');
  });
});
