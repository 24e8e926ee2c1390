import type { FieldError } from '#shared/errors';
import { buildPlan } from '#shared/report/plan/build-plan';
import { errorsOf } from './plan-errors';

const paths = (body: unknown) => errorsOf(body).map((e) => e.path);
const day = { type: 'dateHistogram', interval: '1d' } as const;
const week = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-08T00:00:00Z' } as const;

describe('buildPlan: the collection', () => {
  test('is inferred from the fields when source is absent', () => {
    // Prepare / Act
    const plan = buildPlan({ aggregations: [{ type: 'terms', field: 'label' }] });
    // Assess
    expect(plan.source).toBe('movementEvents');
  });

  test('is inferred from a nested path alone', () => {
    expect(buildPlan({ aggregations: [{ type: 'nested', path: 'polygons' }] }).source).toBe('movementEvents');
  });

  test('is asked for when the fields fit several collections', () => {
    const errors = errorsOf({ aggregations: [{ type: 'terms', field: 'parkingLotId' }] });
    expect(errors).toEqual([{ path: '/source', message: expect.stringContaining('parkingLotStats, parkingEvents') }]);
  });

  test('is asked for when no single collection has every field named', () => {
    expect(
      paths({
        aggregations: [
          { type: 'terms', field: 'spotId' },
          { type: 'terms', field: 'label' },
        ],
      }),
    ).toEqual(['/source']);
  });

  test('comes from source when given, and fields are then checked against it', () => {
    const errors = errorsOf({ source: 'parkingLotStats', aggregations: [{ type: 'terms', field: 'spotId' }] });
    expect(errors).toEqual([
      { path: '/aggregations/0/field', message: expect.stringContaining('allowed here: locationId, parkingLotId') },
    ]);
  });

  test('reports a field no collection knows, listing the known fields', () => {
    const [error] = errorsOf({ aggregations: [{ type: 'terms', field: 'colour' }] });
    expect(error?.path).toBe('/aggregations/0/field');
    expect(error?.message).toContain("unknown field 'colour'");
    expect(error?.message).toContain('trackingCameraId');
  });
});

describe('buildPlan: structure', () => {
  test('rejects unknown properties at every level, listing the allowed ones', () => {
    const errors = errorsOf({ aggregations: [{ type: 'terms', field: 'label', size: 5 }], limit: 3 });
    expect(errors).toEqual([
      { path: '/aggregations/0/size', message: 'unknown property; allowed: type, field, keyJoiner' },
      {
        path: '/limit',
        message: expect.stringContaining(
          'allowed: source, locationIds, filters, nestedFilters, aggregations, splitInterval',
        ),
      },
    ]);
  });

  test('requires at least one aggregation', () => {
    expect(errorsOf({ aggregations: [] })).toEqual([{ path: '/aggregations', message: 'must have at least 1 item' }]);
    expect(errorsOf({})).toEqual([{ path: '/aggregations', message: expect.stringContaining('is required') }]);
  });

  test('names the allowed aggregation kinds for an unknown type', () => {
    expect(errorsOf({ aggregations: [{ type: 'histogram' }] })).toEqual([
      {
        path: '/aggregations/0/type',
        message: 'must be one of: terms, stats, dateHistogram, profile, filter, filters, nested, reverseNested',
      },
    ]);
  });

  test('lists unknown properties and field errors together in one answer', () => {
    const body = {
      aggregations: [{ type: 'terms', field: 'nope', x: 1 }],
      filters: [{ type: 'range', field: 'timestamp', from: 'yesterday' }],
    };
    expect(paths(body)).toEqual(['/aggregations/0/x', '/aggregations/0/field']);
    expect(paths({ ...body, source: 'movementEvents' })).toEqual([
      '/aggregations/0/x',
      '/filters/0/from',
      '/aggregations/0/field',
    ]);
  });
});

describe('buildPlan: fields in their context', () => {
  test('refuses a nested field outside its nested aggregation', () => {
    const [error] = errorsOf({ aggregations: [{ type: 'terms', field: 'crossedPaths.end' }] });
    expect(error).toEqual({
      path: '/aggregations/0/field',
      message: expect.stringContaining('after a nested aggregation on crossedPaths'),
    });
  });

  test('refuses a nested field in the root filters, pointing to nestedFilters', () => {
    const [error] = errorsOf({
      filters: [{ type: 'terms', field: 'polygons.id', values: ['a'] }],
      aggregations: [{ type: 'terms', field: 'label' }],
    });
    expect(error?.message).toContain('nestedFilters');
  });

  test('refuses a root field inside a nested context until reverseNested', () => {
    const inside = [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'label' },
    ];
    expect(paths({ aggregations: inside })).toEqual(['/aggregations/1/field']);
    expect(
      buildPlan({ aggregations: [inside[0], { type: 'reverseNested' }, inside[1]] }).pipeline.map((n) => n.kind),
    ).toEqual(['nested', 'reverseNested', 'terms']);
  });

  test('refuses a nestedFilters entry naming a field of another nested path', () => {
    const body = {
      nestedFilters: [{ path: 'crossedPaths', filters: [{ type: 'terms', field: 'polygons.id', values: ['p'] }] }],
      aggregations: [{ type: 'terms', field: 'label' }],
    };
    expect(paths(body)).toEqual(['/nestedFilters/0/filters/0/field']);
  });

  test('refuses stats on a non-numeric field and terms on a numeric one', () => {
    const body = {
      source: 'parkingEvents',
      aggregations: [
        { type: 'terms', field: 'duration' },
        { type: 'stats', field: 'spotId' },
      ],
    };
    const errors = errorsOf(body);
    expect(errors.map((e) => e.path)).toEqual(['/aggregations/0/field', '/aggregations/1/field']);
    expect(errors[1]?.message).toContain('allowed here: duration');
  });

  test('refuses reverseNested at the root and nested inside nested', () => {
    expect(paths({ aggregations: [{ type: 'reverseNested' }, { type: 'terms', field: 'label' }] })).toEqual([
      '/aggregations/0/type',
    ]);
    expect(
      paths({
        aggregations: [
          { type: 'nested', path: 'crossedPaths' },
          { type: 'nested', path: 'polygons' },
        ],
      }),
    ).toEqual(['/aggregations/1/path']);
  });

  test('refuses an unknown nested path, listing the collection’s paths', () => {
    expect(errorsOf({ source: 'movementEvents', aggregations: [{ type: 'nested', path: 'zones' }] })).toEqual([
      { path: '/aggregations/0/path', message: "unknown nested path 'zones'; allowed: crossedPaths, polygons" },
    ]);
  });

  test('marks crossedPaths.start as deprecated and nothing else', () => {
    const body = {
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.start' },
      ],
    };
    expect(buildPlan(body).deprecatedFields).toEqual(['crossedPaths.start']);
    expect(buildPlan({ aggregations: [{ type: 'terms', field: 'label' }] }).deprecatedFields).toEqual([]);
  });
});

describe('buildPlan: ranges', () => {
  test('turns ISO timestamps with offsets into epoch milliseconds', () => {
    const plan = buildPlan({
      source: 'movementEvents',
      filters: [
        { type: 'range', field: 'timestamp', from: '2024-03-01T01:00:00+01:00', to: '2024-03-02T00:00:00.500Z' },
      ],
      aggregations: [day],
    });
    expect(plan.filters[0]).toMatchObject({
      kind: 'range',
      from: Date.UTC(2024, 2, 1),
      to: Date.UTC(2024, 2, 2, 0, 0, 0, 500),
    });
    expect(plan.timeRange).toEqual({ from: Date.UTC(2024, 2, 1), to: Date.UTC(2024, 2, 2, 0, 0, 0, 500) });
  });

  test('rounds bounds finer than a millisecond up to the next millisecond, both from and to, whatever the offset', () => {
    // Documents have whole milliseconds: t < 12:00:00.0005 holds for t = 12:00:00.000, and t >= 12:00:00.0005
    // does not, which is t < .001 and t >= .001.
    const bounds = (from: string, to: string) => {
      const plan = buildPlan({
        source: 'movementEvents',
        filters: [{ type: 'range', field: 'timestamp', from, to }],
        aggregations: [day],
      });
      return [plan.filters[0], plan.timeRange, (plan.pipeline[0] as { bounds?: unknown }).bounds];
    };
    const noon = Date.UTC(2024, 2, 1, 12);
    expect(bounds('2024-03-01T12:00:00.0005Z', '2024-03-01T13:00:01.0000001+01:00')).toEqual([
      expect.objectContaining({ from: noon + 1, to: noon + 1001 }),
      { from: noon + 1, to: noon + 1001 },
      { from: noon + 1, to: noon + 1001 },
    ]);
    expect(bounds('2024-03-01T12:00:00.123456Z', '2024-03-01T12:00:00.999999999Z')[1]).toEqual({
      from: noon + 124,
      to: noon + 1000,
    });
    // only digits that are not zero round up
    expect(bounds('2024-03-01T12:00:00.123000000Z', '2024-03-01T12:00:01.0000Z')[1]).toEqual({
      from: noon + 123,
      to: noon + 1000,
    });
    // at the floor (1970) too: the fraction is of the second, so up is later
    expect(bounds('1970-01-01T00:00:00.0001Z', '1970-01-01T00:00:00.0015Z')[1]).toEqual({ from: 1, to: 2 });
  });

  test('accepts two bounds within one millisecond in order (a range that holds no document), refuses them out of order', () => {
    const range = (from: string, to: string) => ({
      source: 'movementEvents',
      filters: [{ type: 'range', field: 'timestamp', from, to }],
      aggregations: [day],
    });
    const plan = buildPlan(range('2024-03-01T12:00:00.0002Z', '2024-03-01T12:00:00.0008Z'));
    expect(plan.timeRange).toEqual({ from: Date.UTC(2024, 2, 1, 12, 0, 0, 1), to: Date.UTC(2024, 2, 1, 12, 0, 0, 1) });
    expect(paths(range('2024-03-01T12:00:00.0008Z', '2024-03-01T12:00:00.0002Z'))).toEqual(['/filters/0/from']);
    expect(paths(range('2024-03-01T12:00:00.00080Z', '2024-03-01T12:00:00.0008Z'))).toEqual(['/filters/0/from']);
  });

  test('refuses a timestamp without offset, a number for a date and a string for a number', () => {
    const body = {
      source: 'parkingEvents',
      filters: [
        { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00', to: 1709251200000 },
        { type: 'range', field: 'duration', from: '10' },
      ],
      aggregations: [{ type: 'terms', field: 'spotId' }],
    };
    expect(paths(body)).toEqual(['/filters/0/from', '/filters/0/to', '/filters/1/from']);
  });

  test('reads RFC 3339 timestamps: Z or ±hh:mm, seconds required, a fraction of any length, real calendar dates', () => {
    const from = (text: string) => {
      const plan = buildPlan({
        filters: [{ type: 'range', field: 'timestamp', from: text }],
        aggregations: [{ type: 'terms', field: 'label' }],
      });
      return (plan.filters[0] as { from?: number }).from;
    };
    expect(from('2024-02-29T23:30:00-00:30')).toBe(Date.UTC(2024, 2, 1));
    expect(from('2024-03-01T05:45:00+05:45')).toBe(Date.UTC(2024, 2, 1));
    expect(from('2024-03-01T00:00:00.123000Z')).toBe(Date.UTC(2024, 2, 1, 0, 0, 0, 123));
    for (const text of [
      '2024-03-01T00:00Z',
      '2024-03-01',
      '2024-03-01T00:00:00+24:00',
      '2024-03-01T00:00:00+0100',
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-03-01 00:00:00Z',
    ]) {
      expect([
        text,
        errorsOf({
          filters: [{ type: 'range', field: 'timestamp', from: text }],
          aggregations: [{ type: 'terms', field: 'label' }],
        }),
      ]).toEqual([
        text,
        [
          {
            path: '/filters/0/from',
            message: 'must be an ISO 8601 timestamp with Z or an offset, e.g. 2024-03-31T00:00:00+02:00',
          },
        ],
      ]);
    }
  });

  test('refuses a date bound before 1970 (year 0000 gave day keys in local mean time), as ingest and history do', () => {
    const report = (from: string) => ({
      source: 'movementEvents',
      filters: [{ type: 'range', field: 'timestamp', from, to: '1970-01-03T00:00:00Z' }],
      aggregations: [{ ...day, timeZone: 'Europe/Berlin' }],
    });
    const floor = 'must be 1970-01-01T00:00:00Z or later (no time zone has reliable offsets before it)';
    expect(errorsOf(report('0000-01-01T00:00:00Z'))).toEqual([{ path: '/filters/0/from', message: floor }]);
    expect(errorsOf(report('1969-12-31T23:59:59.999Z'))).toEqual([{ path: '/filters/0/from', message: floor }]);
    expect(() => buildPlan(report('1970-01-01T00:00:00Z'))).not.toThrow();
  });

  test('refuses from after to, and from equal to to (half-open ranges)', () => {
    const range = (from: string, to: string) => ({
      filters: [{ type: 'range', field: 'timestamp', from, to }],
      aggregations: [{ type: 'terms', field: 'label' }],
    });
    expect(paths(range('2024-03-02T00:00:00Z', '2024-03-01T00:00:00Z'))).toEqual(['/filters/0/from']);
    expect(paths(range('2024-03-01T00:00:00Z', '2024-03-01T00:00:00Z'))).toEqual(['/filters/0/from']);
  });

  test('refuses a range with neither bound', () => {
    expect(
      paths({ filters: [{ type: 'range', field: 'timestamp' }], aggregations: [{ type: 'terms', field: 'label' }] }),
    ).toEqual(['/filters/0']);
  });

  test('sets no histogram bounds when the timestamp ranges do not overlap (found by the fuzz test)', () => {
    const plan = buildPlan({
      filters: [week, { type: 'range', field: 'timestamp', from: '2024-04-01T00:00:00Z', to: '2024-04-02T00:00:00Z' }],
      aggregations: [day, { type: 'terms', field: 'label' }],
    });
    expect(plan.pipeline[0]).not.toHaveProperty('bounds');
  });

  test('intersects several timestamp ranges into the histogram bounds', () => {
    const plan = buildPlan({
      filters: [week, { type: 'range', field: 'timestamp', from: '2024-03-03T00:00:00Z' }],
      aggregations: [day, { type: 'terms', field: 'label' }],
    });
    expect(plan.pipeline[0]).toMatchObject({ bounds: { from: Date.UTC(2024, 2, 3), to: Date.UTC(2024, 2, 8) } });
  });
});

describe('buildPlan: dateHistogram', () => {
  test.each([
    ['15m', { kind: 'fixed', ms: 900_000 }],
    ['2h', { kind: 'fixed', ms: 7_200_000 }],
    ['7d', { kind: 'fixed', ms: 7 * 86_400_000 }],
    ['1d', { kind: 'calendar', unit: 'd' }],
    ['1w', { kind: 'calendar', unit: 'w' }],
    ['1M', { kind: 'calendar', unit: 'M' }],
    ['1q', { kind: 'calendar', unit: 'q' }],
    ['1y', { kind: 'calendar', unit: 'y' }],
  ])('reads interval %s', (interval, expected) => {
    expect(buildPlan({ source: 'movementEvents', aggregations: [{ ...day, interval }] }).pipeline[0]).toMatchObject({
      interval: expected,
    });
  });

  test.each(['0d', '2w', '1.5h', 'd', '1D', '10 m', '3M'])('refuses interval %s', (interval) => {
    expect(paths({ source: 'movementEvents', aggregations: [{ ...day, interval }] })).toEqual([
      '/aggregations/0/interval',
    ]);
  });

  test('accepts field timestamp or none, and refuses any other field', () => {
    expect(() => buildPlan({ source: 'movementEvents', aggregations: [{ ...day, field: 'timestamp' }] })).not.toThrow();
    expect(paths({ source: 'parkingEvents', aggregations: [{ ...day, field: 'startingTimestamp' }] })).toEqual([
      '/aggregations/0/field',
    ]);
  });

  test('canonicalizes a time zone name and refuses unknown zones and offsets', () => {
    const plan = buildPlan({ source: 'movementEvents', aggregations: [{ ...day, timeZone: 'europe/berlin' }] });
    expect(plan.pipeline[0]).toMatchObject({ timeZone: 'Europe/Berlin' });
    expect(paths({ source: 'movementEvents', aggregations: [{ ...day, timeZone: 'Mars/Olympus' }] })).toEqual([
      '/aggregations/0/timeZone',
    ]);
    expect(paths({ source: 'movementEvents', aggregations: [{ ...day, timeZone: '+02:00' }] })).toEqual([
      '/aggregations/0/timeZone',
    ]);
  });

  test('must come first, and stats must come last', () => {
    const body = { aggregations: [{ type: 'terms', field: 'label' }, day] };
    expect(paths(body)).toEqual(['/aggregations/1/type']);
    const stats = {
      source: 'movementEvents',
      aggregations: [
        { type: 'nested', path: 'polygons' },
        { type: 'stats', field: 'polygons.value' },
        { type: 'terms', field: 'polygons.id' },
      ],
    };
    expect(paths(stats)).toEqual(['/aggregations/1/type']);
  });
});

describe('buildPlan: stats, filters and splitInterval', () => {
  test('asks for avg only by default and keeps the spec order of stats', () => {
    const stats = (extra: object) =>
      buildPlan({
        aggregations: [
          { type: 'nested', path: 'polygons' },
          { type: 'stats', field: 'polygons.value', ...extra },
        ],
      }).pipeline[1];
    expect(stats({})).toMatchObject({ stats: ['avg'] });
    expect(stats({ count: true, min: true, avg: false, sum: true })).toMatchObject({ stats: ['min', 'sum', 'count'] });
    expect(
      paths({
        aggregations: [
          { type: 'nested', path: 'polygons' },
          { type: 'stats', field: 'polygons.value', avg: false },
        ],
      }),
    ).toEqual(['/aggregations/1']);
  });

  test('keeps the order of named filters buckets and checks each filter', () => {
    const plan = buildPlan({
      aggregations: [
        {
          type: 'filters',
          filters: {
            people: { type: 'terms', field: 'label', values: ['person'] },
            cars: { type: 'terms', field: 'label', values: ['car'] },
          },
        },
      ],
    });
    expect(plan.pipeline[0]).toMatchObject({ kind: 'filters', buckets: [{ name: 'people' }, { name: 'cars' }] });
    expect(paths({ source: 'movementEvents', aggregations: [{ type: 'filters', filters: {} }] })).toEqual([
      '/aggregations/0/filters',
    ]);
  });

  test('attaches nestedFilters of the same path to the nested aggregation', () => {
    const plan = buildPlan({
      nestedFilters: [
        { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['north'] }] },
      ],
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
      ],
    });
    expect(plan.pipeline[0]).toMatchObject({ kind: 'nested', itemFilters: [{ kind: 'terms', values: ['north'] }] });
  });

  test('accepts splitInterval only with a first dateHistogram and a closed timestamp range', () => {
    expect(
      buildPlan({ filters: [week], aggregations: [day, { type: 'terms', field: 'label' }], splitInterval: '1M' })
        .splitInterval,
    ).toEqual({
      amount: 1,
      unit: 'M',
      text: '1M',
    });
    const noHistogram = errorsOf({
      filters: [week],
      aggregations: [{ type: 'terms', field: 'label' }],
      splitInterval: '1d',
    });
    expect(noHistogram).toEqual([
      { path: '/splitInterval', message: expect.stringContaining('first aggregation to be dateHistogram') },
    ]);
    const openRange = errorsOf({
      filters: [{ ...week, to: undefined }],
      aggregations: [day, { type: 'terms', field: 'label' }],
      splitInterval: '1d',
    });
    expect(openRange).toEqual([{ path: '/splitInterval', message: expect.stringContaining('both from and to') }]);
    expect(paths({ source: 'movementEvents', filters: [week], aggregations: [day], splitInterval: '1x' })).toEqual([
      '/splitInterval',
    ]);
  });

  test('accepts splitInterval "auto" under the same conditions, and no other word', () => {
    expect(
      buildPlan({ filters: [week], aggregations: [day, { type: 'terms', field: 'label' }], splitInterval: 'auto' })
        .splitInterval,
    ).toEqual({ kind: 'auto', text: 'auto' });
    expect(
      errorsOf({ filters: [week], aggregations: [{ type: 'terms', field: 'label' }], splitInterval: 'auto' }),
    ).toEqual([{ path: '/splitInterval', message: expect.stringContaining('first aggregation to be dateHistogram') }]);
    expect(errorsOf({ source: 'movementEvents', filters: [week], aggregations: [day], splitInterval: 'Auto' })).toEqual(
      [{ path: '/splitInterval', message: expect.stringContaining('or auto') }],
    );
  });
});

const comparedHours = {
  source: 'movementEvents',
  filters: [{ type: 'range', field: 'timestamp', from: '2024-03-14T00:00:00Z', to: '2024-03-14T03:00:00Z' }],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
  compare: { offset: '1w' },
};

test('compare accepts an earlier period that starts at the floor: two days before January 3, 1970', () => {
  const atFloor = {
    ...comparedHours,
    filters: [{ type: 'range', field: 'timestamp', from: '1970-01-03T00:00:00Z', to: '1970-01-04T00:00:00Z' }],
    compare: { offset: '2d' },
  };
  expect(buildPlan(atFloor).compare).toEqual({ offset: { amount: 2, unit: 'd', text: '2d' }, timeZone: 'UTC' });
});

describe('compare is refused with a 400 naming the field', () => {
  test.each<[string, object, FieldError[]]>([
    [
      'without a timestamp range',
      { ...comparedHours, filters: [] },
      [{ path: '/compare', message: expect.stringContaining('range filter on timestamp with both from and to') }],
    ],
    [
      'with only a lower bound',
      { ...comparedHours, filters: [{ type: 'range', field: 'timestamp', from: '2024-03-14T00:00:00Z' }] },
      [{ path: '/compare', message: expect.stringContaining('both from and to') }],
    ],
    [
      'with an offset in hours',
      { ...comparedHours, compare: { offset: '6h' } },
      [{ path: '/compare/offset', message: expect.stringContaining('<n>d, <n>w, <n>M, <n>q or <n>y') }],
    ],
    [
      'with an offset of 0',
      { ...comparedHours, compare: { offset: '0w' } },
      [{ path: '/compare/offset', message: expect.stringContaining('n from 1 to 999') }],
    ],
    [
      'moving the period before 1970 (a week before January 3, 1970 is December 27, 1969)',
      {
        ...comparedHours,
        filters: [{ type: 'range', field: 'timestamp', from: '1970-01-03T00:00:00Z', to: '1970-01-04T00:00:00Z' }],
      },
      [
        {
          path: '/compare/offset',
          message:
            "moves the period's start to 1969-12-27T00:00:00.000Z; the earlier period's start must be 1970-01-01T00:00:00Z or later (no time zone has reliable offsets before it)",
        },
      ],
    ],
    [
      'moving the period before 1970 on the calendar of Berlin (UTC+1 then): January 8 00:00 there is 7 days after 1969-12-31T23:00Z',
      {
        ...comparedHours,
        filters: [{ type: 'range', field: 'timestamp', from: '1970-01-07T23:00:00Z', to: '1970-01-08T23:00:00Z' }],
        aggregations: [{ type: 'dateHistogram', interval: '1h', timeZone: 'Europe/Berlin' }],
      },
      [{ path: '/compare/offset', message: expect.stringContaining('to 1969-12-31T23:00:00.000Z;') }],
    ],
    [
      'with an unknown property',
      { ...comparedHours, compare: { offset: '1w', align: 'index' } },
      [{ path: '/compare/align', message: expect.stringContaining('unknown property') }],
    ],
    [
      'with an unknown time zone',
      { ...comparedHours, compare: { offset: '1w', timeZone: 'Mars/Olympus' } },
      [{ path: '/compare/timeZone', message: expect.stringContaining('IANA') }],
    ],
    [
      "with a time zone other than the histogram's",
      { ...comparedHours, compare: { offset: '1w', timeZone: 'Europe/Berlin' } },
      [{ path: '/compare/timeZone', message: expect.stringContaining("the dateHistogram's timeZone (UTC)") }],
    ],
    [
      'with a timestamp range inside a stage',
      {
        ...comparedHours,
        aggregations: [
          { type: 'filters', filters: { late: { type: 'range', field: 'timestamp', from: '2024-03-14T02:00:00Z' } } },
        ],
      },
      [{ path: '/aggregations/0/filters/late/field', message: expect.stringContaining('would not move') }],
    ],
  ])('%s', (_, body, expected) => {
    expect(errorsOf(body)).toEqual(expected);
  });

  test('accepts the time zone of the histogram, spelt differently', () => {
    const plan = buildPlan({
      ...comparedHours,
      aggregations: [{ type: 'dateHistogram', interval: '1h', timeZone: 'Asia/Calcutta' }],
      compare: { offset: '1y', timeZone: 'Asia/Kolkata' },
    });
    expect(plan.compare).toEqual({
      offset: { amount: 1, unit: 'y', text: '1y' },
      timeZone: (plan.pipeline[0] as { timeZone: string }).timeZone,
    });
  });
});
