import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { importLocationsCli } from '../../../bin/import-locations';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { createTestTable, type TestTable } from './table';

/** The import CLI, run in-process against DynamoDB Local. */
let table: TestTable;
let dir: string;

beforeEach(async () => {
  table = await createTestTable('import');
  dir = mkdtempSync(join(tmpdir(), 'lrs-import-'));
});
afterEach(async () => {
  await table.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(content: unknown, ...extra: string[]) {
  const file = join(dir, 'locations.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await importLocationsCli(
    ['node', 'import-locations', '--file', file, '--table', table.name, ...extra],
    { log: (l) => lines.push(l), error: (l) => errors.push(l) },
    {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
    },
  );
  return { code, lines, errors };
}

async function allItems(): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.name }));
  return Items.sort((a, b) => `${a.PK}${a.SK}`.localeCompare(`${b.PK}${b.SK}`));
}

test('imports locations and their sensor groups', async () => {
  // Act
  const { code, lines } = await run(importFile);
  // Assess
  expect(code).toBe(0);
  expect(lines.at(-1)).toBe('3 locations: 3 created, 0 updated, 0 unchanged');
  expect((await table.store.listLocations(ORG_A)).map((l) => l.id)).toEqual(['berlin-mall', 'nyc-store']);
  const mall = await table.store.getLocationWithGroups(ORG_A, 'berlin-mall');
  expect(mall?.sensorGroups.map((g) => [g.id, g.name])).toEqual([
    [1, 'Entrance hall'],
    [2, 'Food court'],
    [3, 'Parking'],
  ]);
  expect(mall?.sensorGroups[0]).toEqual(importFile.locations[0]?.sensorGroups?.[0]);
  expect((await table.store.getLocationWithGroups(ORG_B, 'berlin-mall'))?.sensorGroups.map((g) => g.name)).toEqual([
    'Lobby',
  ]);
});

test('writes nothing when any part of the file is invalid, and says where', async () => {
  const bad = structuredClone(importFile);
  (bad.locations[2] as { timezone: string }).timezone = 'Europe/Atlantis';
  const { code, errors } = await run(bad);
  expect(code).toBe(1);
  expect(errors).toEqual([
    expect.stringContaining('nothing was written'),
    expect.stringContaining('/locations/2/timezone: must be an IANA time zone name'),
  ]);
  expect(await allItems()).toEqual([]);
});

test('writes nothing for a file that is not JSON', async () => {
  const { code, errors } = await run('{ "locations": [');
  expect(code).toBe(1);
  expect(errors[0]).toContain('nothing was written');
  expect(await allItems()).toEqual([]);
});

test('changes nothing when the same file is imported again', async () => {
  await run(importFile);
  const before = await allItems();
  const again = await run(importFile);
  expect(again.lines.at(-1)).toBe('3 locations: 0 created, 0 updated, 3 unchanged');
  expect(await allItems()).toEqual(before);
});

test('updates what changed, deletes groups the file no longer lists, and keeps createdAt', async () => {
  await run(importFile);
  const [createdMall] = await table.store.listLocations(ORG_A);
  const changed = structuredClone(importFile);
  const mall = changed.locations[0]!;
  mall.type = 'outlet';
  mall.sensorGroups = mall.sensorGroups!.filter((g) => g.id !== 2);
  const { lines } = await run(changed, '--actor', 'ops@example.com');
  expect(lines[0]).toBe(`updated   ${ORG_A}/berlin-mall (sensor groups: 0 written, 1 deleted)`);
  const after = await table.store.getLocationWithGroups(ORG_A, 'berlin-mall');
  expect(after?.location).toMatchObject({
    type: 'outlet',
    createdAt: createdMall?.createdAt,
    createdBy: null,
    updatedBy: 'ops@example.com',
  });
  expect(after!.location.updatedAt > createdMall!.updatedAt).toBe(true);
  expect(after?.sensorGroups.map((g) => g.id)).toEqual([1, 3]);
});

test('gives locations without an id the same generated id on every run', async () => {
  const file = { locations: [{ organizationId: ORG_A, type: 'kiosk', timezone: 'UTC' }] };
  await run(file);
  await run(file);
  const locations = await table.store.listLocations(ORG_A);
  expect(locations).toHaveLength(1);
  expect(locations[0]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('validates without writing on --dry-run', async () => {
  const { code, lines } = await run(importFile, '--dry-run');
  expect(code).toBe(0);
  expect(lines).toContain(`would import ${ORG_A}/berlin-mall`);
  expect(await allItems()).toEqual([]);
});
