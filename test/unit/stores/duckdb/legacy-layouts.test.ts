import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { expectedLayout } from '#shared/stores/duckdb/layout/schema';
import { buildPlan } from '#shared/report/plan/build-plan';

/**
 * A data folder written by an earlier release opens: for each former layout, a file made by that
 * release's CREATE statements (written out here, not derived from schema.ts) holding the same three
 * movement events (3 lines, 1 polygon), one lot measurement and one parking event, opened through
 * the normal path (openDuckDb migrates it) and reported on: every answer equals that of a fresh file
 * into which the same documents were ingested.
 */
const M = Date.parse('2024-03-01T08:00:00Z');

const LAYOUTS: Record<string, string[]> = {
  'before identities (no _key, _content)': [
    'CREATE TABLE movement_events (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "trackingCameraId" VARCHAR, label VARCHAR, "_crossedPaths" INTEGER NOT NULL, "_polygons" INTEGER NOT NULL)',
    'CREATE TABLE movement_crossed_paths (event_id BIGINT NOT NULL, _item INTEGER NOT NULL, _scope INTEGER NOT NULL, _shard INTEGER NOT NULL, "timestamp" BIGINT NOT NULL, id VARCHAR, "end" VARCHAR, start VARCHAR)',
    'CREATE TABLE movement_polygons (event_id BIGINT NOT NULL, _item INTEGER NOT NULL, _scope INTEGER NOT NULL, _shard INTEGER NOT NULL, "timestamp" BIGINT NOT NULL, id VARCHAR, value DOUBLE)',
    'CREATE TABLE movement_scopes (_scope INTEGER NOT NULL, "organizationId" VARCHAR NOT NULL, "locationId" VARCHAR NOT NULL)',
    'CREATE TABLE parking_lot_stats (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "parkingLotId" VARCHAR, occupied DOUBLE, free DOUBLE, total DOUBLE)',
    'CREATE TABLE parking_events (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "parkingLotId" VARCHAR, "cameraId" VARCHAR, duration DOUBLE, "spotId" VARCHAR, "startingTimestamp" BIGINT)',
    `INSERT INTO movement_events VALUES (1, 'a', 'org', 202403, 'loc', ${M}, 'cam', 'car', 1, 0), (2, NULL, 'org', 202403, 'loc', ${M + 1000}, 'cam', 'bus', 0, 1), (3, NULL, 'org', 202403, 'loc2', ${M + 2000}, NULL, NULL, 2, 0)`,
    "INSERT INTO movement_scopes VALUES (1, 'org', 'loc'), (2, 'org', 'loc2')",
    `INSERT INTO movement_crossed_paths VALUES (1, 0, 1, 202403, ${M}, 'n', 'A', 'B'), (3, 0, 2, 202403, ${M + 2000}, 'x', 'B', 'A'), (3, 1, 2, 202403, ${M + 2000}, 'y', 'A', 'B')`,
    `INSERT INTO movement_polygons VALUES (2, 0, 1, 202403, ${M + 1000}, 'q', 1.5)`,
    `INSERT INTO parking_lot_stats VALUES (1, 'ls', 'org', 202403, 'loc', ${M}, 'lot-1', 10, 40, 50)`,
    `INSERT INTO parking_events VALUES (1, 'pe', 'org', 202403, 'loc', ${M}, 'lot-1', 'cam-p1', 60, 's1', ${M - 60_000})`,
  ],
  'before item counts, scope numbers and parent copies': [
    'CREATE TABLE movement_events (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "trackingCameraId" VARCHAR, label VARCHAR)',
    'CREATE TABLE movement_crossed_paths (event_id BIGINT NOT NULL, id VARCHAR, "end" VARCHAR, start VARCHAR)',
    'CREATE TABLE movement_polygons (event_id BIGINT NOT NULL, id VARCHAR, value DOUBLE)',
    'CREATE TABLE parking_lot_stats (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "parkingLotId" VARCHAR, occupied DOUBLE, free DOUBLE, total DOUBLE)',
    'CREATE TABLE parking_events (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "parkingLotId" VARCHAR, "cameraId" VARCHAR, duration DOUBLE, "spotId" VARCHAR, "startingTimestamp" BIGINT)',
    `INSERT INTO movement_events VALUES (1, 'a', 'org', 202403, 'loc', ${M}, 'cam', 'car'), (2, NULL, 'org', 202403, 'loc', ${M + 1000}, 'cam', 'bus'), (3, NULL, 'org', 202403, 'loc2', ${M + 2000}, NULL, NULL)`,
    "INSERT INTO movement_crossed_paths VALUES (1, 'n', 'A', 'B'), (3, 'x', 'B', 'A'), (3, 'y', 'A', 'B')",
    "INSERT INTO movement_polygons VALUES (2, 'q', 1.5)",
    `INSERT INTO parking_lot_stats VALUES (1, 'ls', 'org', 202403, 'loc', ${M}, 'lot-1', 10, 40, 50)`,
    `INSERT INTO parking_events VALUES (1, 'pe', 'org', 202403, 'loc', ${M}, 'lot-1', 'cam-p1', 60, 's1', ${M - 60_000})`,
  ],
};

const at = (ms: number) => new Date(ms).toISOString();
const DOCUMENTS = {
  movementEvents: [
    {
      id: 'a',
      locationId: 'loc',
      timestamp: at(M),
      trackingCameraId: 'cam',
      label: 'car',
      crossedPaths: [{ id: 'n', end: 'A', start: 'B' }],
    },
    {
      locationId: 'loc',
      timestamp: at(M + 1000),
      trackingCameraId: 'cam',
      label: 'bus',
      polygons: [{ id: 'q', value: 1.5 }],
    },
    {
      locationId: 'loc2',
      timestamp: at(M + 2000),
      crossedPaths: [
        { id: 'x', end: 'B', start: 'A' },
        { id: 'y', end: 'A', start: 'B' },
      ],
    },
  ],
  parkingLotStats: [
    { id: 'ls', locationId: 'loc', timestamp: at(M), parkingLotId: 'lot-1', occupied: 10, free: 40, total: 50 },
  ],
  parkingEvents: [
    {
      id: 'pe',
      locationId: 'loc',
      timestamp: at(M),
      parkingLotId: 'lot-1',
      cameraId: 'cam-p1',
      duration: 60,
      spotId: 's1',
      startingTimestamp: at(M - 60_000),
    },
  ],
};

const REPORTS = [
  {
    aggregations: [
      { type: 'terms', field: 'locationId' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  },
  {
    aggregations: [
      { type: 'terms', field: 'locationId' },
      { type: 'nested', path: 'polygons' },
      { type: 'terms', field: 'polygons.id' },
    ],
  },
  {
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
    ],
  },
  { source: 'parkingLotStats', aggregations: [{ type: 'terms', field: 'parkingLotId' }] },
  { source: 'parkingEvents', aggregations: [{ type: 'terms', field: 'spotId' }] },
];

const answers = async (db: DuckDBInstance) => {
  const engine = new DuckDbEngine(db);
  const out: unknown[] = [];
  for (const body of REPORTS) out.push((await engine.run(buildPlan(body), { organizationId: 'org' })).root);
  return out;
};

async function columnsOf(db: DuckDBInstance): Promise<Map<string, string>> {
  const connection = await db.connect();
  try {
    const reader = await connection.runAndReadAll(
      "SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns() WHERE schema_name = 'main' GROUP BY table_name",
    );
    return new Map((reader.getRowsJS() as [string, string[]][]).map(([t, c]) => [t, c.join(',')]));
  } finally {
    connection.closeSync();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'lrs-legacy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fresh: unknown[];
const covered = new Set<string>();

beforeAll(async () => {
  const db = await openDuckDb(':memory:');
  for (const [collection, docs] of Object.entries(DOCUMENTS)) {
    await ingestDocuments(
      db,
      collection as never,
      docs.map((d) => parseDocument(collection as never, { organizationId: 'org', ...d })),
    );
  }
  fresh = await answers(db);
  db.closeSync();
});

describe.each(Object.entries(LAYOUTS))('a data folder of the layout %s', (name, statements) => {
  it('is one of the former layouts schema.ts lists, opens, and answers every report as a fresh one', async () => {
    const path = join(dir, `${name.split(' ').join('-')}.duckdb`);
    const old = await DuckDBInstance.create(path);
    const connection = await old.connect();
    for (const statement of statements) await connection.run(statement);
    const actual = await columnsOf(old);
    connection.closeSync();
    old.closeSync();
    expectedLayout().forEach(({ legacy }, i) => {
      const j = legacy.findIndex((l) => l.tables.every((t) => actual.get(t.table) === t.columns.join(',')));
      expect(j).toBeGreaterThanOrEqual(0);
      covered.add(`${i}/${j}`);
    });

    const db = await openDuckDb(path);
    // Brought to today's layout (a write needs the identity columns even where reports do not).
    const migrated = await columnsOf(db);
    for (const { tables } of expectedLayout())
      for (const t of tables) expect([t.table, migrated.get(t.table)]).toEqual([t.table, t.columns.join(',')]);
    expect(await answers(db)).toEqual(fresh);
    db.closeSync();
    // A second start finds the current layout and changes nothing.
    const again = await openDuckDb(path);
    expect(await answers(again)).toEqual(fresh);
    again.closeSync();
  });
});

afterAll(() => {
  // Every former layout schema.ts migrates has a file above: a new one needs its CREATE statements here.
  const declared = expectedLayout().flatMap(({ legacy }, i) => legacy.map((_, j) => `${i}/${j}`));
  expect([...covered].sort()).toEqual(declared.sort());
});
