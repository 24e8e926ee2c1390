/**
 * The claim docs/request-language.md makes about percentiles, checked on the real engines: OpenSearch's
 * t-digest answers Hazen's percentile exactly, to the last bit and as DuckDB does, while a bucket holds
 * at most EXACT_PERCENTILE_VALUES values (across shards: the documents span two monthly indices, so the
 * coordinating node merges two digests); beyond, its estimate stays within the stated rank tolerance.
 * The corpus (corpus/percentiles.ts) has the small hand-worked cases; this file has the large ones.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import type { DocumentInput } from '#shared/documents/documents';
import { EXACT_PERCENTILE_VALUES, PERCENTILE_RANK_TOLERANCE } from '#shared/report/percentiles/hazen';
import { answerReport } from '#shared/report/query-report';
import { hazenReference } from '../../fixtures/hazen-reference';
import { fixtureEngines, loadFixtureEngines } from '../support/fixture-engines';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

const ORG = '33333333-3333-4333-8333-333333333333';
const PERCENTS = [0, 0.1, 1, 10, 25, 50, 75, 90, 99.9, 100];
const BEYOND = 20 * EXACT_PERCENTILE_VALUES;

/** Deterministic durations with many repeats and awkward doubles: a seeded LCG, a skewed spread. */
function durations(count: number, seed: number): number[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => Math.round(-Math.log(1 - next()) * 6000) / 10 + (next() < 0.3 ? 0.1 : 0));
}

const EXACT = durations(EXACT_PERCENTILE_VALUES, 7);
const LARGE = durations(BEYOND, 11);

function events(lot: string, values: readonly number[]): DocumentInput<'parkingEvents'>[] {
  // Half in March, half in April 2024: two monthly indices, two shard digests to merge.
  return values.map((duration, i) => ({
    id: `${lot}-${i}`,
    organizationId: ORG,
    locationId: 'loc-p',
    timestamp: new Date(Date.UTC(2024, 2 + (i % 2), 1 + (i % 28), 0, 0, 0, i % 1000)).toISOString(),
    parkingLotId: lot,
    cameraId: 'cam',
    spotId: `s${i % 50}`,
    duration,
  }));
}

const client = testClient();
const prefix = uniquePrefix('percentiles');
let duckdb: DuckDBInstance;

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix, {
    parkingEvents: [...events('exact', EXACT), ...events('large', LARGE)],
  });
}, 120_000);

afterAll(async () => {
  await deleteIndices(client, prefix);
  duckdb?.closeSync();
  await client.close();
});

const request = (lot: string) => ({
  source: 'parkingEvents',
  filters: [{ type: 'terms', field: 'parkingLotId', values: [lot] }],
  aggregations: [{ type: 'stats', field: 'duration', count: true, percentiles: PERCENTS }],
});

async function bodies(lot: string): Promise<{ opensearch: Record<string, number>; duckdb: Record<string, number> }> {
  const engines = fixtureEngines(client, prefix, duckdb);
  const ask = async (engine: typeof engines.opensearch) =>
    JSON.parse((await answerReport(request(lot), { organizationId: ORG }, engine, 'application/json')).body) as Record<
      string,
      number
    >;
  return { opensearch: await ask(engines.opensearch), duckdb: await ask(engines.duckdb) };
}

test(`OpenSearch answers Hazen's percentiles exactly, as DuckDB, over ${EXACT_PERCENTILE_VALUES} values in one bucket`, async () => {
  // Prepare
  const sorted = [...EXACT].sort((a, b) => a - b);
  const expected = Object.fromEntries([
    ['count', EXACT.length],
    ...PERCENTS.map((p) => [`p${p}`, hazenReference(sorted, p)]),
  ]);
  // Act
  const { opensearch, duckdb: fromDuckDb } = await bodies('exact');
  // Assess
  expect(opensearch).toEqual(expected);
  expect(fromDuckDb).toEqual(expected);
});

test(`beyond ${EXACT_PERCENTILE_VALUES} values OpenSearch estimates within ${PERCENTILE_RANK_TOLERANCE * 100}% of n in rank; DuckDB stays exact`, async () => {
  // Prepare
  const sorted = [...LARGE].sort((a, b) => a - b);
  const n = sorted.length;
  // Act
  const { opensearch, duckdb: fromDuckDb } = await bodies('large');
  // Assess: DuckDB's answer is the definition's; OpenSearch's value v sits between the ranks
  // (values below v, values at most v) of a value within the tolerance of the wanted rank p/100 · n.
  for (const p of PERCENTS) {
    expect(fromDuckDb[`p${p}`]).toBe(hazenReference(sorted, p));
    const v = opensearch[`p${p}`] as number;
    const below = sorted.filter((x) => x < v).length;
    const atMost = sorted.filter((x) => x <= v).length;
    const wanted = (p / 100) * n;
    expect(below).toBeLessThanOrEqual(wanted + PERCENTILE_RANK_TOLERANCE * n);
    expect(atMost).toBeGreaterThanOrEqual(wanted - PERCENTILE_RANK_TOLERANCE * n);
  }
});
