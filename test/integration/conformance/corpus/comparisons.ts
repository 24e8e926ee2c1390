import { LOC_BERLIN, LOC_NYC } from '../../../fixtures/documents';
import { range, type ConformanceCase } from './case';

/**
 * Period-over-period comparisons (`compare`): the same report over an earlier period, paired bucket
 * by bucket. Worked out from test/fixtures/documents.ts: Berlin's spring DST day (2024-03-31, no
 * 02:00) and autumn day (2024-10-27, 02:00 twice), Asia/Kolkata (UTC+05:30), a month offset from a
 * 30-day month into a 31-day one, and split reports (each period cut into its own slices).
 */
const ts = (from: string, to: string) => range('timestamp', from, to);
const movements = { source: 'movementEvents' };
const hourly = { type: 'dateHistogram', interval: '1h', timeZone: 'Europe/Berlin' };
const berlinDays = { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' };

export const COMPARISON_CASES: readonly ConformanceCase[] = [
  {
    name: 'compares the hours of a Sunday with the spring DST Sunday a week before: 03:00 with 03:00, and 02:00 alone',
    body: {
      ...movements,
      filters: [ts('2024-04-07T00:00:00+02:00', '2024-04-07T05:00:00+02:00')],
      aggregations: [hourly],
      compare: { offset: '1w' },
    },
    // Previous period: Mar 31 00:00+01 (23:00Z) to 05:00+02 (03:00Z), whose local hours are 00, 01, 03, 04:
    // me-03 23:30Z → 00:00, me-04 00:59:59.999Z → 01:00, me-05 01:00Z → 03:00. April 7 has no document.
    expected: {
      status: 200,
      body: [
        {
          current: { timestamp: '2024-04-06T22:00:00.000Z' },
          previous: { timestamp: '2024-03-30T23:00:00.000Z', count: 1 },
        },
        {
          current: { timestamp: '2024-04-06T23:00:00.000Z' },
          previous: { timestamp: '2024-03-31T00:00:00.000Z', count: 1 },
        },
        { current: { timestamp: '2024-04-07T00:00:00.000Z' } },
        {
          current: { timestamp: '2024-04-07T01:00:00.000Z' },
          previous: { timestamp: '2024-03-31T01:00:00.000Z', count: 1 },
        },
        { current: { timestamp: '2024-04-07T02:00:00.000Z' }, previous: { timestamp: '2024-03-31T02:00:00.000Z' } },
      ],
    },
  },
  {
    name: 'compares the autumn DST night by label as CSV: the second 02:00 has no partner a week before',
    body: {
      ...movements,
      filters: [ts('2024-10-27T00:00:00+02:00', '2024-10-27T04:00:00+01:00')],
      aggregations: [hourly, { type: 'terms', field: 'label' }],
      compare: { offset: '1w' },
    },
    accept: 'text/csv',
    // Local hours 00, 01, 02 (+02), 02 (+01), 03: me-09 22:30Z car, me-10 00:30Z car, me-11 01:30Z person.
    // A week before (Oct 20, 00:00+02 to 04:00+02) has four hours and no document. localTime tells the
    // two 02:00s apart by their offsets.
    expected: {
      status: 200,
      body:
        'timestamp,localTime,car,person,previous timestamp,previous localTime,previous car,previous person\r\n' +
        '2024-10-26T22:00:00.000Z,2024-10-27T00:00:00+02:00,1,0,2024-10-19T22:00:00.000Z,2024-10-20T00:00:00+02:00,0,0\r\n' +
        '2024-10-26T23:00:00.000Z,2024-10-27T01:00:00+02:00,0,0,2024-10-19T23:00:00.000Z,2024-10-20T01:00:00+02:00,0,0\r\n' +
        '2024-10-27T00:00:00.000Z,2024-10-27T02:00:00+02:00,1,0,2024-10-20T00:00:00.000Z,2024-10-20T02:00:00+02:00,0,0\r\n' +
        '2024-10-27T01:00:00.000Z,2024-10-27T02:00:00+01:00,0,1,,,,\r\n' +
        '2024-10-27T02:00:00.000Z,2024-10-27T03:00:00+01:00,0,0,2024-10-20T01:00:00.000Z,2024-10-20T03:00:00+02:00,0,0\r\n',
    },
  },
  {
    name: 'compares a Kolkata day of New York events with the day before, by label, without a histogram',
    body: {
      locationIds: [LOC_NYC],
      filters: [ts('2024-11-04T00:00:00+05:30', '2024-11-05T00:00:00+05:30')],
      aggregations: [{ type: 'terms', field: 'label' }],
      compare: { offset: '1d', timeZone: 'Asia/Kolkata' },
    },
    // Nov 4 in Kolkata is Nov 3 18:30Z to Nov 4 18:30Z: the person at 04:59Z. Nov 3: the cars at 05:30Z and 06:30Z.
    expected: { status: 200, body: { current: { person: 1 }, previous: { car: 2 } } },
  },
  {
    name: 'writes an object comparison as CSV: every series of either period, a count absent in one is 0',
    body: {
      locationIds: [LOC_NYC],
      filters: [ts('2024-11-04T00:00:00+05:30', '2024-11-05T00:00:00+05:30')],
      aggregations: [{ type: 'terms', field: 'label' }],
      compare: { offset: '1d', timeZone: 'Asia/Kolkata' },
    },
    accept: 'text/csv',
    expected: { status: 200, body: 'car,person,previous car,previous person\r\n0,1,2,0\r\n' },
  },
  {
    name: 'compares Kolkata days with the days before: buckets start at 18:30Z',
    body: {
      ...movements,
      locationIds: [LOC_NYC],
      filters: [ts('2024-11-03T00:00:00+05:30', '2024-11-05T00:00:00+05:30')],
      aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: 'Asia/Kolkata' }],
      compare: { offset: '1d' },
    },
    // Nov 3 local: 05:30Z and 06:30Z; Nov 4 local: 04:59Z; Nov 2 local: nothing.
    expected: {
      status: 200,
      body: [
        {
          current: { timestamp: '2024-11-02T18:30:00.000Z', count: 2 },
          previous: { timestamp: '2024-11-01T18:30:00.000Z' },
        },
        {
          current: { timestamp: '2024-11-03T18:30:00.000Z', count: 1 },
          previous: { timestamp: '2024-11-02T18:30:00.000Z', count: 2 },
        },
      ],
    },
  },
  {
    name: 'compares April 30 with a month before: March 30 to April 1, whose 31st stands alone',
    body: {
      ...movements,
      locationIds: [LOC_BERLIN],
      filters: [ts('2024-04-30T00:00:00+02:00', '2024-05-01T00:00:00+02:00')],
      aggregations: [berlinDays],
      compare: { offset: '1M' },
    },
    // Both ends move a month: [Apr 30, May 1) → [Mar 30, Apr 1). Mar 30 (Berlin): me-02 at 23:30+01;
    // Mar 31: me-03, me-04, me-05, me-06 (me-07 at 22:00Z is April 1).
    expected: {
      status: 200,
      body: [
        {
          current: { timestamp: '2024-04-29T22:00:00.000Z' },
          previous: { timestamp: '2024-03-29T23:00:00.000Z', count: 1 },
        },
        { previous: { timestamp: '2024-03-30T23:00:00.000Z', count: 4 } },
      ],
    },
  },
  {
    name: 'compares Berlin months with the months before, each period cut into monthly slices',
    body: {
      ...movements,
      locationIds: [LOC_BERLIN],
      filters: [ts('2024-04-01T00:00:00+02:00', '2024-06-01T00:00:00+02:00')],
      aggregations: [{ type: 'dateHistogram', interval: '1M', timeZone: 'Europe/Berlin' }],
      compare: { offset: '1M' },
      splitInterval: '1M',
    },
    // March: me-01..me-06; April: me-07, me-08, me-13; May: nothing.
    expected: {
      status: 200,
      body: [
        {
          current: { timestamp: '2024-03-31T22:00:00.000Z', count: 3 },
          previous: { timestamp: '2024-02-29T23:00:00.000Z', count: 6 },
        },
        {
          current: { timestamp: '2024-04-30T22:00:00.000Z' },
          previous: { timestamp: '2024-03-31T22:00:00.000Z', count: 3 },
        },
      ],
    },
  },
  {
    name: 'compares Berlin days across the spring change with the days before, split by day',
    body: {
      ...movements,
      locationIds: [LOC_BERLIN],
      filters: [ts('2024-03-30T00:00:00+01:00', '2024-04-02T00:00:00+02:00')],
      aggregations: [berlinDays],
      compare: { offset: '1d' },
      splitInterval: '1d',
    },
    // Mar 29: me-01; Mar 30: me-02; Mar 31 (23 hours): me-03..me-06; Apr 1: me-07.
    expected: {
      status: 200,
      body: [
        {
          current: { timestamp: '2024-03-29T23:00:00.000Z', count: 1 },
          previous: { timestamp: '2024-03-28T23:00:00.000Z', count: 1 },
        },
        {
          current: { timestamp: '2024-03-30T23:00:00.000Z', count: 4 },
          previous: { timestamp: '2024-03-29T23:00:00.000Z', count: 1 },
        },
        {
          current: { timestamp: '2024-03-31T22:00:00.000Z', count: 1 },
          previous: { timestamp: '2024-03-30T23:00:00.000Z', count: 4 },
        },
      ],
    },
  },
  {
    name: 'refuses compare without a timestamp range to move',
    body: { ...movements, aggregations: [{ type: 'terms', field: 'label' }], compare: { offset: '1w' } },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses a compare offset in hours',
    body: {
      ...movements,
      filters: [ts('2024-03-30T00:00:00Z', '2024-03-31T00:00:00Z')],
      aggregations: [{ type: 'terms', field: 'label' }],
      compare: { offset: '6h' },
    },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: "refuses a compare time zone other than the histogram's",
    body: {
      ...movements,
      filters: [ts('2024-03-30T00:00:00Z', '2024-04-01T00:00:00Z')],
      aggregations: [berlinDays],
      compare: { offset: '1w', timeZone: 'UTC' },
    },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses a timestamp filter inside a stage of a comparison, which would not move',
    body: {
      ...movements,
      filters: [ts('2024-03-30T00:00:00Z', '2024-04-01T00:00:00Z')],
      aggregations: [{ type: 'filter', filter: range('timestamp', '2024-03-31T00:00:00Z') }],
      compare: { offset: '1d' },
    },
    expected: { status: 400, type: '/problems#validation' },
  },
];
