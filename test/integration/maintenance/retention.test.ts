import type { DuckDBInstance } from '@duckdb/node-api';
import { deleteExpiredMonths } from '#shared/stores/duckdb/retention';
import type { ReportEngine } from '#shared/stores/store';
import { deleteExpiredIndices } from '#shared/stores/opensearch/retention';
import { answerReport } from '#shared/report/query-report';
import { ORG_A } from '../../fixtures/documents';
import { fixtureEngines, loadFixtureEngines } from '../support/fixture-engines';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The fixtures (test/fixtures/documents.ts) hold, per month: movement events 10 in 2024-03, 2 in
 * 2024-04, 7 in 2024-10, 3 in 2024-11 (13 nested items in the last three months); lot stats 6 and
 * 2, parking events 5 and 2 in 2024-03 and 2024-04. On 15 November 2024 a retention of 7 months keeps
 * April 2024 and later: March goes, 10 + 6 + 5 documents, three indices.
 */
const NOW = Date.parse('2024-11-15T12:00:00Z');
const MONTHS = 7;
const client = testClient();
const prefix = uniquePrefix('retention');
let duckdb: DuckDBInstance;
let engines: { opensearch: ReportEngine; duckdb: ReportEngine };

const keptMonths = {
  filters: [{ type: 'range', field: 'timestamp', from: '2024-04-01T00:00:00Z', to: '2024-12-01T00:00:00Z' }],
  aggregations: [
    { type: 'dateHistogram', interval: '1M' },
    { type: 'terms', field: 'label' },
  ],
};
const everything = { source: 'movementEvents', aggregations: [{ type: 'dateHistogram', interval: '1M' }] };
const answer = async (engine: ReportEngine, body: unknown) =>
  JSON.parse((await answerReport(body, { organizationId: ORG_A }, engine, 'application/json')).body) as unknown;

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix);
  engines = fixtureEngines(client, prefix, duckdb);
  // Not a month of the collection: never the retention's to delete.
  await client.indices.create({ index: `${prefix}movement-events-archive` });
});
afterAll(async () => {
  duckdb.closeSync();
  await deleteIndices(client, prefix);
});

describe('retention by the month in the index name', () => {
  it('lists the expired monthly indices on a dry run and deletes nothing', async () => {
    const outcome = await deleteExpiredIndices(client, prefix, { months: MONTHS, nowMs: NOW, dryRun: true });
    expect(outcome.expired.map((i) => i.index)).toEqual([
      `${prefix}movement-events-2024.03`,
      `${prefix}parking-events-2024.03`,
      `${prefix}parking-lot-stats-2024.03`,
    ]);
    expect((await client.indices.exists({ index: `${prefix}movement-events-2024.03` })).body).toBe(true);
  });

  it('deletes the March indices on OpenSearch, keeps the five others and any index that is not a month, and the kept months report as before', async () => {
    const before = await answer(engines.opensearch, keptMonths);
    const outcome = await deleteExpiredIndices(client, prefix, { months: MONTHS, nowMs: NOW });
    expect(outcome.expired.map((i) => [i.collection, i.month])).toEqual([
      ['movementEvents', 202403],
      ['parkingEvents', 202403],
      ['parkingLotStats', 202403],
    ]);
    expect(outcome.kept.map((i) => i.index.slice(prefix.length))).toEqual([
      'movement-events-2024.04',
      'movement-events-2024.10',
      'movement-events-2024.11',
      'parking-events-2024.04',
      'parking-lot-stats-2024.04',
    ]);
    const { body: left } = await client.cat.indices({ index: `${prefix}*`, format: 'json', h: ['index'] });
    expect((left as unknown as { index: string }[]).map((r) => r.index.slice(prefix.length)).sort()).toEqual([
      'movement-events-2024.04',
      'movement-events-2024.10',
      'movement-events-2024.11',
      'movement-events-archive',
      'parking-events-2024.04',
      'parking-lot-stats-2024.04',
      // The rollups' bookkeeping (docs/rollups.md): the writes, then the deletions, marked their grains.
      'rollup-dirty',
    ]);
    expect(await answer(engines.opensearch, keptMonths)).toEqual(before);
    // Org A's movement events left: 2 in April, 4 in October, 3 in November.
    expect((await answer(engines.opensearch, everything)) as { count?: number }[]).toEqual(
      monthsOf([2, 0, 0, 0, 0, 0, 4, 3]),
    );
  });

  it('deletes nothing more when run again', async () => {
    const outcome = await deleteExpiredIndices(client, prefix, { months: MONTHS, nowMs: NOW });
    expect(outcome.expired).toEqual([]);
    expect(outcome.kept).toHaveLength(5);
  });

  it('deletes the March rows and their items from DuckDB, in one run, and the kept months report as before', async () => {
    const before = await answer(engines.duckdb, keptMonths);
    expect(await deleteExpiredMonths(duckdb, { months: MONTHS, nowMs: NOW, dryRun: true })).toEqual({
      movementEvents: 10,
      parkingLotStats: 6,
      parkingEvents: 5,
    });
    expect(await deleteExpiredMonths(duckdb, { months: MONTHS, nowMs: NOW })).toEqual({
      movementEvents: 10,
      parkingLotStats: 6,
      parkingEvents: 5,
    });
    expect(await counts(duckdb)).toEqual({
      movement_events: 12,
      movement_items: 13,
      parking_lot_stats: 2,
      parking_events: 2,
    });
    expect(await answer(engines.duckdb, keptMonths)).toEqual(before);
    expect(await answer(engines.duckdb, everything)).toEqual(monthsOf([2, 0, 0, 0, 0, 0, 4, 3]));
    expect(await deleteExpiredMonths(duckdb, { months: MONTHS, nowMs: NOW })).toEqual({
      movementEvents: 0,
      parkingLotStats: 0,
      parkingEvents: 0,
    });
  });

  it('deletes nothing with a retention of 0', async () => {
    expect(await deleteExpiredMonths(duckdb, { months: 0, nowMs: NOW })).toEqual({
      movementEvents: 0,
      parkingLotStats: 0,
      parkingEvents: 0,
    });
    expect((await deleteExpiredIndices(client, prefix, { months: 0, nowMs: NOW })).expired).toEqual([]);
  });
});

/** A monthly histogram from April 2024 of these counts (an empty month is a bucket with only its timestamp). */
function monthsOf(countsFromApril: number[]) {
  return countsFromApril.map((count, i) => ({
    timestamp: new Date(Date.UTC(2024, 3 + i, 1)).toISOString(),
    ...(count > 0 ? { count } : {}),
  }));
}

async function counts(instance: DuckDBInstance) {
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      'SELECT (SELECT count(*) FROM movement_events), (SELECT count(*) FROM movement_crossed_paths) + (SELECT count(*) FROM movement_polygons), (SELECT count(*) FROM parking_lot_stats), (SELECT count(*) FROM parking_events)',
    );
    const [movement, items, lots, parking] = (reader.getRowsJS()[0] as bigint[]).map(Number);
    return { movement_events: movement, movement_items: items, parking_lot_stats: lots, parking_events: parking };
  } finally {
    connection.closeSync();
  }
}
