import { ValidationError } from '#shared/errors';
import { buildPlan } from '#shared/report/plan/build-plan';
import { histogramBucketEstimate, planEvenSlices, planSlices } from '#shared/report/split/plan-slices';

/** A split plan over [from, to) with a histogram of `interval` in `timeZone`, by terms on label. */
function plan(from: string, to: string, interval: string, splitInterval: string, timeZone = 'UTC') {
  return buildPlan({
    filters: [
      { type: 'terms', field: 'label', values: ['car'] },
      { type: 'range', field: 'timestamp', from, to },
    ],
    aggregations: [
      { type: 'dateHistogram', interval, timeZone },
      { type: 'terms', field: 'label' },
    ],
    splitInterval,
  });
}

/** Slice edges as ISO strings: [from of the first, ..., to of the last]. */
function edges(...args: Parameters<typeof plan>): string[] {
  const slices = planSlices(plan(...args));
  return [...slices.map((s) => s.from), ...slices.slice(-1).map((s) => s.to)].map((t) => new Date(t).toISOString());
}

describe('planSlices: calendar split intervals in the histogram time zone', () => {
  test('cuts at Berlin month starts, which move from 23:00Z to 22:00Z when DST begins on 31 March', () => {
    // Prepare: Berlin is UTC+1 until 2024-03-31 01:00Z, UTC+2 after; 1 Feb and 1 Mar start at 23:00Z the day before, 1
    // Apr and 1 May at 22:00Z. Act
    const cut = edges('2024-01-15T00:00:00Z', '2024-05-10T00:00:00Z', '1d', '1M', 'Europe/Berlin');
    // Assess: first and last slices are clipped to the range.
    expect(cut).toEqual([
      '2024-01-15T00:00:00.000Z',
      '2024-01-31T23:00:00.000Z',
      '2024-02-29T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
      '2024-04-30T22:00:00.000Z',
      '2024-05-10T00:00:00.000Z',
    ]);
  });

  test('cuts Berlin days at local midnight, so the day of the DST change is a 23-hour slice', () => {
    const cut = edges('2024-03-30T00:00:00Z', '2024-04-01T12:00:00Z', '1h', '1d', 'Europe/Berlin');
    expect(cut).toEqual([
      '2024-03-30T00:00:00.000Z',
      '2024-03-30T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
      '2024-04-01T12:00:00.000Z',
    ]);
  });

  test('cuts a day whose midnight the clocks skip at the instant they jump (Santiago, 8 September 2024: 00:00 -04 → 01:00 -03)', () => {
    // Local midnights: 7 Sep 04:00Z; 8 Sep does not exist, the day starts at 01:00 -03 = 04:00Z; 9 and 10 Sep 03:00Z.
    const cut = edges('2024-09-07T04:00:00Z', '2024-09-10T03:00:00Z', '1h', '1d', 'America/Santiago');
    expect(cut).toEqual([
      '2024-09-07T04:00:00.000Z',
      '2024-09-08T04:00:00.000Z',
      '2024-09-09T03:00:00.000Z',
      '2024-09-10T03:00:00.000Z',
    ]);
  });

  test('steps fixed split units in exact hours from local midnight, also across a DST change (6h on 31 March in Berlin)', () => {
    // Local midnight 30 Mar 23:00Z; +6 h steps: 05:00Z, 11:00Z, 17:00Z (07:00, 13:00, 19:00 CEST after the change).
    const cut = edges('2024-03-30T23:00:00Z', '2024-03-31T22:00:00Z', '1h', '6h', 'Europe/Berlin');
    expect(cut).toEqual([
      '2024-03-30T23:00:00.000Z',
      '2024-03-31T05:00:00.000Z',
      '2024-03-31T11:00:00.000Z',
      '2024-03-31T17:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
    ]);
  });

  test('starts weeks on Monday: from Wednesday 1 May, cuts fall on Mondays 6 and 13 May', () => {
    expect(edges('2024-05-01T00:00:00Z', '2024-05-15T00:00:00Z', '1d', '1w')).toEqual([
      '2024-05-01T00:00:00.000Z',
      '2024-05-06T00:00:00.000Z',
      '2024-05-13T00:00:00.000Z',
      '2024-05-15T00:00:00.000Z',
    ]);
  });

  test('cuts quarters on 1 January, April, July and October', () => {
    expect(edges('2024-02-10T00:00:00Z', '2024-12-01T00:00:00Z', '1d', '1q')).toEqual([
      '2024-02-10T00:00:00.000Z',
      '2024-04-01T00:00:00.000Z',
      '2024-07-01T00:00:00.000Z',
      '2024-10-01T00:00:00.000Z',
      '2024-12-01T00:00:00.000Z',
    ]);
  });

  test('steps several units at a time from the unit start before from: 2M from 15 January cuts 1 March and 1 May', () => {
    expect(edges('2024-01-15T00:00:00Z', '2024-06-01T00:00:00Z', '1d', '2M')).toEqual([
      '2024-01-15T00:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
      '2024-05-01T00:00:00.000Z',
      '2024-06-01T00:00:00.000Z',
    ]);
  });
});

describe('planSlices: alignment to histogram buckets', () => {
  test('moves each month start down to the Monday that starts its week bucket', () => {
    // Prepare: Berlin weeks from Monday 4 March (03-03T23:00Z) to Monday 3 June (06-02T22:00Z).
    // 1 April 2024 is a Monday (03-31T22:00Z); 1 May is a Wednesday → Monday 29 April (04-28T22:00Z);
    // 1 June is a Saturday → Monday 27 May (05-26T22:00Z).
    const cut = edges('2024-03-03T23:00:00Z', '2024-06-02T22:00:00Z', '1w', '1M', 'Europe/Berlin');
    expect(cut).toEqual([
      '2024-03-03T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
      '2024-04-28T22:00:00.000Z',
      '2024-05-26T22:00:00.000Z',
      '2024-06-02T22:00:00.000Z',
    ]);
  });

  test('moves day cuts down to the epoch-aligned start of 7-hour buckets', () => {
    // 2024-01-02T00:00Z = 1,704,153,600,000 ms = 67,625.14 × 7 h → bucket 67,625 starts 2024-01-01T23:00Z;
    // 2024-01-03T00:00Z = 67,628.57 × 7 h → bucket 67,628 starts 2024-01-02T20:00Z.
    expect(edges('2024-01-01T00:00:00Z', '2024-01-04T00:00:00Z', '7h', '1d')).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-01-01T23:00:00.000Z',
      '2024-01-02T20:00:00.000Z',
      '2024-01-04T00:00:00.000Z',
    ]);
  });

  test('keeps local midnight of a half-hour zone, which is an hour bucket start there (18:30Z in Kolkata)', () => {
    expect(edges('2024-01-01T00:00:00Z', '2024-01-02T12:00:00Z', '1h', '1d', 'Asia/Kolkata')).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-01-01T18:30:00.000Z',
      '2024-01-02T12:00:00.000Z',
    ]);
  });

  test('never splits a bucket: a 1d split of a weekly histogram gives one slice per week', () => {
    // Mondays 1, 8, 15 and 22 January 2024: 20 day cuts collapse onto the two inner Mondays.
    expect(edges('2024-01-01T00:00:00Z', '2024-01-22T00:00:00Z', '1w', '1d')).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-01-08T00:00:00.000Z',
      '2024-01-15T00:00:00.000Z',
      '2024-01-22T00:00:00.000Z',
    ]);
  });

  test('drops a cut that falls into the first bucket: from 10:00, a 12h split of a daily histogram cuts at midnight only', () => {
    // The 12h grid starts at midnight: 12:00 on the 1st rounds down to 00:00 (before from) and is dropped; 00:00 on the
    // 2nd stays.
    expect(edges('2024-01-01T10:00:00Z', '2024-01-02T10:00:00Z', '1d', '12h')).toEqual([
      '2024-01-01T10:00:00.000Z',
      '2024-01-02T00:00:00.000Z',
      '2024-01-02T10:00:00.000Z',
    ]);
  });
});

describe('planSlices: the slice plans', () => {
  test('each slice plan has its own timestamp range and histogram bounds, keeps other filters and drops splitInterval', () => {
    const [first, second] = planSlices(plan('2024-01-15T00:00:00Z', '2024-02-10T00:00:00Z', '1d', '1M'));
    const feb = Date.parse('2024-02-01T00:00:00Z');
    expect(second?.plan.timeRange).toEqual({ from: feb, to: Date.parse('2024-02-10T00:00:00Z') });
    expect(first?.plan.pipeline[0]).toMatchObject({
      kind: 'dateHistogram',
      bounds: { from: Date.parse('2024-01-15T00:00:00Z'), to: feb },
    });
    expect(first?.plan.filters).toEqual([
      { kind: 'terms', field: { name: 'label', kind: 'keyword' }, values: ['car'] },
      { kind: 'range', field: { name: 'timestamp', kind: 'date' }, from: Date.parse('2024-01-15T00:00:00Z'), to: feb },
    ]);
    expect(first?.plan.splitInterval).toBeUndefined();
  });

  test('starts and ends on the range bounds rounded up to the millisecond, as the unsplit report reads them', () => {
    const [first, second] = planSlices(plan('2024-01-15T00:00:00.0001Z', '2024-02-10T00:00:00.9991Z', '1d', '1M'));
    const feb = Date.parse('2024-02-01T00:00:00Z');
    expect(first?.plan.timeRange).toEqual({ from: Date.parse('2024-01-15T00:00:00.001Z'), to: feb });
    expect(second?.plan.timeRange).toEqual({ from: feb, to: Date.parse('2024-02-10T00:00:01.000Z') });
  });

  test('gives no slice for disjoint timestamp ranges (an empty intersection)', () => {
    const body = {
      source: 'movementEvents',
      filters: [
        { type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-01-02T00:00:00Z' },
        { type: 'range', field: 'timestamp', from: '2024-02-01T00:00:00Z', to: '2024-02-02T00:00:00Z' },
      ],
      aggregations: [{ type: 'dateHistogram', interval: '1h' }],
      splitInterval: '1d',
    };
    expect(planSlices(buildPlan(body))).toEqual([]);
  });
});

describe('planSlices: the slice cap', () => {
  test('answers 400 naming the interval and the default cap of 400 for hourly slices over a year', () => {
    // 366 days × 24 = 8,784 hourly slices.
    const attempt = () => planSlices(plan('2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '15m', '1h'));
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/splitInterval "1h" cuts the time range into about 8,784 slices; at most 400 are allowed/);
  });

  test('allows exactly the configured cap and refuses one slice more', () => {
    const fourMonths = plan('2024-01-01T00:00:00Z', '2024-05-01T00:00:00Z', '1d', '1M');
    expect(planSlices(fourMonths, { maxSlices: 4 })).toHaveLength(4);
    expect(() => planSlices(fourMonths, { maxSlices: 3 })).toThrow(/at most 3 are allowed/);
  });

  test('refuses a one-day split of a year with a 365-slice cap but allows it with 366', () => {
    const year = plan('2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '15m', '1d');
    expect(() => planSlices(year, { maxSlices: 365 })).toThrow(ValidationError);
    expect(planSlices(year, { maxSlices: 366 })).toHaveLength(366);
  });
});

describe('planEvenSlices (splitInterval "auto")', () => {
  /** Edges of `parts` even slices of a daily Berlin histogram over March 2024 (31 local days, 30 days 23 h). */
  const even = (parts: number) => {
    const slices = planEvenSlices(
      plan('2024-02-29T23:00:00Z', '2024-03-31T22:00:00Z', '1d', 'auto', 'Europe/Berlin'),
      parts,
    );
    return [...slices.map((s) => s.from), ...slices.slice(-1).map((s) => s.to)].map((t) => new Date(t).toISOString());
  };

  test('cuts at equal distances moved down to local midnight', () => {
    // The midpoint 2024-03-16T10:30Z lies in the local day of 16 March, which starts at 2024-03-15T23:00Z.
    expect(even(2)).toEqual(['2024-02-29T23:00:00.000Z', '2024-03-15T23:00:00.000Z', '2024-03-31T22:00:00.000Z']);
  });

  test('never gives more slices than buckets, nor an empty one', () => {
    const edges = even(1000);
    expect(edges).toHaveLength(32); // 31 one-day slices
    expect(edges.slice(-2)).toEqual(['2024-03-30T23:00:00.000Z', '2024-03-31T22:00:00.000Z']); // the 23-hour day
  });

  test('estimates the bucket count from the range and interval', () => {
    expect(histogramBucketEstimate(plan('2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '15m', 'auto'))).toBe(366 * 96);
  });
});
