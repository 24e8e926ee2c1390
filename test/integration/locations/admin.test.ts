import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocation, deleteLocation, replaceLocation, saveLocation } from '#shared/locations/admin';
import type { LocationInput } from '#shared/locations/schema';
import type { LocationStore } from '#shared/locations/store';
import { TableLocationStore } from '#shared/locations/table-store';
import { FileItemTable } from '../../../bin/local/file-table';
import { ORG_A, ORG_B } from '../../fixtures/locations';
import { createTestTable } from './table';

/**
 * The writes of the administration API and the import, on both tables (DynamoDB Local with real
 * TransactWriteItems, and the embedded file table): revisions, the change log, whole-or-nothing,
 * deletion records. Every expected value is written out by hand.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const subjects: [string, () => Promise<{ store: LocationStore; close(): Promise<void> }>][] = [
  [
    'DynamoDB Local',
    async () => {
      const table = await createTestTable('admin');
      return { store: table.store, close: () => table.drop() };
    },
  ],
  [
    'the embedded file table',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lrs-admin-'));
      dirs.push(dir);
      const table = FileItemTable.open(join(dir, 'locations.jsonl'));
      return { store: new TableLocationStore(table), close: async () => table.close() };
    },
  ],
];

const hours = { monday: [{ open: '08:00', close: '20:00' }] };
const line = (camera: string) => ({ trackingCameraId: camera, lineId: 'door', inDirection: 'A' as const });
const shop = (extra: Partial<LocationInput> = {}): LocationInput => ({
  id: 'lisbon',
  name: 'Lisbon store',
  type: 'store',
  timezone: 'Europe/Lisbon',
  sensorGroups: [
    { id: 1, name: 'Floor', capacity: 40, lines: [line('cam-1')], openingHours: hours },
    { id: 2, name: 'Back room', lines: [line('cam-2')], openingHours: hours },
  ],
  ...extra,
});
const at = (iso: string, actor: string | null = 'alice') => ({ organizationId: ORG_A, actor, now: new Date(iso) });

describe.each(subjects)('location writes on %s', (_, open) => {
  let store: LocationStore;
  let close: () => Promise<void>;
  beforeEach(async () => ({ store, close } = await open()));
  afterEach(() => close());

  test('creates a location at revision 1 with its groups, its capacity history and a change log entry', async () => {
    // Act
    const created = await createLocation(store, at('2024-05-01T10:00:00Z'), shop());
    // Assess
    expect(created.revision).toBe(1);
    const read = await store.getLocationWithGroups(ORG_A, 'lisbon');
    expect(read?.revision).toBe(1);
    expect(read?.location).toEqual({
      id: 'lisbon',
      name: 'Lisbon store',
      organizationId: ORG_A,
      type: 'store',
      timezone: 'Europe/Lisbon',
      createdBy: 'alice',
      updatedBy: 'alice',
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
    });
    expect(read?.sensorGroups.map((g) => [g.id, g.capacity, g.capacityHistory])).toEqual([
      [1, 40, [{ since: '2024-05-01T10:00:00.000Z', capacity: 40 }]],
      [2, undefined, undefined],
    ]);
    const [entry] = await store.listChanges(ORG_A, 'lisbon', { limit: 10 });
    expect(entry).toMatchObject({ revision: 1, at: '2024-05-01T10:00:00.000Z', by: 'alice', action: 'created' });
    expect(entry?.changes.map((c) => c.path)).toEqual([
      '/name',
      '/type',
      '/timezone',
      '/sensorGroups/1',
      '/sensorGroups/2',
    ]);
    expect(await store.getLocationWithGroups(ORG_B, 'lisbon')).toBeUndefined();
  });

  test('replaces the whole state, logs each field before and after, and writes nothing when nothing changes', async () => {
    // Prepare
    await createLocation(store, at('2024-05-01T10:00:00Z'), shop());
    // Act: capacity 40 → 60, group 2 removed, group 3 added, the name changed.
    const input = shop({
      name: 'Lisboa',
      sensorGroups: [
        { id: 1, name: 'Floor', capacity: 60, lines: [line('cam-1')], openingHours: hours },
        { id: 3, name: 'Terrace', lines: [line('cam-3')], openingHours: {} },
      ],
    });
    const replaced = await replaceLocation(store, at('2024-06-01T10:00:00Z', 'bob'), 'lisbon', input, 1);
    const again = await replaceLocation(store, at('2024-07-01T10:00:00Z', 'carol'), 'lisbon', input, 2);
    // Assess
    expect(replaced.changed).toBe(true);
    expect(again).toMatchObject({ changed: false, location: { revision: 2 } });
    const read = await store.getLocationWithGroups(ORG_A, 'lisbon');
    expect(read?.revision).toBe(2);
    expect(read?.location).toMatchObject({
      name: 'Lisboa',
      createdBy: 'alice',
      updatedBy: 'bob',
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-06-01T10:00:00.000Z',
    });
    expect(read?.sensorGroups.map((g) => g.id)).toEqual([1, 3]);
    expect(read?.sensorGroups[0]?.capacityHistory).toEqual([
      { since: '2024-05-01T10:00:00.000Z', capacity: 40 },
      { since: '2024-06-01T10:00:00.000Z', capacity: 60 },
    ]);
    const log = await store.listChanges(ORG_A, 'lisbon', { limit: 10 });
    expect(log.map((c) => [c.revision, c.action, c.by])).toEqual([
      [2, 'updated', 'bob'],
      [1, 'created', 'alice'],
    ]);
    expect(log[0]?.changes).toEqual([
      { path: '/name', before: 'Lisbon store', after: 'Lisboa' },
      { path: '/sensorGroups/1/capacity', before: 40, after: 60 },
      { path: '/sensorGroups/2', before: { id: 2, name: 'Back room', lines: [line('cam-2')], openingHours: hours } },
      { path: '/sensorGroups/3', after: { id: 3, name: 'Terrace', lines: [line('cam-3')], openingHours: {} } },
    ]);
    expect(await store.listChanges(ORG_A, 'lisbon', { limit: 10, beforeRevision: 2 })).toHaveLength(1);
  });

  test('refuses a replacement that names another revision, and writes nothing of it', async () => {
    await createLocation(store, at('2024-05-01T10:00:00Z'), shop());
    await expect(
      replaceLocation(store, at('2024-06-01T10:00:00Z'), 'lisbon', shop({ name: 'Stale' }), 7),
    ).rejects.toMatchObject({ status: 412 });
    expect((await store.getLocationWithGroups(ORG_A, 'lisbon'))?.location.name).toBe('Lisbon store');
    expect(await store.listChanges(ORG_A, 'lisbon', { limit: 10 })).toHaveLength(1);
  });

  test('writes nothing when a concurrent write came first (the transaction’s condition), groups included', async () => {
    // Prepare: revision 1, then a write at revision 1 that another write overtakes.
    await createLocation(store, at('2024-05-01T10:00:00Z'), shop());
    const current = (await store.getLocationWithGroups(ORG_A, 'lisbon'))!;
    await replaceLocation(store, at('2024-05-02T10:00:00Z', 'bob'), 'lisbon', shop({ name: 'First' }), 1);
    // Act: the late writer still believes in revision 1 (as if it read before bob wrote).
    const late = store.writeLocation({
      organizationId: ORG_A,
      locationId: 'lisbon',
      expects: { kind: 'revision', revision: current.revision ?? 0 },
      location: { location: { ...current.location, name: 'Late' }, revision: 2 },
      putGroups: [{ id: 9, name: 'Ghost', lines: [line('cam-9')], openingHours: {} }],
      deleteGroupIds: [1],
      change: { revision: 2, at: '2024-05-03T10:00:00.000Z', by: 'mallory', action: 'updated', changes: [] },
    });
    // Assess: refused whole: no group 9, group 1 still there, one log entry per real write.
    await expect(late).rejects.toMatchObject({ reason: 'changed' });
    const read = await store.getLocationWithGroups(ORG_A, 'lisbon');
    expect(read?.location.name).toBe('First');
    expect(read?.sensorGroups.map((g) => g.id)).toEqual([1, 2]);
    expect((await store.listChanges(ORG_A, 'lisbon', { limit: 10 })).map((c) => c.by)).toEqual(['bob', 'alice']);
  });

  test('deletes a location whole, keeps a deletion record and the log, and refuses its id until it is reused knowingly', async () => {
    // Prepare
    await createLocation(store, at('2024-05-01T10:00:00Z'), shop());
    // Act
    await deleteLocation(store, at('2024-06-01T10:00:00Z', 'bob'), 'lisbon');
    // Assess
    expect(await store.getLocationWithGroups(ORG_A, 'lisbon')).toBeUndefined();
    expect(await store.listLocations(ORG_A)).toEqual([]);
    expect(await store.findDeletedLocation(ORG_A, 'lisbon')).toEqual({
      id: 'lisbon',
      organizationId: ORG_A,
      deletedAt: '2024-06-01T10:00:00.000Z',
      deletedBy: 'bob',
      revision: 2,
    });
    await expect(deleteLocation(store, at('2024-06-02T10:00:00Z'), 'lisbon')).rejects.toMatchObject({ status: 404 });
    await expect(createLocation(store, at('2024-06-03T10:00:00Z'), shop())).rejects.toMatchObject({
      status: 409,
      extensions: { reason: 'deleted', deletedAt: '2024-06-01T10:00:00.000Z' },
    });
    // Reused knowingly: revisions go on after the deletion's, the record goes.
    const again = await createLocation(store, at('2024-06-04T10:00:00Z', 'carol'), shop(), { reuseDeletedId: true });
    expect(again.revision).toBe(3);
    expect(await store.findDeletedLocation(ORG_A, 'lisbon')).toBeUndefined();
    expect((await store.listChanges(ORG_A, 'lisbon', { limit: 10 })).map((c) => [c.revision, c.action])).toEqual([
      [3, 'recreated'],
      [2, 'deleted'],
      [1, 'created'],
    ]);
  });

  test('refuses to create a location whose id is taken', async () => {
    await createLocation(store, at('2024-05-01T10:00:00Z'), shop());
    await expect(createLocation(store, at('2024-05-02T10:00:00Z'), shop())).rejects.toMatchObject({
      status: 409,
      extensions: { reason: 'exists' },
    });
  });

  test('saves as the import does: created, unchanged, updated', async () => {
    expect((await saveLocation(store, at('2024-05-01T10:00:00Z'), 'lisbon', shop())).outcome).toBe('created');
    expect((await saveLocation(store, at('2024-05-02T10:00:00Z'), 'lisbon', shop())).outcome).toBe('unchanged');
    expect((await saveLocation(store, at('2024-05-03T10:00:00Z'), 'lisbon', shop({ type: 'outlet' }))).outcome).toBe(
      'updated',
    );
    expect((await store.getLocationWithGroups(ORG_A, 'lisbon'))?.revision).toBe(2);
  });
});
