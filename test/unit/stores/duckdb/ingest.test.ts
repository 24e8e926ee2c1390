import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EngineUnavailableError, InternalError } from '#shared/errors';
import { parseDocument, type ReportDocument } from '#shared/documents/documents';
import { mapDuckDbError } from '#shared/stores/duckdb/errors';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { documentIdentity } from '#shared/documents/identity';
import { ingestDocuments, writeDocuments } from '#shared/stores/duckdb/write';
import { buildPlan } from '#shared/report/plan/build-plan';

const event = (
  id: string | undefined,
  timestamp: string,
  label: string,
  lines: string[] = [],
): ReportDocument<'movementEvents'> =>
  parseDocument('movementEvents', {
    ...(id ? { id } : {}),
    organizationId: 'org',
    locationId: 'loc',
    timestamp,
    label,
    crossedPaths: lines.map((l) => ({ id: l, end: 'A' })),
  });

const toWrite = (document: ReportDocument<'movementEvents'>) => ({
  document,
  identity: documentIdentity('movementEvents', document),
});

async function rows(db: DuckDBInstance, sql: string): Promise<unknown[][]> {
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS();
  } finally {
    connection.closeSync();
  }
}

describe('ingestDocuments', () => {
  test('writes root rows with their shard and item counts, nested items keyed by the row id with their position, scope number, time and shard, start derived', async () => {
    // Prepare
    const db = await openDuckDb(':memory:');
    // Act
    const written = await ingestDocuments(db, 'movementEvents', [
      event('a', '2024-03-31T23:30:00+02:00', 'car', ['n', 's']),
      event(undefined, '2024-04-01T00:00:00Z', 'bus'),
    ]);
    // Assess
    expect(written).toBe(2);
    const march = BigInt(Date.parse('2024-03-31T21:30:00Z'));
    expect(
      await rows(
        db,
        'SELECT row_id, doc_id, _shard, "timestamp", label, "_crossedPaths", "_polygons" FROM movement_events ORDER BY row_id',
      ),
    ).toEqual([
      [1n, 'a', 202403, march, 'car', 2, 0],
      [2n, null, 202404, BigInt(Date.parse('2024-04-01T00:00:00Z')), 'bus', 0, 0],
    ]);
    expect(
      await rows(
        db,
        'SELECT event_id, _item, _scope, _shard, "timestamp", id, "end", start FROM movement_crossed_paths ORDER BY id',
      ),
    ).toEqual([
      [1n, 0, 1, 202403, march, 'n', 'A', 'B'],
      [1n, 1, 1, 202403, march, 's', 'A', 'B'],
    ]);
    expect(await rows(db, 'SELECT * FROM movement_scopes')).toEqual([[1, 'org', 'loc']]);
    db.closeSync();
  });

  test('writes each document once: a stored one again is a duplicate, its id with other content a conflict, the first write kept', async () => {
    // Prepare: "a" (an id) in March, "u" (no id) in April
    const db = await openDuckDb(':memory:');
    const a = event('a', '2024-03-01T00:00:00Z', 'car', ['n']);
    const u = event(undefined, '2024-04-01T00:00:00Z', 'bus');
    const first = await writeDocuments(db, 'movementEvents', [a, u].map(toWrite));
    // Act: both again (u's instant written with another offset), a new "b"; then "a" as a truck in April;
    // then "a" of another organization, which is another document
    const again = await writeDocuments(
      db,
      'movementEvents',
      [a, event(undefined, '2024-04-01T02:00:00+02:00', 'bus'), event('b', '2024-03-02T00:00:00Z', 'car')].map(toWrite),
    );
    const changed = await writeDocuments(
      db,
      'movementEvents',
      [event('a', '2024-04-15T00:00:00Z', 'truck', ['x'])].map(toWrite),
    );
    const otherOrg = await writeDocuments(db, 'movementEvents', [{ ...a, organizationId: 'org2' }].map(toWrite));
    // Assess
    expect(first.map((o) => o.kind)).toEqual(['written', 'written']);
    expect(again.map((o) => o.kind)).toEqual(['duplicate', 'duplicate', 'written']);
    expect(changed.map((o) => o.kind)).toEqual(['conflict']);
    expect(otherOrg.map((o) => o.kind)).toEqual(['written']);
    expect(await rows(db, 'SELECT "organizationId", doc_id, label FROM movement_events ORDER BY row_id')).toEqual([
      ['org', 'a', 'car'],
      ['org', null, 'bus'],
      ['org', 'b', 'car'],
      ['org2', 'a', 'car'],
    ]);
    expect(await rows(db, 'SELECT event_id, id FROM movement_crossed_paths ORDER BY event_id')).toEqual([
      [1n, 'n'],
      [4n, 'n'],
    ]);
    db.closeSync();
  });

  test('ingestDocuments writes a document given twice in one call once, and counts only what it wrote', async () => {
    // Prepare
    const db = await openDuckDb(':memory:');
    const c = event(undefined, '2024-03-01T00:00:00Z', 'car');
    // Act
    const firstCall = await ingestDocuments(db, 'movementEvents', [c, c, event('d', '2024-03-01T00:00:00Z', 'car')]);
    const secondCall = await ingestDocuments(db, 'movementEvents', [c, event('e', '2024-03-01T00:00:00Z', 'car')]);
    // Assess
    expect([firstCall, secondCall]).toEqual([2, 1]);
    expect(await rows(db, 'SELECT count(*) FROM movement_events')).toEqual([[3n]]);
    db.closeSync();
  });

  test('stores every value as given over several data chunks: short, long and multi-byte strings, NULLs, dates across months', async () => {
    // Prepare: strings around the 12-byte inline limit of DuckDB's string_t, repeated and not
    const strings = [
      'o',
      'twelve bytes',
      'thirteen byte',
      '日本語',
      '日本語日本',
      '🚗',
      'a-long-organization-id-0000-4000-8000',
      'ü'.repeat(6),
      'ü'.repeat(7),
    ];
    const pick = (i: number, salt: number) =>
      strings[(i * 7 + salt * 3 + Math.floor(i / 5)) % strings.length] as string;
    const docs = Array.from({ length: 5000 }, (_, i) =>
      parseDocument('movementEvents', {
        ...(i % 3 === 0 ? { id: `${pick(i, 1)}-${i}` } : {}),
        organizationId: pick(i, 2),
        locationId: i % 2 ? pick(i, 3) : `loc-${i}`,
        // From 1970 on (earlier instants are refused at ingest): 5,000 hours and a bit, over eight months
        timestamp: new Date(Date.UTC(1970, 0, 1) + i * 3_600_007).toISOString(),
        ...(i % 4 === 0 ? {} : { label: pick(i, 4) }),
        ...(i % 5 === 0 ? {} : { trackingCameraId: `${pick(i, 5)}-camera-${i % 11}` }),
        crossedPaths: Array.from({ length: i % 4 }, (__, j) => ({ id: pick(i + j, 6), end: (i + j) % 2 ? 'A' : 'B' })),
        polygons: i % 7 === 0 ? [] : [{ id: pick(i, 7), value: i / 8 }],
      }),
    );
    const db = await openDuckDb(':memory:');
    // Act: two calls, the second continuing the row ids
    await ingestDocuments(db, 'movementEvents', docs.slice(0, 4100));
    await ingestDocuments(db, 'movementEvents', docs.slice(4100));
    // Assess
    const shard = (t: number) => new Date(t).getUTCFullYear() * 100 + new Date(t).getUTCMonth() + 1;
    expect(
      await rows(
        db,
        'SELECT row_id, doc_id, "organizationId", _shard, "locationId", "timestamp", "trackingCameraId", label, "_crossedPaths", "_polygons" FROM movement_events ORDER BY row_id',
      ),
    ).toEqual(
      docs.map((d, i) => [
        BigInt(i + 1),
        d.id ?? null,
        d.organizationId,
        shard(d.timestamp),
        d.locationId,
        BigInt(d.timestamp),
        d.trackingCameraId ?? null,
        d.label ?? null,
        d.crossedPaths?.length ?? 0,
        d.polygons?.length ?? 0,
      ]),
    );
    const scope = (d: (typeof docs)[number]) => [
      d.organizationId,
      d.locationId,
      shard(d.timestamp),
      BigInt(d.timestamp),
    ];
    const items = (table: string, fields: string) =>
      rows(
        db,
        `SELECT event_id, _item, s."organizationId", s."locationId", _shard, "timestamp", ${fields} FROM ${table} c JOIN movement_scopes s USING (_scope) ORDER BY c.rowid`,
      );
    expect(await items('movement_crossed_paths', 'id, "end", start')).toEqual(
      docs.flatMap((d, i) =>
        (d.crossedPaths ?? []).map((p, j) => [BigInt(i + 1), j, ...scope(d), p.id, p.end, p.start]),
      ),
    );
    expect(await items('movement_polygons', 'id, value')).toEqual(
      docs.flatMap((d, i) => (d.polygons ?? []).map((p, j) => [BigInt(i + 1), j, ...scope(d), p.id, p.value])),
    );
    // one number per pair, over both calls
    const pairs = new Set(docs.map((d) => `${d.organizationId}\u0000${d.locationId}`));
    expect(
      await rows(
        db,
        'SELECT count(*), count(DISTINCT _scope), count(DISTINCT ("organizationId", "locationId")) FROM movement_scopes',
      ),
    ).toEqual([[BigInt(pairs.size), BigInt(pairs.size), BigInt(pairs.size)]]);
    expect(
      await rows(
        db,
        "SELECT count(*) FROM movement_events WHERE \"organizationId\" = 'thirteen byte' AND label = '日本語日本'",
      ),
    ).toEqual([[BigInt(docs.filter((d) => d.organizationId === 'thirteen byte' && d.label === '日本語日本').length)]]);
    db.closeSync();
  });

  test('writes a batch whole or not at all', async () => {
    // Prepare: the second document lacks organizationId (NOT NULL), as a bypassed validation would
    const db = await openDuckDb(':memory:');
    const broken = {
      ...event('b', '2024-03-02T00:00:00Z', 'bus'),
      organizationId: undefined,
    } as unknown as ReportDocument<'movementEvents'>;
    // Act / Assess
    await expect(
      ingestDocuments(db, 'movementEvents', [event('a', '2024-03-01T00:00:00Z', 'car', ['n']), broken]),
    ).rejects.toBeInstanceOf(InternalError);
    expect(await rows(db, 'SELECT count(*) FROM movement_events')).toEqual([[0n]]);
    expect(await rows(db, 'SELECT count(*) FROM movement_crossed_paths')).toEqual([[0n]]);
    db.closeSync();
  });
});

describe('opening a database file', () => {
  test('refuses a file written with another table layout, saying what to do', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'lrs-duckdb-'));
    const path = join(dir, 'old.duckdb');
    const old = await DuckDBInstance.create(path);
    const connection = await old.connect();
    await connection.run('CREATE TABLE movement_events (row_id BIGINT, label VARCHAR)');
    connection.closeSync();
    old.closeSync();
    // Act / Assess
    await expect(openDuckDb(path)).rejects.toThrow(/movement_events has columns \(row_id,label\).*delete the file/);
    rmSync(dir, { recursive: true, force: true });
  });

  test('migrates a file of the layout before identities: its rows keep their answers and are never matched, new ones are', async () => {
    // Prepare: a file of the previous release, i.e. today's tables without the identity columns
    const dir = mkdtempSync(join(tmpdir(), 'lrs-duckdb-'));
    const path = join(dir, 'previous.duckdb');
    const previous = await openDuckDb(path);
    await ingestDocuments(previous, 'movementEvents', [event('a', '2024-03-01T00:00:00Z', 'car', ['n'])]);
    await ingestDocuments(previous, 'parkingEvents', [
      parseDocument('parkingEvents', {
        organizationId: 'org',
        locationId: 'loc',
        timestamp: '2024-03-01T00:00:00Z',
        duration: 60,
      }),
    ]);
    for (const table of ['movement_events', 'parking_lot_stats', 'parking_events']) {
      const connection = await previous.connect();
      await connection.run(`ALTER TABLE ${table} DROP COLUMN _key`);
      await connection.run(`ALTER TABLE ${table} DROP COLUMN _content`);
      connection.closeSync();
    }
    previous.closeSync();
    // Act
    const db = await openDuckDb(path);
    const outcomes = await writeDocuments(
      db,
      'movementEvents',
      [event('a', '2024-03-01T00:00:00Z', 'car', ['n']), event('b', '2024-03-01T00:00:00Z', 'car')].map(toWrite),
    );
    const again = await writeDocuments(db, 'movementEvents', [event('b', '2024-03-01T00:00:00Z', 'car')].map(toWrite));
    // Assess: the old "a" has no identity, so the new "a" is written beside it; "b" is then known
    expect(await rows(db, 'SELECT doc_id, _key IS NULL FROM movement_events ORDER BY row_id')).toEqual([
      ['a', true],
      ['a', false],
      ['b', false],
    ]);
    expect(await rows(db, 'SELECT count(*), count(_key) FROM parking_events')).toEqual([[1n, 0n]]);
    expect([...outcomes, ...again].map((o) => o.kind)).toEqual(['written', 'written', 'duplicate']);
    db.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });

  test('migrates a file of the layout before item counts, scope numbers and parent copies, keeping every answer', async () => {
    // Prepare: the tables as the previous version created them, written with plain SQL
    const dir = mkdtempSync(join(tmpdir(), 'lrs-duckdb-'));
    const path = join(dir, 'previous.duckdb');
    const old = await DuckDBInstance.create(path);
    const connection = await old.connect();
    const march = Date.parse('2024-03-01T08:00:00Z');
    for (const statement of [
      'CREATE TABLE movement_events (row_id BIGINT NOT NULL, doc_id VARCHAR, "organizationId" VARCHAR NOT NULL, _shard INTEGER NOT NULL, "locationId" VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL, "trackingCameraId" VARCHAR, label VARCHAR)',
      'CREATE TABLE movement_crossed_paths (event_id BIGINT NOT NULL, id VARCHAR, "end" VARCHAR, start VARCHAR)',
      'CREATE TABLE movement_polygons (event_id BIGINT NOT NULL, id VARCHAR, value DOUBLE)',
      `INSERT INTO movement_events VALUES (1, 'a', 'org', 202403, 'loc', ${march}, 'cam', 'car'), (2, NULL, 'org', 202403, 'loc', ${march + 1000}, 'cam', 'bus'), (3, NULL, 'org', 202403, 'loc2', ${march + 2000}, NULL, NULL)`,
      // items of document 1 and 3 interleaved with document 2's, as replacements leave them
      "INSERT INTO movement_crossed_paths VALUES (1, 'n', 'A', 'B'), (3, 'x', 'B', 'A'), (1, 's', 'B', 'A'), (3, 'y', 'A', 'B'), (3, 'z', 'A', 'B')",
      "INSERT INTO movement_polygons VALUES (2, 'q', 1.5)",
    ]) {
      await connection.run(statement);
    }
    connection.closeSync();
    old.closeSync();
    // Act
    const db = await openDuckDb(path);
    // Assess
    expect(
      await rows(db, 'SELECT row_id, label, "_crossedPaths", "_polygons" FROM movement_events ORDER BY rowid'),
    ).toEqual([
      [1n, 'car', 2, 0],
      [2n, 'bus', 0, 1],
      [3n, null, 3, 0],
    ]);
    expect(await rows(db, 'SELECT * FROM movement_scopes ORDER BY _scope')).toEqual([
      [1, 'org', 'loc'],
      [2, 'org', 'loc2'],
    ]);
    expect(
      await rows(
        db,
        'SELECT event_id, _item, _scope, _shard, "timestamp", id, "end", start FROM movement_crossed_paths ORDER BY rowid',
      ),
    ).toEqual([
      [1n, 0, 1, 202403, BigInt(march), 'n', 'A', 'B'],
      [3n, 0, 2, 202403, BigInt(march + 2000), 'x', 'B', 'A'],
      [1n, 1, 1, 202403, BigInt(march), 's', 'B', 'A'],
      [3n, 1, 2, 202403, BigInt(march + 2000), 'y', 'A', 'B'],
      [3n, 2, 2, 202403, BigInt(march + 2000), 'z', 'A', 'B'],
    ]);
    expect(await rows(db, 'SELECT event_id, _item, _scope, id, value FROM movement_polygons')).toEqual([
      [2n, 0, 1, 'q', 1.5],
    ]);
    // a nested report over the migrated tables: 3 documents (2 with lines), 5 lines, A: n y z, B: s x
    const report = await new DuckDbEngine(db).run(
      buildPlan({
        aggregations: [
          { type: 'terms', field: 'locationId' },
          { type: 'nested', path: 'crossedPaths' },
          { type: 'terms', field: 'crossedPaths.end' },
        ],
      }),
      { organizationId: 'org' },
    );
    expect(report.root).toEqual({
      kind: 'terms',
      buckets: [
        {
          key: 'loc',
          count: 2,
          sub: {
            kind: 'single',
            count: 2,
            sub: {
              kind: 'terms',
              buckets: [
                { key: 'A', count: 1 },
                { key: 'B', count: 1 },
              ],
            },
          },
        },
        {
          key: 'loc2',
          count: 1,
          sub: {
            kind: 'single',
            count: 3,
            sub: {
              kind: 'terms',
              buckets: [
                { key: 'A', count: 2 },
                { key: 'B', count: 1 },
              ],
            },
          },
        },
      ],
    });
    db.closeSync();
    // the next start finds the current layout, and new documents get the next scope number
    const again = await openDuckDb(path);
    await ingestDocuments(again, 'movementEvents', [event(undefined, '2024-03-02T00:00:00Z', 'car', ['m'])]);
    expect(await rows(again, 'SELECT _scope, "locationId" FROM movement_scopes ORDER BY _scope')).toEqual([
      [1, 'loc'],
      [2, 'loc2'],
    ]);
    expect(await rows(again, "SELECT event_id, _scope FROM movement_crossed_paths WHERE id = 'm'")).toEqual([[4n, 1]]);
    again.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('DuckDB errors', () => {
  test('are 503 for I/O and lock problems, which a retry may outlive', () => {
    const lock = mapDuckDbError(
      new Error('IO Error: Could not set lock on file "x.duckdb": Conflicting lock is held in node (PID 7)'),
    );
    expect(lock).toBeInstanceOf(EngineUnavailableError);
    expect(lock.headers).toEqual({ 'Retry-After': '5' });
    expect(mapDuckDbError(new Error('IO Error: No space left on device'))).toBeInstanceOf(EngineUnavailableError);
  });

  test('are 500 for anything else, without internals in the detail', () => {
    const bug = mapDuckDbError(new Error('Binder Error: Referenced column "k9" not found'));
    expect(bug).toBeInstanceOf(InternalError);
    expect(bug.detail).not.toContain('k9');
  });
});
