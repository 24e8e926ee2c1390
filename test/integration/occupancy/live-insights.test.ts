import { applyImport, validateImportFile } from '#shared/locations/import';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { invoke } from '../../../bin/dev/lambda-events';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * GET /locations/{id}/insights/live through the real handler, on cache entries in DynamoDB Local.
 * "Now" is Sunday 2024-06-02 12:02:30Z (14:02:30 in Berlin): the Entrance hall and the Parking are
 * open (since 06:00 and 00:00 local), the Food court is closed on Sundays.
 */
let table: TestTable;
const NOW = Date.parse('2024-06-02T12:02:30Z');
const entry = (
  org: string,
  sensorGroupId: number,
  occupancy: number,
  openedAt: string,
  refreshedAt = '2024-06-02T12:00:00.000Z',
) => ({
  organizationId: org,
  locationId: 'berlin-mall',
  sensorGroupId,
  name: 'cached name',
  occupancy,
  openedAt,
  refreshedAt,
});

beforeAll(async () => {
  table = await createTestTable('live');
  await applyImport(table.store, validateImportFile(importFile), { now: new Date('2024-05-01T00:00:00Z') });
  await table.store.putOccupancy(entry(ORG_A, 1, 42, '2024-06-02T04:00:00.000Z'));
  await table.store.putOccupancy(entry(ORG_A, 2, 13, '2024-06-01T09:00:00.000Z')); // Food court: closed today
  await table.store.putOccupancy(entry(ORG_A, 3, 7, '2024-06-01T22:00:00.000Z'));
  await table.store.putOccupancy(entry(ORG_B, 1, 99, '2024-06-02T04:00:00.000Z'));
});
afterAll(() => table.drop());

const live = (org: string | null, locationId: string, query?: Record<string, string>, now = NOW) =>
  invoke(createLiveInsightsHandler({ store: () => table.store, now: () => now }), {
    method: 'GET',
    path: `/locations/${locationId}/insights/live`,
    pathParameters: { locationId },
    ...(query ? { query } : {}),
    org,
  });

test('answers the occupancy of each open sensor group in the spec shape, with max-age up to the next refresh', async () => {
  // Act
  const response = await live(ORG_A, 'berlin-mall', { filter: 'occupancy' });
  // Assess
  expect(response.status).toBe(200);
  expect(response.json()).toEqual({
    insights: {
      occupancy: [
        { sensorGroup: { id: 1, name: 'Entrance hall' }, occupancy: 42 },
        { sensorGroup: { id: 3, name: 'Parking' }, occupancy: 7 },
      ],
    },
  });
  // 12:02:30 → the 12:05 refresh has written by 12:06:00: 210 s.
  expect(response.headers['cache-control']).toBe('private, max-age=210');
});

test("shows another organization its own location with the same id, never this one's entries", async () => {
  expect((await live(ORG_B, 'berlin-mall', { filter: 'occupancy' })).json()).toEqual({
    insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Lobby' }, occupancy: 99 }] },
  });
});

test("is 404 for another organization's location and for an unknown one, alike", async () => {
  const foreign = await live(ORG_B, 'nyc-store', { filter: 'occupancy' });
  const unknown = await live(ORG_A, 'atlantis', { filter: 'occupancy' });
  expect(foreign.status).toBe(404);
  expect(foreign.headers['content-type']).toBe('application/problem+json');
  expect(foreign.json()).toEqual({
    type: '/problems#not-found',
    title: 'Not found',
    status: 404,
    detail: "There is no location 'nyc-store'.",
    requestId: 'test-request',
  });
  expect(unknown.status).toBe(404);
});

test('is 404, not a store error, for an id no location can have', async () => {
  const response = await live(ORG_A, 'x'.repeat(5000), { filter: 'occupancy' });
  expect(response.status).toBe(404);
  expect(response.json<{ detail: string }>().detail.length).toBeLessThan(200);
});

test('answers an empty array for a location whose entries are all older than three refresh periods', async () => {
  const response = await live(ORG_A, 'berlin-mall', { filter: 'occupancy' }, Date.parse('2024-06-02T12:15:00.001Z'));
  expect(response.json()).toEqual({ insights: { occupancy: [] } });
});

test('answers an empty array when the groups are closed', async () => {
  // 23:30 in Berlin: the hall is closed; the parking's entry belongs to the previous day's period.
  expect(
    (await live(ORG_A, 'berlin-mall', { filter: 'occupancy' }, Date.parse('2024-06-02T21:30:00Z'))).json(),
  ).toEqual({ insights: { occupancy: [] } });
});

test('tolerates whitespace and repeated kinds in filter', async () => {
  expect((await live(ORG_A, 'berlin-mall', { filter: ' occupancy, occupancy ' })).status).toBe(200);
});

test('is 400 problem+json naming the query parameter when filter is missing or names another kind', async () => {
  const missing = await live(ORG_A, 'berlin-mall');
  const other = await live(ORG_A, 'berlin-mall', { filter: 'occupancy,dwellTime' });
  expect(missing.status).toBe(400);
  expect(missing.headers['content-type']).toBe('application/problem+json');
  expect(missing.json()).toMatchObject({
    status: 400,
    errors: [{ path: '/query/filter', message: expect.stringContaining('is required') }],
  });
  expect(other.json()).toMatchObject({
    status: 400,
    errors: [{ path: '/query/filter', message: "unknown insight kind 'dwellTime'; allowed: occupancy, health" }],
  });
});

test('is 401 without an organization in the token, before looking at anything else', async () => {
  expect((await live(null, 'berlin-mall')).status).toBe(401);
});

test('answers 406 naming application/json for Accept: text/csv, before looking anything up', async () => {
  const store = { getLiveView: () => Promise.reject(new Error('must not be called')) };
  const response = await invoke(createLiveInsightsHandler({ store: () => store, now: () => NOW }), {
    method: 'GET',
    path: '/locations/berlin-mall/insights/live',
    pathParameters: { locationId: 'berlin-mall' },
    query: { filter: 'occupancy' },
    org: ORG_A,
    headers: { accept: 'text/csv' },
  });
  expect(response.status).toBe(406);
  expect(response.json()).toMatchObject({ status: 406, detail: 'Allowed values of Accept: application/json.' });
});
