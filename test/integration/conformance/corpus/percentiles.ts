import { range, type ConformanceCase } from './case';

/**
 * Median and percentiles (docs/request-language.md, "Percentiles"): Hazen's definition, as
 * OpenSearch's t-digest computes it while every centroid holds one value. Over the sorted values
 * x_0..x_{n−1} of a bucket, percentile p sits at index = p/100 · n: below 0.5 it is x_0, from
 * n − 0.5 on x_{n−1}, and between it interpolates x_i and x_{i+1} where i + 0.5 <= index < i + 1.5,
 * weighted (i + 1.5 − index) and (index − i − 0.5). The arithmetic is written out per case; where a
 * weighted mean is not exact in doubles the answer is the double the formula gives (0.1·0.25 + 0.2·0.75
 * is 0.17500000000000002).
 *
 * Org A's parking durations: pe-01 600.5 (lot-1, 03-30), pe-02 1200 (lot-1, 03-30), pe-03 33.3 (lot-1,
 * 03-31), pe-04 0.1 (lot-2, 03-31), pe-05 0.2 (lot-9, 04-01); pe-06 (lot-2, 04-01) has none.
 */
const parking = { source: 'parkingEvents' };
const stats = (field: string, extra: Record<string, unknown>) => ({ type: 'stats', field, ...extra });

export const PERCENTILE_CASES: readonly ConformanceCase[] = [
  {
    name: 'answers the median and the quartiles and 90th percentile of every parking duration',
    body: { ...parking, aggregations: [stats('duration', { median: true, percentiles: [25, 75, 90] })] },
    // n = 5, sorted 0.1 0.2 33.3 600.5 1200. median: index 2.5 → x_2 = 33.3. p25: index 1.25 → between
    // x_0 and x_1, weights 0.25 and 0.75 → 0.175. p75: index 3.75 → x_3·0.75 + x_4·0.25 = 750.375.
    // p90: index 4.5 ≥ n − 0.5 → x_4 = 1200.
    expected: { status: 200, body: { median: 33.3, p25: 0.17500000000000002, p75: 750.375, p90: 1200 } },
  },
  {
    name: 'answers percentiles per lot, a lot with one duration answering it for every percentile',
    body: {
      ...parking,
      aggregations: [
        { type: 'terms', field: 'parkingLotId' },
        stats('duration', { count: true, median: true, percentiles: [25, 90] }),
      ],
    },
    // lot-1: 33.3 600.5 1200; median index 1.5 → x_1; p25 index 0.75 → 33.3·0.75 + 600.5·0.25 = 175.1;
    // p90 index 2.7 ≥ 2.5 → x_2. lot-2: 0.1 alone (pe-06 has no duration). lot-9: 0.2 alone.
    expected: {
      status: 200,
      body: {
        'lot-1 count': 3,
        'lot-1 median': 600.5,
        'lot-1 p25': 175.1,
        'lot-1 p90': 1200,
        'lot-2 count': 1,
        'lot-2 median': 0.1,
        'lot-2 p25': 0.1,
        'lot-2 p90': 0.1,
        'lot-9 count': 1,
        'lot-9 median': 0.2,
        'lot-9 p25': 0.2,
        'lot-9 p90': 0.2,
      },
    },
  },
  {
    name: 'leaves the median of a bucket without values out, as min and max, beside its count of 0',
    body: {
      ...parking,
      aggregations: [
        { type: 'filters', filters: { short: range('duration', undefined, 1), long: range('duration', 5000) } },
        stats('duration', { count: true, median: true }),
      ],
    },
    // short: 0.1 0.2, index 1 → 0.1·0.5 + 0.2·0.5 = 0.15000000000000002; long: no duration.
    expected: { status: 200, body: { 'short count': 2, 'short median': 0.15000000000000002, 'long count': 0 } },
  },
  {
    name: 'writes the daily median parking time as CSV, empty on a day without durations',
    body: {
      ...parking,
      filters: [range('timestamp', '2024-03-30T00:00:00Z', '2024-04-03T00:00:00Z')],
      aggregations: [{ type: 'dateHistogram', interval: '1d' }, stats('duration', { median: true })],
    },
    accept: 'text/csv',
    // 03-30: 600.5 1200 → (600.5 + 1200) / 2 = 900.25; 03-31: 0.1 33.3 → 16.7; 04-01: 0.2 (pe-06 none); 04-02: none.
    expected: {
      status: 200,
      body: 'timestamp,median\r\n2024-03-30T00:00:00.000Z,900.25\r\n2024-03-31T00:00:00.000Z,16.7\r\n2024-04-01T00:00:00.000Z,0.2\r\n2024-04-02T00:00:00.000Z,\r\n',
    },
  },
  {
    name: 'answers the daily median per Berlin day across the spring change, the 23-hour day included',
    body: {
      ...parking,
      filters: [range('timestamp', '2024-03-29T23:00:00Z', '2024-04-02T22:00:00Z')],
      aggregations: [
        { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' },
        stats('duration', { median: true, percentiles: [90] }),
      ],
    },
    // Berlin days: 03-30 from 03-29T23:00Z (UTC+1), 03-31 from 03-30T23:00Z (23 hours: clocks go to
    // UTC+2 at 01:00Z), 04-01 and 04-02 from 22:00Z. pe-01 11:00 and pe-02 13:00 local on 03-30: median
    // index 1 → 600.5·0.5 + 1200·0.5 = 900.25, p90 index 1.8 ≥ 1.5 → 1200; pe-03 10:00 and pe-04 11:00
    // (UTC+2) on 03-31: 0.1 33.3 → 16.7, p90 33.3; pe-05 17:00 on 04-01: 0.2 alone; 04-02: no duration.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-29T23:00:00.000Z', median: 900.25, p90: 1200 },
        { timestamp: '2024-03-30T23:00:00.000Z', median: 16.7, p90: 33.3 },
        { timestamp: '2024-03-31T22:00:00.000Z', median: 0.2, p90: 0.2 },
        { timestamp: '2024-04-01T22:00:00.000Z' },
      ],
    },
  },
  {
    name: 'answers the 12-hour median in Kolkata (+05:30), buckets starting at 06:30 and 18:30 UTC',
    body: {
      ...parking,
      filters: [range('timestamp', '2024-03-30T06:30:00Z', '2024-03-31T18:30:00Z')],
      aggregations: [
        { type: 'dateHistogram', interval: '12h', timeZone: 'Asia/Kolkata' },
        stats('duration', { median: true }),
      ],
    },
    // Local halves of 03-30 12:00, 03-31 00:00 and 03-31 12:00 (06:30Z, 18:30Z, 06:30Z). pe-01 15:30:00.5
    // and pe-02 17:30 local: 900.25; nothing from 18:30Z to 06:30Z; pe-03 13:30 and pe-04 14:30 local: 16.7.
    expected: {
      status: 200,
      body: [
        { timestamp: '2024-03-30T06:30:00.000Z', median: 900.25 },
        { timestamp: '2024-03-30T18:30:00.000Z' },
        { timestamp: '2024-03-31T06:30:00.000Z', median: 16.7 },
      ],
    },
  },
  {
    name: 'answers percentiles of nested polygon values per zone',
    body: {
      aggregations: [
        { type: 'nested', path: 'polygons' },
        { type: 'terms', field: 'polygons.id' },
        stats('polygons.value', { median: true, percentiles: [90] }),
      ],
    },
    // zone-1: 0.1 0.15 0.25 0.3 1.5 2.25; median index 3 → 0.25·0.5 + 0.3·0.5 = 0.275; p90 index 5.4 →
    // 1.5·0.1 + 2.25·0.9 = 2.1750000000000003. zone-2: 0.2 0.6 0.7 1.1 2.2; median x_2 = 0.7; p90 index 4.5 → 2.2.
    expected: {
      status: 200,
      body: { 'zone-1 median': 0.275, 'zone-1 p90': 2.1750000000000003, 'zone-2 median': 0.7, 'zone-2 p90': 2.2 },
    },
  },
  {
    name: 'answers the 10th, 50th and 90th percentile of lot occupancy, the 10th below the first middle',
    body: {
      source: 'parkingLotStats',
      aggregations: [{ type: 'terms', field: 'parkingLotId' }, stats('occupied', { percentiles: [10, 50, 90] })],
    },
    // lot-1: 10 12 30; p10 index 0.3 < 0.5 → x_0; median x_1; p90 index 2.7 → x_2. lot-2: 5 7; p10 index
    // 0.2 → 5; median index 1 → 6; p90 index 1.8 ≥ 1.5 → 7. lot-9: 0.1 2.5; p10 → 0.1; median 1.3; p90 2.5.
    expected: {
      status: 200,
      body: {
        'lot-1 p10': 10,
        'lot-1 p50': 12,
        'lot-1 p90': 30,
        'lot-2 p10': 5,
        'lot-2 p50': 6,
        'lot-2 p90': 7,
        'lot-9 p10': 0.1,
        'lot-9 p50': 1.3,
        'lot-9 p90': 2.5,
      },
    },
  },
  ...(
    [
      ['a percent above 100', { percentiles: [50, 101] }],
      ['a percent with more than 2 decimals', { percentiles: [99.999] }],
      ['a percent asked for twice', { percentiles: [90, 50, 90] }],
      ['the median asked for twice', { median: true, percentiles: [50] }],
      ['more than 10 percentiles', { percentiles: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }],
      ['an empty list of percentiles', { percentiles: [] }],
    ] as const
  ).map(([what, extra]) => ({
    name: `refuses ${what}`,
    body: { ...parking, aggregations: [stats('duration', extra)] },
    expected: { status: 400, type: '/problems#validation' },
  })),
  {
    name: 'refuses percentiles of a keyword field',
    body: { ...parking, aggregations: [stats('spotId', { median: true })] },
    expected: { status: 400, type: '/problems#validation' },
  },
  {
    name: 'refuses percentiles with splitInterval',
    body: {
      ...parking,
      filters: [range('timestamp', '2024-03-30T00:00:00Z', '2024-04-03T00:00:00Z')],
      aggregations: [{ type: 'dateHistogram', interval: '1d' }, stats('duration', { percentiles: [90] })],
      splitInterval: '2d',
    },
    expected: { status: 400, type: '/problems#validation' },
  },
];
