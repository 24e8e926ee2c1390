import type { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import type { ReportEngine } from '#shared/report/engines/engine';
import { CATALOG, nestedPathsOf, type Collection, type FieldKind, type NestedPath } from '#shared/report/fields';
import { createQueryReportHandler } from '../../../functions/query-report';
import { ORG_A, ORG_B } from '../../fixtures/documents';
import { fixtureEngines, loadFixtureEngines } from '../support/fixture-engines';
import { invoke, type HttpResponse } from '../../../bin/dev/lambda-events';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * Random reports over the whole request grammar (every aggregation kind, several `filters` and
 * `reverseNested` stages, profiles in zones with DST and :30/:45 offsets, medians and percentiles, nested filters, histograms in several time zones, splits, CSV), built so
 * that nearly all of them are valid and reach the engines. Each goes through the real handler on
 * both engines over test/fixtures/documents.ts, and must:
 *  - never answer 5xx: a report that cannot be answered is a 4xx problem+json (422 for too many
 *    buckets, refused before the work), never a timeout or a crash;
 *  - answer within the function's time: the handler is told it has FUNCTION_MS left, as Lambda
 *    would, so a report whose work is unbounded would show here as a 503 at its deadline or as a
 *    call that outlasts the function;
 *  - answer alike on both engines, byte for byte.
 * `filters` stages of up to 100 buckets multiply: before the bucket floor, three of them were
 * 1,010,100 DuckDB groups per document, spent before any limit was checked. Large `filters` stages
 * come in the hostile shape (filters stages only, which the floor bounds whatever the documents);
 * under `terms` their product depends on the documents and may reach the deadline, a 503 by design
 * that deadline.test.ts covers, so ordinary stages keep to a few buckets.
 */
const FUNCTION_MS = 10_000;

/**
 * Movement events of org A besides the hand-made ones, every 17 minutes from March 1 (to April 5),
 * so that work per document shows: 3,000 × the buckets of a pipeline is what an unbounded plan costs.
 */
const EXTRA_EVENTS = Array.from({ length: 3_000 }, (_, i) => ({
  organizationId: ORG_A,
  locationId: i % 2 === 0 ? 'loc-berlin' : 'loc-nyc',
  timestamp: new Date(Date.UTC(2024, 2, 1) + i * 17 * 60_000).toISOString(),
  trackingCameraId: `cam-${(i % 3) + 1}`,
  ...(i % 5 === 4 ? {} : { label: ['car', 'person', 'truck', 'bike'][i % 4] }),
  ...(i % 3 === 0 ? {} : { crossedPaths: [{ id: i % 2 === 0 ? 'line-north' : 'line-south', end: i % 4 < 2 ? ('A' as const) : ('B' as const) }] }),
  // Polygons on every fourth event: with the fixtures' 11 values, at most 761 values in any bucket, so
  // every percentile is in the range where both engines answer it exactly (up to 1,000 values;
  // beyond, OpenSearch estimates by design and percentiles.test.ts checks the tolerance instead).
  ...(i % 4 === 0 ? { polygons: [{ id: `zone-${(i % 3) + 1}`, value: (i % 40) / 4 }] } : {}),
}));

const client = testClient();
const prefix = uniquePrefix('grammar');
let duckdb: DuckDBInstance;
let handlers: Record<'OpenSearch' | 'DuckDB', ReturnType<typeof createQueryReportHandler>>;

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix, { movementEvents: EXTRA_EVENTS });
  const engines = fixtureEngines(client, prefix, duckdb);
  const handlerOn = (engine: ReportEngine) => createQueryReportHandler({ engine: () => engine });
  handlers = { OpenSearch: handlerOn(engines.opensearch), DuckDB: handlerOn(engines.duckdb) };
});

afterAll(async () => {
  await deleteIndices(client, prefix);
  duckdb?.closeSync();
  await client.close();
});

/** Values that occur in the fixtures (and a few that do not), per keyword field. */
const VALUES: Readonly<Record<string, readonly string[]>> = {
  label: ['car', 'person', 'truck', 'bike'],
  locationId: ['loc-berlin', 'loc-nyc', 'loc-b1'],
  trackingCameraId: ['cam-1', 'cam-2', 'cam-3'],
  'crossedPaths.id': ['line-north', 'line-south'],
  'crossedPaths.end': ['A', 'B'],
  'crossedPaths.start': ['A', 'B'],
  'polygons.id': ['zone-1', 'zone-2', 'zone-3'],
  parkingLotId: ['lot-1', 'lot-2', 'lot-9'],
  cameraId: ['cam-p1', 'cam-p2', 'cam-p9'],
  spotId: ['s1', 's2', 's3'],
};
const NUMBERS = [0, 0.15, 0.5, 1, 2.25, 10, 100, 1000];
/** In time order. */
const DATES = ['2024-03-01T00:00:00Z', '2024-03-30T12:00:00+01:00', '2024-03-31T01:00:00Z', '2024-04-02T00:00:00Z', '2024-04-10T00:00:00-04:00', '2024-10-27T00:00:00Z', '2024-11-03T06:00:00Z'];

/** Percents of `stats.percentiles`: the ends, decimals, 50 (`build` leaves median out beside it). */
const PERCENTS = [0, 0.5, 1, 10, 25, 33.33, 50, 75, 90, 99.9, 100];

/** Profile zones: DST in both hemispheres, a :30 and a :45 offset. */
const PROFILE_ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Adelaide', 'Asia/Kathmandu'];

/** Random choices; `build` turns them into a request that is valid where the grammar is context-free. */
const pick = fc.nat({ max: 1_000 });
const filterChoice = fc.record({ field: pick, values: fc.subarray([0, 1, 2, 3], { minLength: 1 }), bounds: fc.tuple(pick, pick, fc.constantFrom('both', 'from', 'to')) });
type FilterChoice = typeof filterChoice extends fc.Arbitrary<infer T> ? T : never;
const stageChoice_ = {
  kind: fc.constantFrom<'terms' | 'filters' | 'filter' | 'nested' | 'reverseNested' | 'profile'>('terms', 'filters', 'filters', 'filters', 'filter', 'nested', 'reverseNested', 'reverseNested', 'profile'),
  field: pick,
  buckets: fc.array(filterChoice, { minLength: 1, maxLength: 6 }),
  joiner: fc.option(fc.constantFrom('', '-', ' | ', ':'), { nil: undefined }),
};
const stageChoice = fc.record(stageChoice_);
const choices = fc.record({
  collection: fc.constantFrom<Collection>('movementEvents', 'movementEvents', 'movementEvents', 'parkingLotStats', 'parkingEvents'),
  organization: fc.constantFrom(ORG_A, ORG_A, ORG_A, ORG_B),
  histogram: fc.option(fc.record({ interval: fc.constantFrom('30m', '90m', '1h', '1d', '7d', '1w', '1M', '1q', '1y'), timeZone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata') }), { nil: undefined }),
  stages: fc.oneof(
    { arbitrary: fc.array(stageChoice, { maxLength: 6 }), weight: 4 },
    // The hostile shape: two or three filters stages of 10 to 100 buckets each
    { arbitrary: fc.array(fc.record({ ...stageChoice_, kind: fc.constant('filters'), buckets: fc.array(filterChoice, { minLength: 10, maxLength: 100 }) }), { minLength: 2, maxLength: 3 }), weight: 1 },
  ),
  stats: fc.option(
    fc.record({
      field: pick,
      min: fc.boolean(),
      max: fc.boolean(),
      avg: fc.boolean(),
      sum: fc.boolean(),
      count: fc.boolean(),
      median: fc.boolean(),
      // Now and then a repeat or a percent out of range: a 400 both engines must word alike.
      percentiles: fc.option(
        fc.oneof({ arbitrary: fc.subarray(PERCENTS, { minLength: 1, maxLength: 4 }), weight: 9 }, { arbitrary: fc.constantFrom([50, 50], [101], [99.999]), weight: 1 }),
        { nil: undefined },
      ),
    }),
    { nil: undefined },
  ),
  filters: fc.array(filterChoice, { maxLength: 2 }),
  range: fc.option(fc.uniqueArray(fc.nat({ max: DATES.length - 1 }), { minLength: 2, maxLength: 2 }).map((ab) => ab.sort((x, y) => x - y).map((i) => DATES[i]!)), { nil: undefined }),
  nestedFilters: fc.array(fc.record({ path: pick, filters: fc.array(filterChoice, { minLength: 1, maxLength: 2 }) }), { maxLength: 2 }),
  locationIds: fc.option(fc.subarray([...VALUES.locationId!], { minLength: 1 }), { nil: undefined }),
  splitInterval: fc.option(fc.constantFrom('1w', '1M', 'auto'), { nil: undefined }),
  accept: fc.constantFrom('application/json', 'application/json', 'text/csv'),
});
type Choices = typeof choices extends fc.Arbitrary<infer T> ? T : never;

/** Fields of a kind at a level: the document's own (`at` undefined) or those of one nested path. */
function fieldsAt(collection: Collection, at: NestedPath | undefined, kinds: readonly FieldKind[]): string[] {
  return [...CATALOG[collection].values()].filter((f) => f.nestedPath === at && kinds.includes(f.kind)).map((f) => f.name);
}

function filterAt(collection: Collection, at: NestedPath | undefined, c: FilterChoice): Record<string, unknown> | undefined {
  const fields = fieldsAt(collection, at, ['keyword', 'number', 'date']);
  if (fields.length === 0) return undefined;
  const name = fields[c.field % fields.length]!;
  const kind = CATALOG[collection].get(name)!.kind;
  if (kind === 'keyword') {
    const pool = VALUES[name] ?? ['x'];
    return { type: 'terms', field: name, values: [...new Set(c.values.map((i) => pool[i % pool.length]!))] };
  }
  const pool: readonly (string | number)[] = kind === 'number' ? NUMBERS : DATES;
  const [a, b] = [c.bounds[0] % pool.length, c.bounds[1] % pool.length].sort((x, y) => x - y) as [number, number];
  if (c.bounds[2] === 'from' || a === b) return { type: 'range', field: name, from: pool[a] };
  if (c.bounds[2] === 'to') return { type: 'range', field: name, to: pool[b] };
  return { type: 'range', field: name, from: pool[a], to: pool[b] };
}

function build(c: Choices): Record<string, unknown> {
  const paths = nestedPathsOf(c.collection);
  const pipeline: Record<string, unknown>[] = c.histogram ? [{ type: 'dateHistogram', ...c.histogram }] : [];
  let at: NestedPath | undefined;
  for (const s of c.stages) {
    const joiner = s.joiner === undefined ? {} : { keyJoiner: s.joiner };
    if ((s.kind === 'nested' || s.kind === 'reverseNested') && paths.length > 0) {
      if (at === undefined) pipeline.push({ type: 'nested', path: (at = paths[s.field % paths.length]) });
      else (pipeline.push({ type: 'reverseNested' }), (at = undefined));
    } else if (s.kind === 'profile' && at === undefined) {
      // Documents only (a profile of nested items is a 400 the conformance corpus covers)
      pipeline.push({ type: 'profile', unit: s.field % 2 === 0 ? 'hour' : 'weekday', timeZone: PROFILE_ZONES[s.field % PROFILE_ZONES.length], ...joiner });
    } else if (s.kind === 'filters' || s.kind === 'filter') {
      const made = s.buckets.map((b) => filterAt(c.collection, at, b)).filter((f) => f !== undefined);
      if (made.length === 0) continue;
      if (s.kind === 'filter') pipeline.push({ type: 'filter', filter: made[0], ...joiner });
      else pipeline.push({ type: 'filters', filters: Object.fromEntries(made.map((f, i) => [`b${i}`, f])), ...joiner });
    } else {
      const keywords = fieldsAt(c.collection, at, ['keyword']);
      if (keywords.length > 0) pipeline.push({ type: 'terms', field: keywords[s.field % keywords.length], ...joiner });
    }
  }
  const numbers = fieldsAt(c.collection, at, ['number']);
  if (c.stats && numbers.length > 0) {
    const { field, median, percentiles, ...asked } = c.stats;
    // median beside 50, or percentiles in a split report, are 400s the conformance corpus covers.
    const split = c.splitInterval && c.histogram && c.range;
    const withPercentiles = split ? {} : { ...(percentiles ? { percentiles } : {}), ...(median && !(percentiles as readonly number[] | undefined)?.includes(50) ? { median } : {}) };
    pipeline.push({ type: 'stats', field: numbers[field % numbers.length], ...asked, ...withPercentiles });
  }
  if (pipeline.length === 0) pipeline.push({ type: 'terms', field: 'locationId' });
  const filters = c.filters.map((f) => filterAt(c.collection, undefined, f)).filter((f) => f !== undefined);
  if (c.range) filters.push({ type: 'range', field: 'timestamp', from: c.range[0], to: c.range[1] });
  const nestedFilters = paths.length === 0 ? [] : c.nestedFilters.map((n) => {
    const path = paths[n.path % paths.length]!;
    return { path, filters: n.filters.map((f) => filterAt(c.collection, path, f)).filter((f) => f !== undefined) };
  });
  return {
    source: c.collection,
    aggregations: pipeline,
    ...(filters.length > 0 ? { filters } : {}),
    ...(nestedFilters.length > 0 ? { nestedFilters } : {}),
    ...(c.locationIds ? { locationIds: c.locationIds } : {}),
    ...(c.splitInterval && c.histogram && c.range ? { splitInterval: c.splitInterval } : {}),
  };
}

/** What a caller sees, timed. */
async function ask(engine: keyof typeof handlers, body: unknown, c: Choices): Promise<{ answer: HttpResponse; ms: number }> {
  const started = performance.now();
  const answer = await invoke(handlers[engine], { body, org: c.organization, headers: { accept: c.accept } }, { remainingMs: FUNCTION_MS });
  return { answer, ms: performance.now() - started };
}

test('random reports over the whole grammar: never 5xx, within the function time, alike on both engines', async () => {
  const runs = 200;
  const seen = { ok: 0, refused: 0, multiFilters: 0, reverseNested: 0, profile: 0, percentiles: 0 };
  await fc.assert(
    fc.asyncProperty(choices, async (c) => {
      const body = build(c);
      const fromOpenSearch = await ask('OpenSearch', body, c);
      const fromDuckDb = await ask('DuckDB', body, c);
      for (const { answer, ms } of [fromOpenSearch, fromDuckDb]) {
        expect(answer.status).toBeLessThan(500);
        expect(ms).toBeLessThan(FUNCTION_MS);
        if (answer.status >= 400) {
          expect(answer.headers['content-type']).toBe('application/problem+json');
          expect(answer.json()).toMatchObject({ status: answer.status, type: expect.any(String), detail: expect.any(String) });
        }
      }
      const { answer: os } = fromOpenSearch;
      const { answer: db } = fromDuckDb;
      expect({ status: db.status, headers: db.headers, body: db.body }).toEqual({ status: os.status, headers: os.headers, body: os.body });
      // What the runs covered, so that a generator drifting into 400s shows up below
      const kinds = (body.aggregations as { type: string }[]).map((a) => a.type);
      if (os.status === 200) seen.ok++;
      else seen.refused++;
      if (kinds.filter((k) => k === 'filters').length >= 2) seen.multiFilters++;
      if (kinds.includes('reverseNested')) seen.reverseNested++;
      if (kinds.includes('profile')) seen.profile++;
      const stats = (body.aggregations as { median?: boolean; percentiles?: number[] }[]).at(-1);
      if (os.status === 200 && (stats?.median || stats?.percentiles)) seen.percentiles++;
    }),
    // A failing run may take the whole function time: report the first one rather than shrink it.
    // FUZZ_SEED and FUZZ_PATH replay a failure with the seed and path fast-check printed.
    { numRuns: runs, endOnFailure: true, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH } : {}) },
  );
  // Most reports are valid and answered (about 80%; the rest mostly 422s), and the hard cases are there in numbers
  expect(seen.ok).toBeGreaterThan(0.6 * runs);
  expect(seen.multiFilters).toBeGreaterThan(0.1 * runs);
  expect(seen.reverseNested).toBeGreaterThan(0.05 * runs);
  expect(seen.profile).toBeGreaterThan(0.05 * runs);
  expect(seen.percentiles).toBeGreaterThan(0.05 * runs);
}, 300_000);
