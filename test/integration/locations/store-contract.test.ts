import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyImport, validateImportFile } from '#shared/locations/import';
import type { OccupancyEntry } from '#shared/locations/occupancy-entry';
import type { LocationStore } from '#shared/locations/store';
import { TableLocationStore } from '#shared/locations/table-store';
import { FileItemTable } from '../../../bin/local/file-table';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { createTestTable } from './table';

/**
 * One contract, two tables: the store on DynamoDB Local (what AWS runs) and on the local server's
 * embedded file table must answer every operation alike. Expected values come from the fixture
 * (test/fixtures/locations.ts) by hand.
 */
interface Subject {
  readonly store: LocationStore;
  close(): Promise<void>;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-table-'));
  dirs.push(dir);
  return dir;
};

const subjects: [string, () => Promise<Subject>][] = [
  [
    'DynamoDB Local',
    async () => {
      const table = await createTestTable('contract');
      return { store: table.store, close: () => table.drop() };
    },
  ],
  [
    'the embedded file table',
    async () => {
      const table = FileItemTable.open(join(tempDir(), 'locations.jsonl'));
      return { store: new TableLocationStore(table), close: async () => table.close() };
    },
  ],
];

const entry = (sensorGroupId: number, refreshedAt: string, occupancy: number): OccupancyEntry => ({
  organizationId: ORG_A,
  locationId: 'berlin-mall',
  sensorGroupId,
  name: `group ${sensorGroupId}`,
  occupancy,
  openedAt: '2024-03-01T05:00:00.000Z',
  refreshedAt,
});

describe.each(subjects)('the location store on %s', (_, open) => {
  let subject: Subject;
  let store: LocationStore;
  beforeEach(async () => {
    subject = await open();
    store = subject.store;
    await applyImport(store, validateImportFile(importFile), { now: new Date('2024-01-01T00:00:00Z'), actor: null });
  });
  afterEach(() => subject.close());

  test('lists an organization’s locations by id, and only its own', async () => {
    // Act
    const [a, b] = await Promise.all([store.listLocations(ORG_A), store.listLocations(ORG_B)]);
    // Assess
    expect(a.map((l) => [l.id, l.type, l.timezone])).toEqual([
      ['berlin-mall', 'shopping-mall', 'Europe/Berlin'],
      ['nyc-store', 'store', 'America/New_York'],
    ]);
    expect(a[0]).toMatchObject({ createdBy: null, updatedBy: null, createdAt: '2024-01-01T00:00:00.000Z' });
    expect(b.map((l) => [l.id, l.type])).toEqual([['berlin-mall', 'office']]);
  });

  test('reads a location with its groups in id order, and nothing of another organization’s', async () => {
    // Act
    const view = await store.getLiveView(ORG_A, 'berlin-mall');
    const foreign = await store.getLiveView(ORG_B, 'nyc-store');
    // Assess
    expect(view?.sensorGroups.map((g) => [g.id, g.name, g.lines.length])).toEqual([
      [1, 'Entrance hall', 2],
      [2, 'Food court', 1],
      [3, 'Parking', 1],
    ]);
    expect(view?.sensorGroups[1]?.openingHours).toEqual({
      monday: [{ open: '11:00', close: '21:00' }],
      saturday: [{ open: '11:00', close: '23:00' }],
    });
    expect(view?.occupancy).toEqual([]);
    expect(foreign).toBeUndefined();
  });

  test('replaces an occupancy entry only with one refreshed at the same time or later', async () => {
    // Act
    const written = [
      await store.putOccupancy(entry(3, '2024-03-01T10:00:00.000Z', 5)),
      await store.putOccupancy(entry(3, '2024-03-01T09:55:00.000Z', 4)),
      await store.putOccupancy(entry(3, '2024-03-01T10:00:00.000Z', 6)),
      await store.putOccupancy(entry(1, '2024-03-01T10:05:00.000Z', 2)),
    ];
    // Assess: the 09:55 entry came after the 10:00 one and was refused.
    expect(written).toEqual([true, false, true, true]);
    const view = await store.getLiveView(ORG_A, 'berlin-mall');
    expect(view?.occupancy.map((e) => [e.sensorGroupId, e.occupancy, e.refreshedAt])).toEqual([
      [1, 2, '2024-03-01T10:05:00.000Z'],
      [3, 6, '2024-03-01T10:00:00.000Z'],
    ]);
  });

  test('deletes an entry unless it was refreshed after the given time', async () => {
    // Prepare
    await store.putOccupancy(entry(3, '2024-03-01T10:00:00.000Z', 5));
    // Act + Assess
    await store.deleteOccupancy(ORG_A, 'berlin-mall', 3, '2024-03-01T09:59:59.999Z');
    expect((await store.getLiveView(ORG_A, 'berlin-mall'))?.occupancy).toHaveLength(1);
    await store.deleteOccupancy(ORG_A, 'berlin-mall', 3, '2024-03-01T10:00:00.000Z');
    expect((await store.getLiveView(ORG_A, 'berlin-mall'))?.occupancy).toEqual([]);
    // Deleting what is not there is no error.
    await store.deleteOccupancy(ORG_A, 'berlin-mall', 3, '2024-03-01T10:00:00.000Z');
  });

  test('lists every location with its groups and cached group ids for the refresh, by organization and id', async () => {
    // Prepare
    await store.putOccupancy(entry(3, '2024-03-01T10:00:00.000Z', 5));
    await store.putOccupancy(entry(1, '2024-03-01T10:00:00.000Z', 1));
    await store.deleteSensorGroup(ORG_A, 'berlin-mall', 2);
    // Act
    const units = await store.listForRefresh();
    // Assess
    expect(
      units.map((u) => [u.location.organizationId, u.location.id, u.sensorGroups.map((g) => g.id), u.cachedGroupIds]),
    ).toEqual([
      [ORG_A, 'berlin-mall', [1, 3], [1, 3]],
      [ORG_A, 'nyc-store', [7], []],
      [ORG_B, 'berlin-mall', [1], []],
    ]);
  });
});

describe('the embedded file table', () => {
  const open = (path: string, now?: number) => {
    const table = FileItemTable.open(path, now === undefined ? {} : { now });
    return { table, store: new TableLocationStore(table) };
  };

  test('keeps what was written across a restart', async () => {
    // Prepare
    const path = join(tempDir(), 'locations.jsonl');
    const first = open(path);
    await applyImport(first.store, validateImportFile(importFile), {
      now: new Date('2024-01-01T00:00:00Z'),
      actor: 'importer',
    });
    await first.store.putOccupancy(entry(3, '2024-03-01T10:00:00.000Z', 5));
    await first.store.deleteSensorGroup(ORG_A, 'berlin-mall', 2);
    const before = await first.store.listForRefresh();
    first.table.close();
    // Act
    const second = open(path, Date.parse('2024-03-01T12:00:00Z'));
    // Assess
    expect(await second.store.listForRefresh()).toEqual(before);
    expect((await second.store.listLocations(ORG_A))[0]).toMatchObject({
      createdBy: 'importer',
      updatedBy: 'importer',
    });
    second.table.close();
  });

  test('drops entries whose time to live has passed when it opens, as DynamoDB’s TTL would', async () => {
    // Prepare: an entry refreshed at 10:00 expires a day later (ENTRY_TTL_SECONDS).
    const path = join(tempDir(), 'locations.jsonl');
    const first = open(path);
    await applyImport(first.store, validateImportFile(importFile), {
      now: new Date('2024-01-01T00:00:00Z'),
      actor: null,
    });
    await first.store.putOccupancy(entry(3, '2024-03-01T10:00:00.000Z', 5));
    first.table.close();
    // Act
    const dayLater = open(path, Date.parse('2024-03-02T09:59:59Z'));
    const kept = (await dayLater.store.getLiveView(ORG_A, 'berlin-mall'))?.occupancy.length;
    dayLater.table.close();
    const past = open(path, Date.parse('2024-03-02T10:00:01Z'));
    const dropped = (await past.store.getLiveView(ORG_A, 'berlin-mall'))?.occupancy.length;
    past.table.close();
    // Assess
    expect([kept, dropped]).toEqual([1, 0]);
  });

  test('opens a log whose last line was cut short (the process died while writing it), without that line', async () => {
    // Prepare
    const path = join(tempDir(), 'locations.jsonl');
    const first = open(path);
    await applyImport(first.store, validateImportFile(importFile), {
      now: new Date('2024-01-01T00:00:00Z'),
      actor: null,
    });
    first.table.close();
    appendFileSync(path, '{"put":{"PK":"ORG#x","SK":"LOC#');
    // Act
    const second = open(path);
    // Assess
    expect((await second.store.listLocations(ORG_A)).map((l) => l.id)).toEqual(['berlin-mall', 'nyc-store']);
    second.table.close();
  });

  test('refuses a log with a damaged line before the last, naming the file and the line', () => {
    const path = join(tempDir(), 'locations.jsonl');
    writeFileSync(path, '{"put":{"PK":"a","SK":"b","kind":"location"}}\nnot json\n{"delete":["a","b"]}\n');
    expect(() => FileItemTable.open(path)).toThrow(`${path}:2:`);
  });

  test('is held by one process at a time', () => {
    // Prepare
    const path = join(tempDir(), 'locations.jsonl');
    const first = FileItemTable.open(path);
    // Act + Assess
    expect(() => FileItemTable.open(path)).toThrow(`${path} is in use by process ${process.pid}`);
    first.close();
    FileItemTable.open(path).close();
  });

  test('keeps its log within a few times its items however often occupancy is rewritten', async () => {
    // Prepare
    const path = join(tempDir(), 'locations.jsonl');
    const { table, store } = open(path);
    await applyImport(store, validateImportFile(importFile), { now: new Date('2024-01-01T00:00:00Z'), actor: null });
    // Act: 3,000 refreshes of one entry.
    for (let i = 0; i < 3000; i++)
      await store.putOccupancy(entry(3, new Date(Date.parse('2024-03-01T00:00:00Z') + i * 300_000).toISOString(), i));
    // Assess: 12 items (3 locations, 5 groups, their 3 change log entries, 1 entry); compaction at more than 1000 + 4 x
    // 12 lines.
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
    expect(lines).toBeLessThanOrEqual(1048);
    expect((await store.getLiveView(ORG_A, 'berlin-mall'))?.occupancy.map((e) => e.occupancy)).toEqual([2999]);
    table.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(12);
  });
});
