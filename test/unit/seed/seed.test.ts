import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TableLocationStore } from '#shared/locations/table-store';
import type { Collection } from '#shared/documents/fields';
import { TABLES } from '#shared/stores/duckdb/layout/schema';
import { FileItemTable } from '../../../bin/local/file-table';
import { seed } from '../../../bin/seed/seed';
import { duckDbTarget, type DocumentTarget } from '../../../bin/seed/targets';

const ORG = '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01';

let dir: string;
let table: FileItemTable;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lrs-seed-'));
  table = FileItemTable.open(join(dir, 'locations.jsonl'));
});
afterEach(() => {
  table.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A target that keeps every document it is given (validation is the targets' own, tested with them). */
function countingTarget() {
  const written: Record<Collection, number> = { movementEvents: 0, parkingLotStats: 0, parkingEvents: 0 };
  const target: DocumentTarget = {
    description: 'counting',
    async write(collection, documents) {
      written[collection] += documents.length;
      return { written: documents.length, duplicates: 0, failures: [] };
    },
    close: async () => undefined,
  };
  return { target, written };
}

describe('seeding', () => {
  test('ends its progress at 100%: the last total is what was written, not the estimate', async () => {
    // Prepare: 2 days, 1 location, 1500 events a day estimated; the generator makes fewer.
    const { target, written } = countingTarget();
    const calls: [number, number][] = [];
    // Act
    const summary = await seed(
      target,
      new TableLocationStore(table),
      { organizationId: ORG, days: 2, locations: 1, now: Date.parse('2024-03-06T15:00:00Z') },
      (done, total) => calls.push([done, total]),
    );
    // Assess
    const documents = written.movementEvents + written.parkingEvents + written.parkingLotStats;
    expect(calls.at(-1)).toEqual([documents, documents]);
    expect(summary.documents).toEqual(written);
    // The estimate was above what was written until the end (why the bar stopped short before).
    expect(calls.slice(0, -1).every(([done, total]) => total > done)).toBe(true);
  });

  test('writes the locations last: a seed stopped by a failed write leaves none, so the next start seeds again', async () => {
    const store = new TableLocationStore(table);
    const options = { organizationId: ORG, days: 2, locations: 1, now: Date.parse('2024-03-06T15:00:00Z') };
    const failing: DocumentTarget = {
      description: 'failing',
      write: async (collection) => {
        if (collection === 'parkingEvents') throw new Error('the cluster refused the batch');
        return { written: 0, duplicates: 0, failures: [] };
      },
      close: async () => undefined,
    };
    await expect(seed(failing, store, options)).rejects.toThrow('the cluster refused the batch');
    expect(await store.listLocations(ORG)).toEqual([]);
    // The next start (npm start seeds a store without locations) seeds whole.
    const { target } = countingTarget();
    const summary = await seed(target, store, options);
    expect([summary.locations, (await store.listLocations(ORG)).length]).toEqual([1, 1]);
  });

  test('writes the locations only when given no target', async () => {
    const store = new TableLocationStore(table);
    const summary = await seed(undefined, store, {
      organizationId: ORG,
      days: 2,
      locations: 2,
      now: Date.parse('2024-03-06T15:00:00Z'),
    });
    const none = { movementEvents: 0, parkingLotStats: 0, parkingEvents: 0 };
    expect(summary).toEqual({ locations: 2, documents: none, duplicates: none, failures: [] });
    expect((await store.listLocations(ORG)).map((l) => l.id)).toEqual(['berlin-mall', 'nyc-garage']);
  });

  test('is idempotent: seeding again, an hour later, writes only the new hour (a real DuckDB)', async () => {
    // Prepare: a DuckDB file; 1 location (Berlin), 2 days up to 15:00Z, then up to 16:00Z (same local date).
    const target = await duckDbTarget(join(dir, 'reports.duckdb'));
    const store = new TableLocationStore(table);
    const at = (iso: string) => ({
      organizationId: ORG,
      days: 2,
      locations: 1,
      eventsPerDay: 200,
      now: Date.parse(iso),
    });
    const total = (r: Record<Collection, number>) => r.movementEvents + r.parkingEvents + r.parkingLotStats;
    const stored = async () => {
      const reader = await target.instance.connect();
      try {
        const counts = Object.values(TABLES).map((t) => `(SELECT count(*) FROM ${t.root})`);
        const rows = await reader.runAndReadAll(`SELECT ${counts.join(' + ')} AS n`);
        return Number(rows.getRowObjects()[0]!.n);
      } finally {
        reader.closeSync();
      }
    };
    try {
      // Act
      const first = await seed(target, store, at('2024-03-06T15:00:00Z'));
      const same = await seed(target, store, at('2024-03-06T15:00:00Z'));
      const later = await seed(target, store, at('2024-03-06T16:00:00Z'));
      // Assess: the same run again writes nothing; an hour later, everything of the first run comes
      // back as a duplicate and only documents after 15:00Z (the new hour, and stays that ended in it) are written.
      expect(total(first.documents)).toBeGreaterThan(0);
      expect({ written: total(same.documents), duplicates: total(same.duplicates) }).toEqual({
        written: 0,
        duplicates: total(first.documents),
      });
      expect(total(later.duplicates)).toBe(total(first.documents));
      expect(total(later.documents)).toBeGreaterThan(0);
      expect(await stored()).toBe(total(first.documents) + total(later.documents));
    } finally {
      await target.close();
    }
  });
});
