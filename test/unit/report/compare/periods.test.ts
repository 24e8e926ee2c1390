import { periodsOf } from '#shared/report/compare/periods';
import { buildPlan } from '#shared/report/plan/build-plan';
import type { Compare } from '#shared/report/plan/plan';
import { shiftEarlier } from '#shared/time/calendar-shift';

/** The earlier period of a `compare` report: calendar offsets in the report's time zone. */
const offset = (text: string) =>
  ({ amount: Number(text.slice(0, -1)), unit: text.slice(-1), text }) as Compare['offset'];
const earlier = (iso: string, by: string, zone: string) =>
  new Date(shiftEarlier(Date.parse(iso), offset(by), zone)).toISOString();

describe('shiftEarlier', () => {
  test.each([
    // [instant, offset, zone, the instant offset earlier, why]
    [
      '2024-03-30T23:00:00Z',
      '1M',
      'Europe/Berlin',
      '2024-02-28T23:00:00.000Z',
      'March 31 00:00 in Berlin: February has no 31st, its last day is the 29th',
    ],
    [
      '2023-03-30T22:00:00Z',
      '1M',
      'Europe/Berlin',
      '2023-02-27T23:00:00.000Z',
      'March 31 00:00+02 in 2023: February 28 00:00+01',
    ],
    [
      '2024-04-30T22:00:00Z',
      '1M',
      'Europe/Berlin',
      '2024-03-31T22:00:00.000Z',
      'May 1 00:00+02: April 1 00:00+02, the end of a period moves to the end of the month before',
    ],
    ['2024-05-31T10:00:00Z', '1q', 'UTC', '2024-02-29T10:00:00.000Z', 'a quarter before May 31 is February 29'],
    ['2024-02-29T12:00:00Z', '1y', 'UTC', '2023-02-28T12:00:00.000Z', 'a year before a leap day'],
    ['2024-01-15T08:00:00Z', '2M', 'UTC', '2023-11-15T08:00:00.000Z', 'across the year'],
    [
      '2024-04-07T00:30:00Z',
      '1w',
      'Europe/Berlin',
      '2024-03-31T01:00:00.000Z',
      '02:30 local a week earlier falls in the spring gap: the instant the clocks jump',
    ],
    [
      '2024-04-07T01:30:00Z',
      '1w',
      'Europe/Berlin',
      '2024-03-31T01:30:00.000Z',
      '03:30+02 a week earlier is 03:30+02 (one real hour less than a week)',
    ],
    [
      '2024-11-10T06:30:00Z',
      '1w',
      'America/New_York',
      '2024-11-03T05:30:00.000Z',
      '01:30 local, which Nov 3 has twice: the first (EDT)',
    ],
    ['2024-11-03T18:30:00Z', '1d', 'Asia/Kolkata', '2024-11-02T18:30:00.000Z', 'Kolkata midnight (+05:30)'],
    ['2024-03-10T12:00:00Z', '7d', 'UTC', '2024-03-03T12:00:00.000Z', '7d is 1w'],
  ])('%s less %s in %s is %s: %s', (iso, by, zone, expected) => {
    expect(earlier(iso, by, zone)).toBe(expected);
  });
});

describe('periodsOf', () => {
  test('moves every timestamp range filter, the time range and the histogram bounds, and nothing else', () => {
    // Prepare
    const plan = buildPlan({
      source: 'parkingEvents',
      filters: [
        { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00+01:00', to: '2024-04-01T00:00:00+02:00' },
        { type: 'range', field: 'timestamp', from: '2024-03-15T00:00:00+01:00' },
        { type: 'range', field: 'startingTimestamp', from: '2024-03-01T00:00:00Z' },
      ],
      aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' }],
      compare: { offset: '1M' },
    });
    // Act
    const { current, previous } = periodsOf(plan);
    // Assess
    const iso = (t?: number) => (t === undefined ? undefined : new Date(t).toISOString());
    expect(current).not.toHaveProperty('compare');
    expect(previous).not.toHaveProperty('compare');
    expect(previous.filters.map((f) => (f.kind === 'range' ? [f.field.name, iso(f.from), iso(f.to)] : f.kind))).toEqual(
      [
        ['timestamp', '2024-01-31T23:00:00.000Z', '2024-02-29T23:00:00.000Z'],
        ['timestamp', '2024-02-14T23:00:00.000Z', undefined],
        ['startingTimestamp', '2024-03-01T00:00:00.000Z', undefined],
      ],
    );
    expect([iso(previous.timeRange?.from), iso(previous.timeRange?.to)]).toEqual([
      '2024-02-14T23:00:00.000Z',
      '2024-02-29T23:00:00.000Z',
    ]);
    expect(previous.pipeline[0]).toMatchObject({ kind: 'dateHistogram', bounds: previous.timeRange });
    expect(current.pipeline[0]).toMatchObject({ bounds: plan.timeRange });
  });

  test('leaves the earlier histogram unbounded when the month lacks the days of the range (March 30 to 31)', () => {
    const plan = buildPlan({
      source: 'movementEvents',
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-30T00:00:00Z', to: '2024-03-31T00:00:00Z' }],
      aggregations: [{ type: 'dateHistogram', interval: '1h' }],
      compare: { offset: '1M' },
    });
    const { previous } = periodsOf(plan);
    expect(previous.timeRange).toEqual({ from: Date.UTC(2024, 1, 29), to: Date.UTC(2024, 1, 29) });
    expect(previous.pipeline[0]).not.toHaveProperty('bounds');
  });
});
