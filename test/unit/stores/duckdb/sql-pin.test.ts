import { keySegments, type KeySegment } from '#shared/stores/duckdb/report/sql/buckets';
import { compileReport, groupable, readsItemsAlone } from '#shared/stores/duckdb/report/sql/compile';
import { compileScopeNumbers, compileTimeExtent } from '#shared/stores/duckdb/report/sql/compile-scope';
import type { SqlQuery } from '#shared/stores/duckdb/report/sql/sql-params';
import { createRounding } from '#shared/report/histogram/rounding';
import { buildPlan } from '#shared/report/plan/build-plan';
import type { ReportPlan } from '#shared/report/plan/plan';
import { planEvenSlices, planSlices } from '#shared/report/split/plan-slices';
import { AGGREGATION_CASES } from '../../../integration/conformance/corpus/aggregations';
import { HISTOGRAM_CASES } from '../../../integration/conformance/corpus/histograms';
import { PERCENTILE_CASES } from '../../../integration/conformance/corpus/percentiles';
import { PROFILE_CASES } from '../../../integration/conformance/corpus/profiles';
import { ZoneOffsets } from '#shared/time/zone-offsets';

/**
 * Pins the SQL the DuckDB engine emits, byte for byte, with its parameters, for a broad set of
 * reports: the conformance corpus (every collection, aggregation and filter kind, split and not) and
 * the shapes the grouped compilation treats apart (items alone or joined, reverseNested, filters
 * under and over nested, range masks past 63 buckets). Each report is compiled as the engine does
 * (grouped where it applies, with the scope numbers where the items are read alone) and stage by
 * stage, and so are its auxiliary statements (time extent, scope numbers) and, for a split report,
 * its first and last slices. A refactor of the compilers must leave every snapshot unchanged.
 */
const scope = { organizationId: 'org-pin' };
const limits = { termsCap: 5 };
/** Where a histogram has no bound, the extent the engine would read from the documents. */
const EXTENT = { lo: Date.UTC(2024, 2, 1), hi: Date.UTC(2024, 5, 30) - 1 };

const berlin = { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' };
const march = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-03T00:00:00Z' };
const loc = (...values: string[]) => ({ type: 'terms', field: 'locationId', values });
const line = (...values: string[]) => ({ type: 'terms', field: 'crossedPaths.id', values });
const direction = (...values: string[]) => ({ type: 'terms', field: 'crossedPaths.end', values });
const polygonStats = {
  type: 'stats',
  field: 'polygons.value',
  sum: true,
  avg: true,
  min: true,
  max: true,
  count: true,
};
const manyRanges = Object.fromEntries(
  Array.from({ length: 70 }, (_, i) => [`r${i}`, { type: 'range', field: 'polygons.value', from: i, to: i + 1 }]),
);
const mixed = Object.fromEntries(
  Array.from({ length: 66 }, (_, i) => [
    `m${i}`,
    i % 2 === 0
      ? { type: 'range', field: 'timestamp', from: `2024-03-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z` }
      : loc(`L${i}`),
  ]),
);

const EXTRA: Readonly<Record<string, unknown>> = {
  'daily × nested × line × direction': {
    filters: [march],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  },
  'daily × label × nested × direction (items joined)': {
    filters: [march],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  },
  'location × camera × label': {
    aggregations: [
      { type: 'terms', field: 'locationId' },
      { type: 'terms', field: 'trackingCameraId' },
      { type: 'terms', field: 'label' },
    ],
  },
  'weekly × filter × nested polygons × filter × stats': {
    aggregations: [
      { type: 'dateHistogram', interval: '1w', timeZone: 'America/New_York' },
      { type: 'filter', filter: { type: 'terms', field: 'label', values: ['car', 'person'] } },
      { type: 'nested', path: 'polygons' },
      { type: 'filter', filter: { type: 'range', field: 'polygons.value', from: 1 } },
      polygonStats,
    ],
  },
  'nestedFilters × location × nested × line': {
    nestedFilters: [{ path: 'crossedPaths', filters: [direction('A')] }],
    aggregations: [
      { type: 'terms', field: 'locationId' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
    ],
  },
  'parking: monthly × lot × stats duration': {
    source: 'parkingEvents',
    aggregations: [
      { type: 'dateHistogram', interval: '1M' },
      { type: 'terms', field: 'parkingLotId' },
      { type: 'stats', field: 'duration', sum: true, avg: true, count: true },
    ],
  },
  'lot stats alone': {
    source: 'parkingLotStats',
    aggregations: [{ type: 'stats', field: 'occupied', sum: true, min: true, max: true }],
  },
  'overlapping filters × filters × label': {
    aggregations: [
      {
        type: 'filters',
        filters: {
          berlin: loc('loc-berlin'),
          cars: { type: 'terms', field: 'label', values: ['car'] },
          both: loc('loc-berlin', 'loc-nyc'),
        },
      },
      {
        type: 'filters',
        filters: {
          spring: { type: 'range', field: 'timestamp', to: '2024-04-01T00:00:00Z' },
          rest: { type: 'range', field: 'timestamp', from: '2024-03-31T00:00:00Z' },
        },
      },
      { type: 'terms', field: 'label' },
    ],
  },
  'Berlin daily × nestedFilters × filters on lines × reverseNested × camera': {
    nestedFilters: [{ path: 'crossedPaths', filters: [direction('A')] }],
    aggregations: [
      berlin,
      { type: 'nested', path: 'crossedPaths' },
      { type: 'filters', filters: { north: line('line-north'), any: direction('A', 'B') } },
      { type: 'reverseNested' },
      { type: 'terms', field: 'trackingCameraId' },
    ],
  },
  'label × nested polygons × filters × stats (row stats)': {
    aggregations: [
      { type: 'terms', field: 'label' },
      { type: 'nested', path: 'polygons' },
      {
        type: 'filters',
        filters: {
          small: { type: 'range', field: 'polygons.value', to: 1 },
          large: { type: 'range', field: 'polygons.value', from: 1 },
        },
      },
      polygonStats,
    ],
  },
  'Berlin daily × nested × line × reverseNested (the items alone)': {
    aggregations: [
      berlin,
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'reverseNested' },
    ],
  },
  'filters × nested × direction × reverseNested × filter × label': {
    filters: [march],
    aggregations: [
      { type: 'filters', filters: { berlin: loc('loc-berlin'), all: loc('loc-berlin', 'loc-nyc') } },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
      { type: 'reverseNested' },
      { type: 'filter', filter: { type: 'range', field: 'timestamp', from: '2024-03-30T00:00:00Z' } },
      { type: 'terms', field: 'label' },
    ],
  },
  'nestedFilters × filters on locations × nested × reverseNested × label': {
    filters: [march],
    nestedFilters: [{ path: 'crossedPaths', filters: [line('s')] }],
    aggregations: [
      { type: 'filters', filters: { L1: loc('L1'), L2: loc('L2') } },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'reverseNested' },
      { type: 'terms', field: 'label' },
    ],
  },
  'nested × line × reverseNested × label': {
    filters: [march],
    aggregations: [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'reverseNested' },
      { type: 'terms', field: 'label' },
    ],
  },
  'nested × filters on lines × reverseNested × label': {
    aggregations: [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'filters', filters: { n: line('n'), A: direction('A'), any: line('n', 's') } },
      { type: 'reverseNested' },
      { type: 'terms', field: 'label' },
    ],
  },
  'a second nested after reverseNested (stage by stage only)': {
    aggregations: [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'reverseNested' },
      { type: 'nested', path: 'polygons' },
      { type: 'terms', field: 'polygons.id' },
    ],
  },
  'nested polygons × line × stats (termsCap)': {
    aggregations: [{ type: 'nested', path: 'polygons' }, { type: 'terms', field: 'polygons.id' }, polygonStats],
  },
  '70 range buckets on polygons (HUGEINT mask)': {
    aggregations: [
      { type: 'nested', path: 'polygons' },
      { type: 'filters', filters: manyRanges },
      { type: 'terms', field: 'polygons.id' },
    ],
  },
  '66 mixed buckets, ranges and terms (HUGEINT mask)': {
    locationIds: ['L1', 'L2'],
    aggregations: [
      { type: 'filters', filters: mixed },
      { type: 'terms', field: 'label' },
    ],
  },
  'filter on a keyword, terms, stats over a filters stage': {
    source: 'parkingEvents',
    filters: [{ type: 'range', field: 'duration', from: 10 }],
    aggregations: [
      { type: 'filter', filter: { type: 'terms', field: 'cameraId', values: ['c1'] } },
      {
        type: 'filters',
        filters: {
          a: { type: 'terms', field: 'spotId', values: ['s1'] },
          b: { type: 'range', field: 'startingTimestamp', from: '2024-03-01T00:00:00Z' },
        },
      },
      { type: 'stats', field: 'duration', min: true },
    ],
  },
  'quarterly × lot, split by month': {
    source: 'parkingLotStats',
    filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-07-01T00:00:00Z' }],
    splitInterval: '1M',
    aggregations: [
      { type: 'dateHistogram', interval: '1q', timeZone: 'Europe/Berlin' },
      { type: 'terms', field: 'parkingLotId' },
      { type: 'stats', field: 'free', max: true },
    ],
  },
  'Berlin weekly × weekday profile, split by week': {
    source: 'movementEvents',
    filters: [march],
    splitInterval: '1w',
    aggregations: [
      { type: 'dateHistogram', interval: '1w', timeZone: 'Europe/Berlin' },
      { type: 'profile', unit: 'weekday', timeZone: 'Europe/Berlin' },
      { type: 'terms', field: 'label' },
    ],
  },
  'label × Adelaide hour profile × nested polygons × stats (items joined)': {
    aggregations: [
      { type: 'terms', field: 'label' },
      { type: 'profile', unit: 'hour', timeZone: 'Australia/Adelaide', keyJoiner: '|' },
      { type: 'nested', path: 'polygons' },
      polygonStats,
    ],
  },
  'hourly × nested, split auto': {
    filters: [march],
    splitInterval: 'auto',
    aggregations: [
      { type: 'dateHistogram', interval: '1h' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  },
};

/** The histogram's key segments, as the engine works them out (its bounds, else the documents' extent). */
function segmentsOf(plan: ReportPlan): KeySegment[] | undefined {
  const first = plan.pipeline[0];
  if (first?.kind !== 'dateHistogram') return undefined;
  const lo = first.bounds?.from ?? EXTENT.lo;
  const hi = first.bounds?.to === undefined ? EXTENT.hi : first.bounds.to - 1;
  if (lo > hi) return undefined;
  return keySegments(createRounding(first.interval, first.timeZone, lo, hi), lo, hi);
}

/** The offset periods of every profile stage's zone, as the engine works them out (the range, else the extent). */
function profileOffsetsOf(plan: ReportPlan): Map<string, ZoneOffsets['periods']> | undefined {
  const zones = new Set(plan.pipeline.flatMap((n) => (n.kind === 'terms' && n.profile ? [n.profile.timeZone] : [])));
  if (zones.size === 0) return undefined;
  const lo = plan.timeRange?.from ?? EXTENT.lo;
  const hi = plan.timeRange?.to === undefined ? EXTENT.hi : plan.timeRange.to - 1;
  return new Map([...zones].map((zone) => [zone, ZoneOffsets.scan(zone, lo, Math.max(lo, hi)).periods]));
}

const text = ({ sql, params }: SqlQuery): string =>
  [
    sql,
    ...params.map(
      (p, i) => `-- $${i + 1} ${p.type} ${typeof p.value === 'string' ? JSON.stringify(p.value) : String(p.value)}`,
    ),
  ].join('\n');

/** Every statement the engine could run for `plan`, by name. */
function statements(plan: ReportPlan): Record<string, string> {
  const histogramSegments = segmentsOf(plan);
  if (plan.pipeline[0]?.kind === 'dateHistogram' && !histogramSegments)
    return { 'time extent': text(compileTimeExtent(plan, scope)) };
  const profileOffsets = profileOffsetsOf(plan);
  const options = {
    limits,
    ...(histogramSegments ? { histogramSegments } : {}),
    ...(profileOffsets ? { profileOffsets } : {}),
  };
  const out: Record<string, string> = { 'time extent': text(compileTimeExtent(plan, scope)) };
  if (groupable(plan)) {
    const alone = readsItemsAlone(plan);
    if (alone) out['scope numbers'] = text(compileScopeNumbers(plan, scope));
    out.grouped = text(compileReport(plan, scope, { ...options, ...(alone ? { scopeNumbers: [3, 7] } : {}) }));
  }
  out['stage by stage'] = text(compileReport(plan, scope, { ...options, stageByStage: true }));
  return out;
}

function compiled(body: unknown): Record<string, string> {
  const plan = buildPlan(body);
  const out = statements(plan);
  if (plan.splitInterval) {
    const slices = 'kind' in plan.splitInterval ? planEvenSlices(plan, 3) : planSlices(plan);
    const ends = slices.length > 1 ? [slices[0], slices.at(-1)] : slices.slice(0, 1);
    ends.forEach((slice, i) => {
      for (const [name, sql] of Object.entries(statements(slice!.plan)))
        out[`slice ${i === 0 ? 'first' : 'last'}: ${name}`] = sql;
    });
  }
  return out;
}

/** Only the requests that make a plan (the corpus also holds refusals, which compile nothing). */
const valid = (body: unknown): boolean => {
  try {
    buildPlan(body);
    return true;
  } catch {
    return false;
  }
};

const CORPUS = [...HISTOGRAM_CASES, ...AGGREGATION_CASES, ...PROFILE_CASES, ...PERCENTILE_CASES]
  .filter((c) => valid(c.body))
  .map((c) => [`corpus: ${c.name}`, c.body] as const);
const REPORTS = [...CORPUS, ...Object.entries(EXTRA)];

test('the pinned set covers every aggregation and filter kind, every collection, split and not', () => {
  const plans = REPORTS.map(([, body]) => buildPlan(body));
  expect(new Set(plans.flatMap((p) => p.pipeline.map((n) => n.kind)))).toEqual(
    new Set(['dateHistogram', 'terms', 'stats', 'filter', 'filters', 'nested', 'reverseNested']),
  );
  expect(plans.some((p) => p.pipeline.some((n) => n.kind === 'terms' && n.profile))).toBe(true);
  expect(plans.some((p) => p.pipeline.some((n) => n.kind === 'stats' && n.percentiles))).toBe(true);
  expect(
    new Set(plans.flatMap((p) => [...p.filters, ...p.nestedFilters.flatMap((n) => n.filters)].map((f) => f.kind))),
  ).toEqual(new Set(['terms', 'range']));
  expect(new Set(plans.map((p) => p.source))).toEqual(new Set(['movementEvents', 'parkingLotStats', 'parkingEvents']));
  expect(plans.some((p) => p.splitInterval && 'kind' in p.splitInterval)).toBe(true);
  expect(plans.some((p) => p.splitInterval && !('kind' in p.splitInterval))).toBe(true);
  expect(plans.some((p) => readsItemsAlone(p))).toBe(true);
  expect(plans.some((p) => !groupable(p))).toBe(true);
});

test.each(REPORTS)('the SQL of %s stays byte for byte the same', (_, body) => {
  expect(compiled(body)).toMatchSnapshot();
});
