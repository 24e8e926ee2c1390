import { LOC_BERLIN, LOC_NYC } from '../../../fixtures/documents';
import { range, type ConformanceCase } from './case';

/**
 * Daily and weekly profiles (`profile` stages): the local hour or weekday of each document, on the
 * DST days of the fixtures (Berlin 2024-03-31 has no 02:00 hour, 2024-10-27 has it twice) and in a
 * :30 zone (Asia/Kolkata, UTC+05:30 all year). Weekdays: 2024-03-31, 2024-10-27, 2024-03-10 and
 * 2024-11-03 were Sundays.
 */
const ts = (from: string, to: string) => range('timestamp', from, to);
const profile = (unit: string, timeZone?: string) => ({ type: 'profile', unit, ...(timeZone ? { timeZone } : {}) });
const movements = { source: 'movementEvents' };

export const PROFILE_CASES: readonly ConformanceCase[] = [
  {
    name: 'profiles the Berlin spring DST day by local hour: no 02:00, me-05 at 01:00Z is 03:00',
    body: {
      ...movements,
      filters: [ts('2024-03-31T00:00:00+01:00', '2024-04-01T00:00:00+02:00')],
      aggregations: [profile('hour', 'Europe/Berlin')],
    },
    // me-03 23:30Z → 00:30+01; me-04 00:59:59.999Z → 01:59+01; me-05 01:00Z → 03:00+02; me-06 21:59Z → 23:59+02; me-07
    // at 22:00Z is the next day.
    expected: { status: 200, body: { '00:00': 1, '01:00': 1, '03:00': 1, '23:00': 1 } },
  },
  {
    name: 'counts both 02:00 hours of the Berlin autumn DST day in one bucket, by label',
    body: {
      ...movements,
      filters: [ts('2024-10-27T00:00:00+02:00', '2024-10-28T00:00:00+01:00')],
      aggregations: [profile('hour', 'Europe/Berlin'), { type: 'terms', field: 'label' }],
    },
    // me-09 22:30Z → 00:30+02; me-10 02:30+02 and me-11 02:30+01; me-12 at 23:30Z is the next day.
    expected: { status: 200, body: { '00:00 car': 1, '02:00 car': 1, '02:00 person': 1 } },
  },
  {
    name: 'profiles New York events by hour in Asia/Kolkata, half an hour off UTC',
    body: { ...movements, locationIds: [LOC_NYC], aggregations: [profile('hour', 'Asia/Kolkata')] },
    // UTC 06:30, 07:15, 05:30, 06:30, 04:59 → 12:00, 12:45, 11:00, 12:00, 10:29 local.
    expected: { status: 200, body: { '10:00': 1, '11:00': 1, '12:00': 3 } },
  },
  {
    name: 'profiles every event of org A by weekday in Asia/Kolkata, in ISO order from Monday',
    body: { ...movements, aggregations: [profile('weekday', 'Asia/Kolkata')] },
    // Monday: me-06, me-07 (Apr 1 local), me-12 (Oct 28), me-13 (Apr 8), me-18 (Nov 4); Tuesday me-08;
    // Friday me-01; every other event is on a local Sunday.
    expected: { status: 200, body: { monday: 5, tuesday: 1, friday: 1, sunday: 11 } },
  },
  {
    name: 'splits Berlin weeks by local weekday as CSV, columns in weekday order',
    body: {
      ...movements,
      locationIds: [LOC_BERLIN],
      filters: [ts('2024-03-25T00:00:00+01:00', '2024-04-08T00:00:00+02:00')],
      aggregations: [
        { type: 'dateHistogram', interval: '1w', timeZone: 'Europe/Berlin' },
        profile('weekday', 'Europe/Berlin'),
      ],
    },
    accept: 'text/csv',
    // Week of Mar 25: me-01 Fri, me-02 Sat 23:30+01, me-03..me-06 Sun. Week of Apr 1: me-07 Mon 00:00+02, me-08 Tue.
    // localTime: each week starts on a Monday at midnight in Berlin, +01:00 before the spring change, +02:00 after.
    expected: {
      status: 200,
      body:
        'timestamp,localTime,monday,tuesday,friday,saturday,sunday\r\n' +
        '2024-03-24T23:00:00.000Z,2024-03-25T00:00:00+01:00,0,0,1,1,4\r\n2024-03-31T22:00:00.000Z,2024-04-01T00:00:00+02:00,1,1,0,0,0\r\n',
    },
  },
  {
    name: 'answers the longest parking and the number of durations per Berlin hour of arrival',
    body: {
      source: 'parkingEvents',
      aggregations: [
        profile('hour', 'Europe/Berlin'),
        { type: 'stats', field: 'duration', avg: false, max: true, count: true },
      ],
    },
    // pe-01 10:00Z → 11:00+01 (600.5), pe-02 → 13:00 (1200), pe-03 08:00Z → 10:00+02 (33.3), pe-04 → 11:00 (0.1),
    // pe-05 → 17:00 (0.2), pe-06 → 18:00 without a duration.
    expected: {
      status: 200,
      body: {
        '10:00 max': 33.3,
        '10:00 count': 1,
        '11:00 max': 600.5,
        '11:00 count': 2,
        '13:00 max': 1200,
        '13:00 count': 1,
        '17:00 max': 0.2,
        '17:00 count': 1,
        '18:00 count': 0,
      },
    },
  },
  {
    name: 'profiles documents again after reverseNested: events that crossed a line, by UTC weekday',
    body: {
      locationIds: [LOC_NYC],
      aggregations: [{ type: 'nested', path: 'crossedPaths' }, { type: 'reverseNested' }, profile('weekday')],
    },
    // me-14..me-17 crossed a line, all on Sunday in UTC; the fifth New York event crossed none.
    expected: { status: 200, body: { sunday: 4 } },
  },
  {
    name: 'refuses a profile unit it does not know',
    body: { ...movements, aggregations: [profile('minute')] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses a profile in an unknown time zone',
    body: { ...movements, aggregations: [profile('hour', 'Mars/Olympus')] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses a profile of nested items',
    body: { aggregations: [{ type: 'nested', path: 'polygons' }, profile('hour')] },
    expected: { status: 400, type: '/problems#validation' },
  },
];
