import { applyImport, validateImportFile } from '#shared/locations/import';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { invoke } from '../../../bin/dev/lambda-events';
import { createTestTable, type TestTable } from './table';

/** GET /locations through the real handler on DynamoDB Local. */
let table: TestTable;
const IMPORTED_AT = new Date('2024-05-01T08:00:00Z');

beforeAll(async () => {
  table = await createTestTable('list');
  await applyImport(table.store, validateImportFile(importFile), { now: IMPORTED_AT });
});
afterAll(() => table.drop());

const list = (org: string | null) =>
  invoke(createListLocationsHandler({ store: () => table.store }), { method: 'GET', path: '/locations', org });

test("lists only the caller's organization's locations, ordered by id, in the spec's shape", async () => {
  // Act
  const response = await list(ORG_A);
  // Assess
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  const common = {
    organizationId: ORG_A,
    createdBy: null,
    updatedBy: null,
    createdAt: '2024-05-01T08:00:00.000Z',
    updatedAt: '2024-05-01T08:00:00.000Z',
  };
  expect(response.json()).toEqual([
    { id: 'berlin-mall', name: 'berlin-mall', type: 'shopping-mall', timezone: 'Europe/Berlin', ...common },
    { id: 'nyc-store', name: 'nyc-store', type: 'store', timezone: 'America/New_York', ...common },
  ]);
});

test('answers every location with the spec fields in the spec order, and its name after the id', async () => {
  const [first] = (await list(ORG_A)).json<Record<string, unknown>[]>();
  expect(Object.keys(first ?? {})).toEqual([
    'id',
    'name',
    'organizationId',
    'type',
    'timezone',
    'createdBy',
    'updatedBy',
    'createdAt',
    'updatedAt',
  ]);
});

test("never shows one organization another's location, even one with the same id", async () => {
  const response = await list(ORG_B);
  expect(response.json()).toEqual([
    expect.objectContaining({ id: 'berlin-mall', organizationId: ORG_B, type: 'office' }),
  ]);
});

test('answers a token limited to some locations those only, and a token limited to none nothing', async () => {
  const handler = createListLocationsHandler({ store: () => table.store });
  const scoped = await invoke(handler, {
    method: 'GET',
    path: '/locations',
    org: ORG_A,
    locations: ['nyc-store', 'elsewhere'],
  });
  expect(scoped.json<{ id: string }[]>().map((l) => l.id)).toEqual(['nyc-store']);
  expect((await invoke(handler, { method: 'GET', path: '/locations', org: ORG_A, locations: [] })).json()).toEqual([]);
});

test('answers an organization without locations with an empty array', async () => {
  expect((await list('c0000000-0000-4000-8000-00000000000c')).json()).toEqual([]);
});

test('answers 401 problem+json when the token carries no organization', async () => {
  const response = await list(null);
  expect(response.status).toBe(401);
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
});

test('answers 406 naming application/json for an Accept it cannot serve, and JSON for */* or application/*', async () => {
  const handler = createListLocationsHandler({ store: () => table.store });
  const refused = await invoke(handler, {
    method: 'GET',
    path: '/locations',
    org: ORG_A,
    headers: { accept: 'text/csv' },
  });
  expect(refused.status).toBe(406);
  expect(refused.headers['content-type']).toBe('application/problem+json');
  expect(refused.json()).toMatchObject({ status: 406, detail: 'Allowed values of Accept: application/json.' });
  for (const accept of ['*/*', 'application/*', 'text/csv;q=0.5, application/json']) {
    expect((await invoke(handler, { method: 'GET', path: '/locations', org: ORG_A, headers: { accept } })).status).toBe(
      200,
    );
  }
});
