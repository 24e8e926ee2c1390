import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EngineUnavailableError, InternalError } from '#shared/errors';
import { parseDocument, type ReportDocument } from '#shared/report/documents';
import { mapDuckDbError } from '#shared/report/engines/duckdb/errors';
import { openDuckDb } from '#shared/report/engines/duckdb/execute';
import { ingestDocuments } from '#shared/report/engines/duckdb/ingest';

const event = (id: string | undefined, timestamp: string, label: string, lines: string[] = []): ReportDocument<'movementEvents'> =>
  parseDocument('movementEvents', {
    ...(id ? { id } : {}),
    organizationId: 'org',
    locationId: 'loc',
    timestamp,
    label,
    crossedPaths: lines.map((l) => ({ id: l, end: 'A' })),
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
  test('writes root rows with their shard and nested items keyed by the row id, start derived', async () => {
    // Prepare
    const db = await openDuckDb(':memory:');
    // Act
    const written = await ingestDocuments(db, 'movementEvents', [event('a', '2024-03-31T23:30:00+02:00', 'car', ['n', 's']), event(undefined, '2024-04-01T00:00:00Z', 'bus')]);
    // Assess
    expect(written).toBe(2);
    expect(await rows(db, 'SELECT row_id, doc_id, _shard, "timestamp", label FROM movement_events ORDER BY row_id')).toEqual([
      [1n, 'a', 202403, BigInt(Date.parse('2024-03-31T21:30:00Z')), 'car'],
      [2n, null, 202404, BigInt(Date.parse('2024-04-01T00:00:00Z')), 'bus'],
    ]);
    expect(await rows(db, 'SELECT event_id, id, "end", start FROM movement_crossed_paths ORDER BY id')).toEqual([
      [1n, 'n', 'A', 'B'],
      [1n, 's', 'A', 'B'],
    ]);
    db.closeSync();
  });

  test('replaces a document with the same id in the same month, items included, as a monthly index would', async () => {
    // Prepare
    const db = await openDuckDb(':memory:');
    await ingestDocuments(db, 'movementEvents', [event('a', '2024-03-01T00:00:00Z', 'car', ['n']), event('a', '2024-04-01T00:00:00Z', 'car')]);
    // Act: same id in March again (twice in one batch: the last wins)
    await ingestDocuments(db, 'movementEvents', [event('a', '2024-03-20T00:00:00Z', 'bus', ['x']), event('a', '2024-03-21T00:00:00Z', 'truck', ['y', 'z'])]);
    // Assess: the April document with the same id is another index's document and stays
    expect(await rows(db, 'SELECT doc_id, label FROM movement_events ORDER BY "timestamp"')).toEqual([
      ['a', 'truck'],
      ['a', 'car'],
    ]);
    expect(await rows(db, 'SELECT id FROM movement_crossed_paths ORDER BY id')).toEqual([['y'], ['z']]);
    db.closeSync();
  });

  test('stores every value as given over several data chunks: short, long and multi-byte strings, NULLs, dates before 1970', async () => {
    // Prepare: strings around the 12-byte inline limit of DuckDB's string_t, repeated and not
    const strings = ['o', 'twelve bytes', 'thirteen byte', '日本語', '日本語日本', '🚗', 'a-long-organization-id-0000-4000-8000', 'ü'.repeat(6), 'ü'.repeat(7)];
    const pick = (i: number, salt: number) => strings[(i * 7 + salt * 3 + Math.floor(i / 5)) % strings.length] as string;
    const docs = Array.from({ length: 5000 }, (_, i) =>
      parseDocument('movementEvents', {
        ...(i % 3 === 0 ? { id: `${pick(i, 1)}-${i}` } : {}),
        organizationId: pick(i, 2),
        locationId: i % 2 ? pick(i, 3) : `loc-${i}`,
        timestamp: new Date(Date.UTC(1969, 11, 31) + (i - 2500) * 3_600_007).toISOString(),
        ...(i % 4 === 0 ? {} : { label: pick(i, 4) }),
        ...(i % 5 === 0 ? {} : { trackingCameraId: `${pick(i, 5)}-camera-${i % 11}` }),
        crossedPaths: Array.from({ length: i % 4 }, (__, j) => ({ id: pick(i + j, 6), end: (i + j) % 2 ? 'A' : 'B' })),
        polygons: i % 7 === 0 ? [] : [{ id: pick(i, 7), value: (i - 2500) / 8 }],
      }),
    );
    const db = await openDuckDb(':memory:');
    // Act: two calls, the second continuing the row ids
    await ingestDocuments(db, 'movementEvents', docs.slice(0, 4100));
    await ingestDocuments(db, 'movementEvents', docs.slice(4100));
    // Assess
    const shard = (t: number) => new Date(t).getUTCFullYear() * 100 + new Date(t).getUTCMonth() + 1;
    expect(await rows(db, 'SELECT row_id, doc_id, "organizationId", _shard, "locationId", "timestamp", "trackingCameraId", label FROM movement_events ORDER BY row_id')).toEqual(
      docs.map((d, i) => [BigInt(i + 1), d.id ?? null, d.organizationId, shard(d.timestamp), d.locationId, BigInt(d.timestamp), d.trackingCameraId ?? null, d.label ?? null]),
    );
    expect(await rows(db, 'SELECT event_id, id, "end", start FROM movement_crossed_paths ORDER BY rowid')).toEqual(
      docs.flatMap((d, i) => (d.crossedPaths ?? []).map((p) => [BigInt(i + 1), p.id, p.end, p.start])),
    );
    expect(await rows(db, 'SELECT event_id, id, value FROM movement_polygons ORDER BY rowid')).toEqual(
      docs.flatMap((d, i) => (d.polygons ?? []).map((p) => [BigInt(i + 1), p.id, p.value])),
    );
    expect(await rows(db, "SELECT count(*) FROM movement_events WHERE \"organizationId\" = 'thirteen byte' AND label = '日本語日本'")).toEqual([
      [BigInt(docs.filter((d) => d.organizationId === 'thirteen byte' && d.label === '日本語日本').length)],
    ]);
    db.closeSync();
  });

  test('writes a batch whole or not at all', async () => {
    // Prepare: the second document lacks organizationId (NOT NULL), as a bypassed validation would
    const db = await openDuckDb(':memory:');
    const broken = { ...event('b', '2024-03-02T00:00:00Z', 'bus'), organizationId: undefined } as unknown as ReportDocument<'movementEvents'>;
    // Act / Assess
    await expect(ingestDocuments(db, 'movementEvents', [event('a', '2024-03-01T00:00:00Z', 'car', ['n']), broken])).rejects.toBeInstanceOf(InternalError);
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
});

describe('DuckDB errors', () => {
  test('are 503 for I/O and lock problems, which a retry may outlive', () => {
    const lock = mapDuckDbError(new Error('IO Error: Could not set lock on file "x.duckdb": Conflicting lock is held in node (PID 7)'));
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
