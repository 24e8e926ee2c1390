import { LOC_BERLIN } from '../../../fixtures/documents';
import { range, terms, type ConformanceCase } from './case';

/**
 * dateHistogram requests: fixed and calendar intervals, time zones with DST changes, bounds on both
 * sides, one side or none, sub-aggregations, CSV, splitInterval and the bucket limit (the node runs
 * with search.max_buckets = TEST_MAX_BUCKETS = 2000; the DuckDB engine is given the same limit).
 */
const ts = (from?: string, to?: string) => range('timestamp', from, to);
const hist = (interval: string, timeZone?: string) => ({ type: 'dateHistogram', interval, ...(timeZone ? { timeZone } : {}) });
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
    body: { filters: [spring], aggregations: [hist('1d', 'Europe/Berlin'), label] },
    accept: 'text/csv',
    expected: {
      status: 200,
      headers: { 'Content-Type': 'text/csv; charset=utf-8' },
      body:
        'timestamp,car,person,truck\r\n2024-03-28T23:00:00.000Z,1,0,0\r\n2024-03-29T23:00:00.000Z,1,0,0\r\n' +
        '2024-03-30T23:00:00.000Z,1,2,1\r\n2024-03-31T22:00:00.000Z,0,0,0\r\n2024-04-01T22:00:00.000Z,0,0,1\r\n',
    },
  },
  {
    name: 'aligns 90-minute buckets to local time in Berlin, the bucket over the autumn overlap 2.5 hours long',
    body: { source: 'movementEvents', filters: [ts('2024-10-26T22:00:00Z', '2024-10-27T04:00:00Z')], aggregations: [hist('90m', 'Europe/Berlin')] },
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
    body: { source: 'movementEvents', filters: [ts('2024-03-31T00:00:00Z', '2024-03-31T00:59:59.9991Z')], aggregations: [hist('1h')] },
    expected: { status: 200, body: [{ timestamp: '2024-03-31T00:00:00.000Z', count: 1 }] },
  },
  {
    name: 'answers no bucket for a range whose bounds lie within one millisecond',
    body: { source: 'movementEvents', filters: [ts('2024-03-31T00:59:59.9982Z', '2024-03-31T00:59:59.9989Z')], aggregations: [hist('1h')] },
    // Both bounds round up to 00:59:59.999: [.999, .999) holds nothing, not even me-04 at .999.
    expected: { status: 200, body: [] },
  },
  { name: 'starts fixed 7-day buckets on a Thursday in New York across the spring change, without bounds', body: { source: 'movementEvents', aggregations: [hist('7d', 'America/New_York'), label] } },
  { name: 'spans 7-day Berlin buckets over bounds in March and April', body: { source: 'movementEvents', filters: [ts('2024-03-01T00:00:00Z', '2024-05-01T00:00:00Z')], aggregations: [hist('7d', 'Europe/Berlin')] } },
  { name: 'starts calendar weeks on Monday in Berlin', body: { filters: [ts('2024-03-25T00:00:00+01:00', '2024-04-15T00:00:00+02:00')], aggregations: [hist('1w', 'Europe/Berlin'), label] } },
  { name: 'counts calendar months in New York from the first to the last non-empty month', body: { source: 'movementEvents', aggregations: [hist('1M', 'America/New_York'), { type: 'terms', field: 'locationId' }] } },
  {
    name: 'names quarter series by location and label joined by a slash',
    body: { source: 'movementEvents', aggregations: [hist('1q', 'Europe/Berlin'), { type: 'terms', field: 'locationId', keyJoiner: '/' }, label] },
  },
  { name: 'counts calendar years in UTC', body: { source: 'movementEvents', aggregations: [hist('1y')] } },
  { name: 'rounds 2-hour buckets in New York across the autumn overlap', body: { source: 'movementEvents', filters: [ts('2024-11-03T00:00:00Z', '2024-11-03T12:00:00Z')], aggregations: [hist('2h', 'America/New_York')] } },
  { name: 'aligns 30-minute buckets in Kolkata (UTC+05:30)', body: { filters: [ts('2024-03-30T20:00:00Z', '2024-03-31T03:00:00Z')], aggregations: [hist('30m', 'Asia/Kolkata'), label] } },
  { name: 'makes a 23-hour day of the spring gap in New York', body: { filters: [ts('2024-03-09T00:00:00-05:00', '2024-03-12T00:00:00-04:00')], aggregations: [hist('1d', 'America/New_York'), label] } },
  { name: 'spans buckets from the bound to the last document when only from is given', body: { filters: [ts('2024-03-28T00:00:00Z')], aggregations: [hist('1d'), label] } },
  { name: 'spans buckets from the first document to the bound when only to is given', body: { source: 'movementEvents', filters: [ts(undefined, '2024-04-10T00:00:00Z')], aggregations: [hist('1w')] } },
  { name: 'answers an empty series for two timestamp ranges that do not overlap', body: { filters: [ts('2024-03-01T00:00:00Z', '2024-03-05T00:00:00Z'), ts('2024-04-01T00:00:00Z', '2024-04-05T00:00:00Z')], aggregations: [hist('1d'), label] } },
  {
    name: 'names Berlin crossings per day by line and direction, direction last, for one location',
    body: {
      locationIds: [LOC_BERLIN],
      filters: [spring],
      aggregations: [hist('1d', 'Europe/Berlin'), { type: 'nested', path: 'crossedPaths' }, { type: 'terms', field: 'crossedPaths.end' }, { type: 'terms', field: 'crossedPaths.id' }],
    },
  },
  {
    name: 'splits days into named filters buckets joined by a colon',
    body: {
      filters: [ts('2024-03-30T00:00:00Z', '2024-04-02T00:00:00Z')],
      aggregations: [hist('1d'), { type: 'filters', keyJoiner: ':', filters: { cars: terms('label', ['car']), people: terms('label', ['person']) } }, { type: 'terms', field: 'trackingCameraId' }],
    },
  },
  {
    name: 'sums and counts polygon dwell times per month',
    body: { source: 'movementEvents', aggregations: [hist('1M'), { type: 'nested', path: 'polygons' }, { type: 'stats', field: 'polygons.value', sum: true, count: true, avg: false }] },
  },
  {
    name: 'takes an hourly histogram with named filters exactly up to the bucket limit',
    // 1976 hours, 11 of them with documents × 2 filters buckets, + 2 for the empty-bucket template = 2000.
    body: { filters: [ts('2024-03-01T00:00:00Z', '2024-05-22T08:00:00Z')], aggregations: [hist('1h'), { type: 'filters', filters: { cars: terms('label', ['car']), people: terms('label', ['person']) } }] },
    expected: { status: 200, rows: 1976 },
  },
  {
    name: 'refuses the same histogram one hour longer: 2001 buckets',
    body: { filters: [ts('2024-03-01T00:00:00Z', '2024-05-22T09:00:00Z')], aggregations: [hist('1h'), { type: 'filters', filters: { cars: terms('label', ['car']), people: terms('label', ['person']) } }] },
    expected: { status: 422, type: 'https://lrs.example.com/problems/too-many-buckets' },
  },
  {
    name: 'refuses a 1-minute histogram over two days (2880 buckets)',
    body: { filters: [ts('2024-03-30T00:00:00Z', '2024-04-01T00:00:00Z')], aggregations: [hist('1m'), label] },
    expected: { status: 422, type: 'https://lrs.example.com/problems/too-many-buckets' },
  },
  {
    name: 'merges monthly slices of a splitInterval report into the unsplit answer',
    body: { splitInterval: '1M', filters: [ts('2024-03-01T00:00:00+01:00', '2024-05-01T00:00:00+02:00')], aggregations: [hist('1d', 'Europe/Berlin'), label] },
  },
];
