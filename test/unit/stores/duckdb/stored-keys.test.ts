import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument, type ReportDocument } from '#shared/documents/documents';
import { documentIdentity } from '#shared/documents/identity';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { deleteDocuments } from '#shared/stores/duckdb/erase';
import { writeDocuments } from '#shared/stores/duckdb/write';
import { StoredKeys } from '#shared/stores/duckdb/layout/stored-keys';

const event = (id: string | undefined, timestamp: string, label: string): ReportDocument<'movementEvents'> =>
  parseDocument('movementEvents', {
    ...(id ? { id } : {}),
    organizationId: 'org',
    locationId: 'loc',
    timestamp,
    label,
  });

const toWrite = (document: ReportDocument<'movementEvents'>) => ({
  document,
  identity: documentIdentity('movementEvents', document),
});

describe('the stored keys a write looks a batch up in', () => {
  test('are read from the file a former process wrote: its documents again are duplicates, its id with other content a conflict', async () => {
    // Prepare: "a" (an id) and "u" (no id) written, the file closed
    const dir = mkdtempSync(join(tmpdir(), 'lrs-stored-keys-'));
    const path = join(dir, 'reports.duckdb');
    const [a, u] = [event('a', '2024-03-01T00:00:00Z', 'car'), event(undefined, '2024-04-01T00:00:00Z', 'bus')];
    try {
      const before = await openDuckDb(path);
      await writeDocuments(before, 'movementEvents', [a, u].map(toWrite));
      before.closeSync();
      // Act: reopened, both again, "a" as a truck, a new "b"
      const db = await openDuckDb(path);
      const again = await writeDocuments(
        db,
        'movementEvents',
        [a, u, event('b', '2024-03-02T00:00:00Z', 'car')].map(toWrite),
      );
      const changed = await writeDocuments(
        db,
        'movementEvents',
        [event('a', '2024-03-01T00:00:00Z', 'truck')].map(toWrite),
      );
      db.closeSync();
      // Assess
      expect(again.map((o) => o.kind)).toEqual(['duplicate', 'duplicate', 'written']);
      expect(changed.map((o) => o.kind)).toEqual(['conflict']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('keep the keys of deleted documents, which a write then finds absent from the table: written again', async () => {
    // Prepare: "a" written, then deleted
    const db = await openDuckDb(':memory:');
    const a = event('a', '2024-03-01T00:00:00Z', 'car');
    await writeDocuments(db, 'movementEvents', [toWrite(a)]);
    await deleteDocuments(db, (c) => (c === 'movementEvents' ? { sql: 'true', params: [] } : undefined));
    // Act
    const again = await writeDocuments(db, 'movementEvents', [toWrite(a)]);
    // Assess
    expect(again.map((o) => o.kind)).toEqual(['written']);
    db.closeSync();
  });

  test('hold every key added, before and after the added ones are merged into the sorted ones', () => {
    // Prepare: 3 sorted keys, then 70,000 added in two steps (past the 65,536 kept apart before merging)
    const keys = new StoredKeys(BigInt64Array.from([-5n, 0n, 7n]));
    const added = Array.from({ length: 70_000 }, (_, i) => BigInt(i) * 1_000_003n - 9_000_000_000n);
    // Act
    keys.add(added.slice(0, 60_000));
    const apart = added.slice(0, 60_000).every((k) => keys.has(k));
    keys.add(added.slice(60_000));
    // Assess
    expect(apart).toBe(true);
    expect([-5n, 0n, 7n, ...added].every((k) => keys.has(k))).toBe(true);
    expect([1n, -6n, 8n, -9_000_000_001n, 9_223_372_036_854_775_807n].map((k) => keys.has(k))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
