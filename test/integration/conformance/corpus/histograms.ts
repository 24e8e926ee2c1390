import { LOC_BERLIN } from '../../../fixtures/documents';
import { range, terms, type ConformanceCase } from './case';

/**
 * dateHistogram requests: fixed and calendar intervals, time zones with DST changes, bounds on both
 * sides, one side or none, sub-aggregations, CSV, splitInterval and the bucket limit (the node runs
 * with search.max_buckets = TEST_MAX_BUCKETS = 2000; the DuckDB engine is given the same limit).
 */
const ts = (from?: string, to?: string) => range('timestamp', from, to);
const hist = (interval: string, timeZone?: string) => ({
  type: 'dateHistogram',
  interval,
  ...(timeZone ? { timeZone } : {}),
});
const label = { type: 'terms', field: 'label' };
const spring = ts('2024-03-29T00:00:00+01:00', '2024-04-03T00:00:00+02:00');

export const HISTOGRAM_CASES: readonly ConformanceCase[] = [
  {
    name: 'counts events per Berlin day across the spring DST change, over the whole range',
    body: { filters: [spring], aggregations: [hist('1d', 'Europe/Berlin'), label] },
    // Berlin days start at 23:00Z until Mar 31 and at 22:00Z after. me-07 (Apr 1 00:00 local) has no label.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-28T23:00:00.000Z', car: 1 },
        { timestamp: '2024-03-29T23:00:00.000Z', car: 1 },
        { timestamp: '2024-03-30T23:00:00.000Z', car: 1, person: 2, truck: 1 },
        { timestamp: '2024-03-31T22:00:00.000Z' },
        { timestamp: '2024-04-01T22:00:00.000Z', truck: 1 },
      ],
    },
  },
  {
    name: 'renders the same days as CSV, absent counts written 0',
    // localTime: each day's start on Berlin's clock, beside the UTC instant (the histogram names a timeZone).
    body: { filters: [spring], aggregations: [hist('1d', 'Europe/Berlin'), label] },
    accept: 'text/csv',
    expected: {
      status: 200,
      headers: { 'Content-Type': 'text/csv; charset=utf-8' },
      body:
        'timestamp,localTime,car,person,truck\r\n' +
        '2024-03-28T23:00:00.000Z,2024-03-29T00:00:00+01:00,1,0,0\r\n' +
        '2024-03-29T23:00:00.000Z,2024-03-30T00:00:00+01:00,1,0,0\r\n' +
        '2024-03-30T23:00:00.000Z,2024-03-31T00:00:00+01:00,1,2,1\r\n' +
        '2024-03-31T22:00:00.000Z,2024-04-01T00:00:00+02:00,0,0,0\r\n' +
        '2024-04-01T22:00:00.000Z,2024-04-02T00:00:00+02:00,0,0,1\r\n',
    },
  },
  {
    name: 'aligns 90-minute buckets to local time in Berlin, the bucket over the autumn overlap 2.5 hours long',
    body: {
      source: 'movementEvents',
      filters: [ts('2024-10-26T22:00:00Z', '2024-10-27T04:00:00Z')],
      aggregations: [hist('90m', 'Europe/Berlin')],
    },
    // Local grid 00:00, 01:30, 03:00, 04:30. me-10 (02:30+02) and me-11 (02:30+01) both round to 01:30+02.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-10-26T22:00:00.000Z', count: 1 },
        { timestamp: '2024-10-26T23:30:00.000Z', count: 2 },
        { timestamp: '2024-10-27T02:00:00.000Z' },
        { timestamp: '2024-10-27T03:30:00.000Z' },
      ],
    },
  },
  {
    name: 'counts me-04 at 00:59:59.999 in a range that ends at 00:59:59.9991, the end rounded up to the millisecond',
    body: {
      source: 'movementEvents',
      filters: [ts('2024-03-31T00:00:00Z', '2024-03-31T00:59:59.9991Z')],
      aggregations: [hist('1h')],
    },
    expected: { status: 200, body: [{ timestamp: '2024-03-31T00:00:00.000Z', count: 1 }] },
  },
  {
    name: 'answers no bucket for a range whose bounds lie within one millisecond',
    body: {
      source: 'movementEvents',
      filters: [ts('2024-03-31T00:59:59.9982Z', '2024-03-31T00:59:59.9989Z')],
      aggregations: [hist('1h')],
    },
    // Both bounds round up to 00:59:59.999: [.999, .999) holds nothing, not even me-04 at .999.
    expected: { status: 200, body: [] },
  },
  {
    name: 'starts fixed 7-day buckets on a Thursday in New York across the spring change, without bounds',
    body: { source: 'movementEvents', aggregations: [hist('7d', 'America/New_York'), label] },
    // Thursdays 00:00 New York time from Mar 7 (EST, 05:00Z) to Oct 31 (EDT, 04:00Z): 35 weeks. In New York
    // time me-14 15 fall on Mar 10, me-01 to me-08 on Mar 29 to Apr 2, me-13 on Apr 8, me-09 to 12 on
    // Oct 26 and 27, me-16 17 and the last on Nov 3.
    expected: {
      status: 200,
      rows: 35,
      span: ['2024-03-07T05:00:00.000Z', '2024-10-31T04:00:00.000Z'],
      nonEmpty: [
        { timestamp: '2024-03-07T05:00:00.000Z', car: 1, truck: 1 },
        { timestamp: '2024-03-28T04:00:00.000Z', car: 3, person: 2, truck: 2 },
        { timestamp: '2024-04-04T04:00:00.000Z', person: 1 },
        { timestamp: '2024-10-24T04:00:00.000Z', car: 2, person: 1, truck: 1 },
        { timestamp: '2024-10-31T04:00:00.000Z', car: 2, person: 1 },
      ],
    },
  },
  {
    name: 'spans 7-day Berlin buckets over bounds in March and April',
    body: {
      source: 'movementEvents',
      filters: [ts('2024-03-01T00:00:00Z', '2024-05-01T00:00:00Z')],
      aggregations: [hist('7d', 'Europe/Berlin')],
    },
    // Thursdays in Berlin from Feb 29 (holding Mar 1 01:00 local) to Apr 25 (holding May 1 01:59 local);
    // me-14 15 on Mar 10, me-01 to me-08 from Mar 29 to Apr 2, me-13 on Apr 8.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-02-28T23:00:00.000Z' },
        { timestamp: '2024-03-06T23:00:00.000Z', count: 2 },
        { timestamp: '2024-03-13T23:00:00.000Z' },
        { timestamp: '2024-03-20T23:00:00.000Z' },
        { timestamp: '2024-03-27T23:00:00.000Z', count: 8 },
        { timestamp: '2024-04-03T22:00:00.000Z', count: 1 },
        { timestamp: '2024-04-10T22:00:00.000Z' },
        { timestamp: '2024-04-17T22:00:00.000Z' },
        { timestamp: '2024-04-24T22:00:00.000Z' },
      ],
    },
  },
  {
    name: 'starts calendar weeks on Monday in Berlin',
    body: {
      filters: [ts('2024-03-25T00:00:00+01:00', '2024-04-15T00:00:00+02:00')],
      aggregations: [hist('1w', 'Europe/Berlin'), label],
    },
    // Week of Mar 25: me-01 to me-06 (me-06 is Sunday 23:59 local); of Apr 1: me-07 (no label), me-08; of Apr 8: me-13.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-24T23:00:00.000Z', car: 3, person: 2, truck: 1 },
        { timestamp: '2024-03-31T22:00:00.000Z', truck: 1 },
        { timestamp: '2024-04-07T22:00:00.000Z', person: 1 },
      ],
    },
  },
  {
    name: 'counts calendar months in New York from the first to the last non-empty month',
    body: {
      source: 'movementEvents',
      aggregations: [hist('1M', 'America/New_York'), { type: 'terms', field: 'locationId' }],
    },
    // New York months: March holds me-01 to me-07 (me-07 is Mar 31 18:00 local) and me-14 15; April me-08 13;
    // October me-09 to 12; November me-16 17 and the last.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-01T05:00:00.000Z', 'loc-berlin': 7, 'loc-nyc': 2 },
        { timestamp: '2024-04-01T04:00:00.000Z', 'loc-berlin': 2 },
        { timestamp: '2024-05-01T04:00:00.000Z' },
        { timestamp: '2024-06-01T04:00:00.000Z' },
        { timestamp: '2024-07-01T04:00:00.000Z' },
        { timestamp: '2024-08-01T04:00:00.000Z' },
        { timestamp: '2024-09-01T04:00:00.000Z' },
        { timestamp: '2024-10-01T04:00:00.000Z', 'loc-berlin': 4 },
        { timestamp: '2024-11-01T04:00:00.000Z', 'loc-nyc': 3 },
      ],
    },
  },
  {
    name: 'names quarter series by location and label joined by a slash',
    body: {
      source: 'movementEvents',
      aggregations: [hist('1q', 'Europe/Berlin'), { type: 'terms', field: 'locationId', keyJoiner: '/' }, label],
    },
    // Berlin quarters: Q1 me-01 to me-06 and me-14 15; Q2 me-07 (no label) 08 13; Q4 me-09 to 12 and me-16 17 18.
    expected: {
      status: 200,
      body: [
        {
          timestamp: '2023-12-31T23:00:00.000Z',
          'loc-berlin/car': 3,
          'loc-berlin/person': 2,
          'loc-berlin/truck': 1,
          'loc-nyc/car': 1,
          'loc-nyc/truck': 1,
        },
        { timestamp: '2024-03-31T22:00:00.000Z', 'loc-berlin/person': 1, 'loc-berlin/truck': 1 },
        { timestamp: '2024-06-30T22:00:00.000Z' },
        {
          timestamp: '2024-09-30T22:00:00.000Z',
          'loc-berlin/car': 2,
          'loc-berlin/person': 1,
          'loc-berlin/truck': 1,
          'loc-nyc/car': 2,
          'loc-nyc/person': 1,
        },
      ],
    },
  },
  {
    name: 'counts calendar years in UTC',
    body: { source: 'movementEvents', aggregations: [hist('1y')] },
    expected: { status: 200, body: [{ timestamp: '2024-01-01T00:00:00.000Z', count: 18 }] },
  },
  {
    name: 'rounds 2-hour buckets in New York across the autumn overlap',
    body: {
      source: 'movementEvents',
      filters: [ts('2024-11-03T00:00:00Z', '2024-11-03T12:00:00Z')],
      aggregations: [hist('2h', 'America/New_York')],
    },
    // Local grid 20:00 and 22:00 EDT, then 00:00 EDT to 02:00 EST (three hours, over the repeated 01:00 hour),
    // 02:00, 04:00 and 06:00 EST. me-16 (01:30 EDT) and me-17 (01:30 EST) share the long bucket.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-11-03T00:00:00.000Z' },
        { timestamp: '2024-11-03T02:00:00.000Z' },
        { timestamp: '2024-11-03T04:00:00.000Z', count: 2 },
        { timestamp: '2024-11-03T07:00:00.000Z' },
        { timestamp: '2024-11-03T09:00:00.000Z' },
        { timestamp: '2024-11-03T11:00:00.000Z' },
      ],
    },
  },
  {
    name: 'aligns 30-minute buckets in Kolkata (UTC+05:30)',
    body: {
      filters: [ts('2024-03-30T20:00:00Z', '2024-03-31T03:00:00Z')],
      aggregations: [hist('30m', 'Asia/Kolkata'), label],
    },
    // Half hours of UTC too (the offset is a multiple of 30 minutes): 20:00 to 02:30, 14 buckets.
    expected: {
      status: 200,
      rows: 14,
      span: ['2024-03-30T20:00:00.000Z', '2024-03-31T02:30:00.000Z'],
      nonEmpty: [
        { timestamp: '2024-03-30T22:30:00.000Z', car: 1 },
        { timestamp: '2024-03-30T23:30:00.000Z', person: 1 },
        { timestamp: '2024-03-31T00:30:00.000Z', truck: 1 },
        { timestamp: '2024-03-31T01:00:00.000Z', car: 1 },
      ],
    },
  },
  {
    name: 'makes a 23-hour day of the spring gap in New York',
    body: {
      filters: [ts('2024-03-09T00:00:00-05:00', '2024-03-12T00:00:00-04:00')],
      aggregations: [hist('1d', 'America/New_York'), label],
    },
    // Mar 10 starts at 05:00Z (EST) and Mar 11 at 04:00Z (EDT): 23 hours holding me-14 and me-15.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-09T05:00:00.000Z' },
        { timestamp: '2024-03-10T05:00:00.000Z', car: 1, truck: 1 },
        { timestamp: '2024-03-11T04:00:00.000Z' },
      ],
    },
  },
  {
    name: 'spans buckets from the bound to the last document when only from is given',
    body: { filters: [ts('2024-03-28T00:00:00Z')], aggregations: [hist('1d'), label] },
    // UTC days Mar 28 to Nov 4 (the last event at 04:59Z): 4 + 30 + 31 + 30 + 31 + 31 + 30 + 31 + 4 = 222.
    expected: {
      status: 200,
      rows: 222,
      span: ['2024-03-28T00:00:00.000Z', '2024-11-04T00:00:00.000Z'],
      nonEmpty: [
        { timestamp: '2024-03-29T00:00:00.000Z', car: 1 },
        { timestamp: '2024-03-30T00:00:00.000Z', car: 1, person: 1 },
        { timestamp: '2024-03-31T00:00:00.000Z', car: 1, person: 1, truck: 1 },
        { timestamp: '2024-04-02T00:00:00.000Z', truck: 1 },
        { timestamp: '2024-04-08T00:00:00.000Z', person: 1 },
        { timestamp: '2024-10-26T00:00:00.000Z', car: 1 },
        { timestamp: '2024-10-27T00:00:00.000Z', car: 1, person: 1, truck: 1 },
        { timestamp: '2024-11-03T00:00:00.000Z', car: 2 },
        { timestamp: '2024-11-04T00:00:00.000Z', person: 1 },
      ],
    },
  },
  {
    name: 'spans buckets from the first document to the bound when only to is given',
    body: { source: 'movementEvents', filters: [ts(undefined, '2024-04-10T00:00:00Z')], aggregations: [hist('1w')] },
    // From the week of me-14 (Sunday Mar 10, week of Mon Mar 4) to the week of Tue Apr 9.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-04T00:00:00.000Z', count: 2 },
        { timestamp: '2024-03-11T00:00:00.000Z' },
        { timestamp: '2024-03-18T00:00:00.000Z' },
        { timestamp: '2024-03-25T00:00:00.000Z', count: 7 },
        { timestamp: '2024-04-01T00:00:00.000Z', count: 1 },
        { timestamp: '2024-04-08T00:00:00.000Z', count: 1 },
      ],
    },
  },
  {
    name: 'answers an empty series for two timestamp ranges that do not overlap',
    body: {
      filters: [ts('2024-03-01T00:00:00Z', '2024-03-05T00:00:00Z'), ts('2024-04-01T00:00:00Z', '2024-04-05T00:00:00Z')],
      aggregations: [hist('1d'), label],
    },
    expected: { status: 200, body: [] },
  },
  {
    name: 'names Berlin crossings per day by line and direction, direction last, for one location',
    body: {
      locationIds: [LOC_BERLIN],
      filters: [spring],
      aggregations: [
        hist('1d', 'Europe/Berlin'),
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'terms', field: 'crossedPaths.id' },
      ],
    },
    // Berlin days: Mar 29 me-01; Mar 30 me-02; Mar 31 me-03 (two) 05 06; Apr 1 me-07; Apr 2 me-08.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-28T23:00:00.000Z', 'line-north A': 1 },
        { timestamp: '2024-03-29T23:00:00.000Z', 'line-north B': 1 },
        { timestamp: '2024-03-30T23:00:00.000Z', 'line-north A': 2, 'line-south A': 1, 'line-south B': 1 },
        { timestamp: '2024-03-31T22:00:00.000Z', 'line-south A': 1 },
        { timestamp: '2024-04-01T22:00:00.000Z', 'line-north B': 1 },
      ],
    },
  },
  {
    name: 'splits days into named filters buckets joined by a colon',
    body: {
      filters: [ts('2024-03-30T00:00:00Z', '2024-04-02T00:00:00Z')],
      aggregations: [
        hist('1d'),
        {
          type: 'filters',
          keyJoiner: ':',
          filters: { cars: terms('label', ['car']), people: terms('label', ['person']) },
        },
        { type: 'terms', field: 'trackingCameraId' },
      ],
    },
    // Mar 30: me-02 car, me-03 person; Mar 31: me-05 car, me-06 person (me-04 is a truck, me-07 unlabelled); Apr 1:
    // none.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-30T00:00:00.000Z', 'cars:cam-1': 1, 'people:cam-2': 1 },
        { timestamp: '2024-03-31T00:00:00.000Z', 'cars:cam-1': 1, 'people:cam-2': 1 },
        { timestamp: '2024-04-01T00:00:00.000Z' },
      ],
    },
  },
  {
    name: 'sums and counts polygon dwell times per month',
    body: {
      source: 'movementEvents',
      aggregations: [
        hist('1M'),
        { type: 'nested', path: 'polygons' },
        { type: 'stats', field: 'polygons.value', sum: true, count: true, avg: false },
      ],
    },
    // March: 1.5 0.1 0.2 0.7 2.25 0.15; April: 0.3 0.6; October: 0.25 1.1 2.2. November has events but
    // no polygon, May to September nothing: the sum and the count of no values are 0, and are written.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-01T00:00:00.000Z', sum: expect.closeTo(4.9, 9), count: 6 },
        { timestamp: '2024-04-01T00:00:00.000Z', sum: expect.closeTo(0.9, 9), count: 2 },
        { timestamp: '2024-05-01T00:00:00.000Z', sum: 0, count: 0 },
        { timestamp: '2024-06-01T00:00:00.000Z', sum: 0, count: 0 },
        { timestamp: '2024-07-01T00:00:00.000Z', sum: 0, count: 0 },
        { timestamp: '2024-08-01T00:00:00.000Z', sum: 0, count: 0 },
        { timestamp: '2024-09-01T00:00:00.000Z', sum: 0, count: 0 },
        { timestamp: '2024-10-01T00:00:00.000Z', sum: expect.closeTo(3.55, 9), count: 3 },
        { timestamp: '2024-11-01T00:00:00.000Z', sum: 0, count: 0 },
      ],
    },
  },
  {
    name: 'takes an hourly histogram with named filters exactly up to the bucket limit',
    // 1976 hours, 11 of them with documents × 2 filters buckets, + 2 for the empty-bucket template = 2000.
    body: {
      filters: [ts('2024-03-01T00:00:00Z', '2024-05-22T08:00:00Z')],
      aggregations: [
        hist('1h'),
        { type: 'filters', filters: { cars: terms('label', ['car']), people: terms('label', ['person']) } },
      ],
    },
    expected: { status: 200, rows: 1976 },
  },
  {
    name: 'refuses the same histogram one hour longer: 2001 buckets',
    body: {
      filters: [ts('2024-03-01T00:00:00Z', '2024-05-22T09:00:00Z')],
      aggregations: [
        hist('1h'),
        { type: 'filters', filters: { cars: terms('label', ['car']), people: terms('label', ['person']) } },
      ],
    },
    expected: { status: 422, type: '/problems#too-many-buckets' },
  },
  {
    name: 'refuses a 1-minute histogram over two days (2880 buckets)',
    body: { filters: [ts('2024-03-30T00:00:00Z', '2024-04-01T00:00:00Z')], aggregations: [hist('1m'), label] },
    expected: { status: 422, type: '/problems#too-many-buckets' },
  },
  {
    name: 'refuses a split report whose slices together carry more than 4 × the bucket limit in filters templates',
    // Issue 20: 200 under `npm start` (its report cache hid the engine's bucket limit), 422 on OpenSearch.
    // The 1-year `1h` report against 65,535 scaled to this node's 2000: 366 days of 2024 (a
    // leap year) × 40 filters buckets = 14,640 > 4 × 2000; each monthly slice (≤ 31 × 41 = 1271) passes alone.
    body: {
      splitInterval: '1M',
      filters: [ts('2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z')],
      aggregations: [
        hist('1d'),
        {
          type: 'filters',
          filters: Object.fromEntries(Array.from({ length: 40 }, (_, j) => [`b${j}`, terms('label', ['car'])])),
        },
      ],
    },
    expected: {
      status: 422,
      body: {
        type: '/problems#too-many-buckets',
        title: 'Too many buckets',
        status: 422,
        detail:
          'Each of its 366 time buckets would carry the 40 buckets of its filters stages, 14640 in all: more than 8000 (4 × the bucket limit of 2000), ' +
          'however the report is split. Use a coarser dateHistogram interval, a shorter time range, or fewer filters buckets.',
        maxBuckets: 2000,
      },
    },
  },
  {
    name: 'merges monthly slices of a splitInterval report into the unsplit answer',
    body: {
      splitInterval: '1M',
      filters: [ts('2024-03-01T00:00:00+01:00', '2024-05-01T00:00:00+02:00')],
      aggregations: [hist('1d', 'Europe/Berlin'), label],
    },
    // The 61 Berlin days of March and April; me-07 (Apr 1) has no label, so its day is timestamp-only.
    expected: {
      status: 200,
      rows: 61,
      span: ['2024-02-29T23:00:00.000Z', '2024-04-29T22:00:00.000Z'],
      nonEmpty: [
        { timestamp: '2024-03-09T23:00:00.000Z', car: 1, truck: 1 },
        { timestamp: '2024-03-28T23:00:00.000Z', car: 1 },
        { timestamp: '2024-03-29T23:00:00.000Z', car: 1 },
        { timestamp: '2024-03-30T23:00:00.000Z', car: 1, person: 2, truck: 1 },
        { timestamp: '2024-04-01T22:00:00.000Z', truck: 1 },
        { timestamp: '2024-04-07T22:00:00.000Z', person: 1 },
      ],
    },
  },
];
