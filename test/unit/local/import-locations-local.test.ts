import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TableLocationStore } from '#shared/locations/table-store';
import { importLocationsCli } from '../../../bin/import-locations';
import { FileItemTable } from '../../../bin/local/file-table';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';

/** `npm run import-locations -- --file f.json` with no table: into the data folder, what npm start serves. */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lrs-import-local-'));
  writeFileSync(join(dir, 'locations.json'), JSON.stringify(importFile));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await importLocationsCli(
    ['node', 'import-locations', '--file', join(dir, 'locations.json'), '--data-dir', join(dir, 'data'), ...args],
    { log: (l) => lines.push(l), error: (l) => errors.push(l) },
    {},
  );
  return { code, lines, errors };
}

test('imports into the data folder’s table when no table is named', async () => {
  // Act
  const { code, lines } = await run();
  // Assess
  expect(code).toBe(0);
  expect(lines.at(-1)).toBe('3 locations: 3 created, 0 updated, 0 unchanged');
  const table = FileItemTable.open(join(dir, 'data', 'locations.jsonl'));
  const store = new TableLocationStore(table);
  expect((await store.listLocations(ORG_A)).map((l) => l.id)).toEqual(['berlin-mall', 'nyc-store']);
  expect((await store.listLocations(ORG_B)).map((l) => l.id)).toEqual(['berlin-mall']);
  table.close();
});

test('writes nothing while another process (npm start) holds the data folder, and says so', async () => {
  // Prepare: this process holds the table, as a running npm start would.
  const held = FileItemTable.open(join(dir, 'data', 'locations.jsonl'));
  try {
    // Act
    const { code, errors } = await run();
    // Assess
    expect(code).toBe(1);
    expect(errors).toEqual([
      `import failed: ${join(dir, 'data', 'locations.jsonl')} is in use by process ${process.pid} (another npm start or seed?); stop it first; nothing was written`,
    ]);
    expect(await new TableLocationStore(held).listLocations(ORG_A)).toEqual([]);
  } finally {
    held.close();
  }
});

test('imports the documented example file (docs/examples/locations.json) as the docs say', async () => {
  // Act: the command of docs/locations-and-occupancy.md, into a fresh data folder
  const example = join(__dirname, '../../../docs/examples/locations.json');
  const lines: string[] = [];
  const code = await importLocationsCli(
    ['node', 'import-locations', '--file', example, '--data-dir', join(dir, 'data')],
    { log: (l) => lines.push(l), error: (l) => lines.push(l) },
    {},
  );
  // Assess: one location with its two groups, the overnight one included
  expect([code, lines.at(-1)]).toEqual([0, '1 locations: 1 created, 0 updated, 0 unchanged']);
  const table = FileItemTable.open(join(dir, 'data', 'locations.jsonl'));
  const found = await new TableLocationStore(table).getLocationWithGroups(
    '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01',
    'hamburg-station',
  );
  table.close();
  expect(found?.location.name).toBe('Hamburg Central Station');
  expect(found?.sensorGroups.map((g) => [g.id, g.name, g.capacity, g.openingHours.friday])).toEqual([
    [1, 'Main hall', 800, [{ open: '05:00', close: '24:00' }]],
    [2, 'Night bar (open past midnight)', 60, [{ open: '20:00', close: '03:00' }]],
  ]);
});
