import fc from 'fast-check';
import { TooManyBucketsError } from '#shared/errors';
import type { AggResult } from '#shared/stores/store';
import { countBuckets, expandedBuckets, minimumBuckets, refuseBeyondBucketFloor } from '#shared/report/bucket-limit';
import { evaluateSegments, keySegments } from '#shared/stores/duckdb/report/sql/buckets';
import { histogramKeys } from '#shared/report/histogram/keys';
import { createRounding } from '#shared/report/histogram/rounding';
import { buildPlan } from '#shared/report/plan/build-plan';
import { parseHistogramInterval } from '#shared/report/plan/time';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('key segments', () => {
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'America/Santiago'];
  const intervals = ['1d', '1w', '1M', '1q', '1y', '7d', '90m', '45m', '2h', '1h', '25h', '30m'];
  const lo = at('2023-12-01T00:00:00Z');
  const hi = at('2025-02-01T00:00:00Z');

  test('give every instant of the range the key OpenSearch rounding gives it', () => {
    // Prepare: one rounding per zone and interval over 14 months (four DST changes in most zones)
    const cases = zones.flatMap((z) =>
      intervals.map((i) => ({ z, i, r: createRounding(parseHistogramInterval(i), z, lo, hi) })),
    );
    const withSegments = cases.map((c) => ({ ...c, segments: keySegments(c.r, lo, hi) }));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: withSegments.length - 1 }),
        fc.integer({ min: lo, max: hi }),
        (index, t) => {
          const { r, segments } = withSegments[index]!;
          // Act / Assess
          expect(evaluateSegments(segments, r.truncLocal, t)).toBe(r.round(t));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  test('are one shift per offset period, plus constants just after a change', () => {
    // Prepare: Berlin days over 2024; both changes happen at 01:00Z, inside a day
    const r = createRounding(
      parseHistogramInterval('1d'),
      'Europe/Berlin',
      at('2024-01-01T00:00:00Z'),
      at('2024-12-31T00:00:00Z'),
    );
    // Act
    const segments = keySegments(r, at('2024-01-01T00:00:00Z'), at('2024-12-31T00:00:00Z'));
    // Assess: from Mar 31 01:00Z the rest of the 23-hour day keeps the key 03-30T23:00Z; likewise in October.
    expect(segments.map((s) => ({ ...s, start: iso(s.start) }))).toEqual([
      { start: '2024-01-01T00:00:00.000Z', kind: 'shift', offset: 3_600_000 },
      { start: '2024-03-31T01:00:00.000Z', kind: 'constant', key: at('2024-03-30T23:00:00Z') },
      { start: '2024-03-31T22:00:00.000Z', kind: 'shift', offset: 7_200_000 },
      { start: '2024-10-27T01:00:00.000Z', kind: 'constant', key: at('2024-10-26T22:00:00Z') },
      { start: '2024-10-27T23:00:00.000Z', kind: 'shift', offset: 3_600_000 },
    ]);
  });
});

describe('histogram keys', () => {
  test('run from the bucket of the first instant to the bucket of the last, empty ones included', () => {
    const r = createRounding(
      parseHistogramInterval('1d'),
      'Europe/Berlin',
      at('2024-03-30T00:00:00Z'),
      at('2024-04-01T12:00:00Z'),
    );
    expect(histogramKeys(r, at('2024-03-30T00:00:00Z'), at('2024-04-01T12:00:00Z'), 100).map(iso)).toEqual([
      '2024-03-29T23:00:00.000Z',
      '2024-03-30T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
    ]);
  });

  test('refuse a histogram with more buckets than the limit before any query runs', () => {
    const r = createRounding(
      parseHistogramInterval('1m'),
      'UTC',
      at('2024-03-01T00:00:00Z'),
      at('2024-03-02T00:00:00Z'),
    );
    expect(histogramKeys(r, at('2024-03-01T00:00:00Z'), at('2024-03-01T00:59:59.999Z'), 60)).toHaveLength(60);
    expect(() => histogramKeys(r, at('2024-03-01T00:00:00Z'), at('2024-03-01T01:00:00Z'), 60)).toThrow(
      TooManyBucketsError,
    );
  });
});

describe('bucket accounting as OpenSearch counts against search.max_buckets', () => {
  const hist = (sub: AggResult, counts: number[]): AggResult => ({
    kind: 'histogram',
    buckets: counts.map((count, i) => ({ key: i, count, sub })),
  });
  const filters = (n: number, sub?: AggResult): AggResult => ({
    kind: 'filters',
    buckets: Array.from({ length: n }, (_, i) => ({ key: `f${i}`, count: 1, ...(sub ? { sub } : {}) })),
  });
  const termsOf = (n: number): AggResult => ({
    kind: 'terms',
    buckets: Array.from({ length: n }, (_, i) => ({ key: `t${i}`, count: 1 })),
  });

  test('counts histogram buckets, the terms of non-empty ones, and no single-bucket stage', () => {
    // Prepare: 5 buckets, 2 with documents, each with nested × 3 terms
    const plan = buildPlan({
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'nested', path: 'polygons' },
        { type: 'terms', field: 'polygons.id' },
      ],
    });
    const root = hist({ kind: 'single', count: 3, sub: termsOf(3) }, [1, 0, 0, 4, 0]);
    // Act / Assess: 5 + 2 × 3; an empty template of nested × terms has no buckets
    expect(countBuckets(plan.pipeline, root)).toBe(11);
  });

  test('adds the filters buckets of the empty-bucket template once, even without empty buckets', () => {
    const filtersBody = {
      type: 'filters',
      filters: {
        a: { type: 'terms', field: 'label', values: ['car'] },
        b: { type: 'terms', field: 'label', values: ['bus'] },
      },
    };
    const plan = buildPlan({ aggregations: [{ type: 'dateHistogram', interval: '1d' }, filtersBody, filtersBody] });
    // 3 buckets with documents: 3 + 3 × (2 + 2 × 2) + template (2 + 2 × 2)
    expect(countBuckets(plan.pipeline, hist(filters(2, filters(2)), [1, 1, 1]))).toBe(3 + 18 + 6);
  });

  test('refuses before the work what the limit counts, and what an answer would carry in its empty buckets beyond 4 × the limit', () => {
    const named = (n: number) => ({
      type: 'filters',
      filters: Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`b${i}`, { type: 'terms', field: 'label', values: ['car'] }]),
      ),
    });
    const plan = buildPlan({ aggregations: [{ type: 'dateHistogram', interval: '30m' }, named(14), named(27)] });
    // Template: 14 × (1 + 27) = 392 buckets. 200 keys: the limit counts 200 + 392 = 592; the answer holds 200 × 393 =
    // 78,600
    expect(minimumBuckets(plan.pipeline, 200)).toBe(592);
    expect(expandedBuckets(plan.pipeline, 200)).toBe(78_600);
    // Under a limit of 2,000 the count fits but 78,600 > 8,000; 20 keys hold 7,860 and pass
    expect(() => refuseBeyondBucketFloor(plan.pipeline, 200, 2_000)).toThrow(TooManyBucketsError);
    expect(() => refuseBeyondBucketFloor(plan.pipeline, 20, 2_000)).not.toThrow();
    // Without a histogram the answer is the template once: 392 ≤ 8,000, refused only by the count
    const flat = buildPlan({ source: 'movementEvents', aggregations: [named(14), named(27)] });
    expect(expandedBuckets(flat.pipeline)).toBe(392);
    expect(() => refuseBeyondBucketFloor(flat.pipeline, 0, 391)).toThrow(TooManyBucketsError);
  });

  test('counts every bucket of a tree without histogram', () => {
    const plan = buildPlan({
      aggregations: [
        { type: 'terms', field: 'label' },
        { type: 'terms', field: 'trackingCameraId' },
      ],
    });
    const root: AggResult = {
      kind: 'terms',
      buckets: [
        { key: 'car', count: 2, sub: termsOf(2) },
        { key: 'bus', count: 1, sub: termsOf(1) },
      ],
    };
    expect(countBuckets(plan.pipeline, root)).toBe(2 + 3);
  });
});
