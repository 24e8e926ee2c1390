import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import { createManageLocationsHandler } from '../../../functions/manage-locations';
import { ORG_A, ORG_B } from '../../fixtures/locations';
import { createTestTable, type TestTable } from './table';

/**
 * The administration API's location routes through the real handler on DynamoDB Local: the
 * interface points the issue fixes (201; If-Match 428 / 412 / 200 with updatedBy; 204 then 404; a
 * viewer's 403; name and capacity in GET), the refresh triggered at once, grants.
 */
let table: TestTable;
const refreshed: string[] = [];
let now = Date.parse('2024-05-01T10:00:00Z');

beforeEach(async () => {
  table = await createTestTable('manage');
  refreshed.length = 0;
});
afterEach(() => table.drop());

const handler = () =>
  createManageLocationsHandler({
    store: () => table.store,
    refresh: () => async (org, id) => void refreshed.push(`${org}/${id}`),
    now: () => now,
  });
const hours = { monday: [{ open: '08:00', close: '20:00' }] };
const body = (capacity: number) => ({
  id: 'lisbon',
  name: 'Lisbon store',
  type: 'store',
  timezone: 'Europe/Lisbon',
  sensorGroups: [
    {
      id: 1,
      name: 'Floor',
      capacity,
      lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'A' }],
      openingHours: hours,
    },
  ],
});
const as = (who: 'admin' | 'viewer', request: HttpRequest, extra: Partial<HttpRequest> = {}) =>
  invoke(handler(), {
    org: ORG_A,
    sub: `${who}-1`,
    ...(who === 'admin' ? { groups: ['admin'] } : {}),
    ...request,
    ...extra,
  });
const one = (method: string, id = 'lisbon', extra: Partial<HttpRequest> = {}): HttpRequest => ({
  method,
  path: `/locations/${id}`,
  pathParameters: { locationId: id },
  ...extra,
});

test('an admin creates a location (201, its ETag and Location), and GET answers its name and sensor groups with their capacity', async () => {
  // Act
  const created = await as('admin', { method: 'POST', path: '/locations', body: body(30) });
  const read = await as('viewer', one('GET'));
  // Assess
  expect([created.status, created.headers.etag, created.headers.location]).toEqual([201, '"1"', '/locations/lisbon']);
  expect(read.status).toBe(200);
  expect(read.headers.etag).toBe('"1"');
  expect(read.json()).toMatchObject({
    id: 'lisbon',
    name: 'Lisbon store',
    organizationId: ORG_A,
    createdBy: 'admin-1',
    updatedBy: 'admin-1',
    sensorGroups: [{ id: 1, capacity: 30 }],
  });
  expect(refreshed).toEqual([`${ORG_A}/lisbon`]);
});

test('a viewer may not create, change or delete: 403, before the body is read', async () => {
  await as('admin', { method: 'POST', path: '/locations', body: body(30) });
  const attempts = await Promise.all([
    as('viewer', { method: 'POST', path: '/locations', rawBody: 'not json' }),
    as('viewer', one('PUT', 'lisbon', { body: body(40), headers: { 'if-match': '"1"' } })),
    as('viewer', one('DELETE')),
  ]);
  expect(attempts.map((a) => [a.status, a.json<{ type: string }>().type])).toEqual(
    Array(3).fill([403, '/problems#forbidden']),
  );
  expect((await as('viewer', one('GET'))).json()).toMatchObject({ sensorGroups: [{ capacity: 30 }] });
});

test('PUT needs If-Match: 428 without it, 412 when stale, 200 with updatedBy and the next ETag', async () => {
  // Prepare
  await as('admin', { method: 'POST', path: '/locations', body: body(30) });
  now += 60_000;
  // Act
  const without = await as('admin', one('PUT', 'lisbon', { body: body(45) }));
  const stale = await as('admin', one('PUT', 'lisbon', { body: body(45), headers: { 'if-match': '"7"' } }));
  const weak = await as('admin', one('PUT', 'lisbon', { body: body(45), headers: { 'if-match': 'W/"1"' } }));
  const ok = await as('admin', one('PUT', 'lisbon', { body: body(45), headers: { 'if-match': '"1"' } }), {
    sub: 'admin-2',
  });
  // Assess
  expect([without.status, stale.status, weak.status, ok.status]).toEqual([428, 412, 412, 200]);
  expect(ok.headers.etag).toBe('"2"');
  expect(ok.json()).toMatchObject({
    updatedBy: 'admin-2',
    createdBy: 'admin-1',
    updatedAt: '2024-05-01T10:01:00.000Z',
    sensorGroups: [{ capacity: 45 }],
  });
  const changes = await as('viewer', {
    method: 'GET',
    path: '/locations/lisbon/changes',
    pathParameters: { locationId: 'lisbon' },
  });
  expect(changes.json<{ changes: unknown[] }>().changes[0]).toEqual({
    revision: 2,
    at: '2024-05-01T10:01:00.000Z',
    by: 'admin-2',
    action: 'updated',
    changes: [{ path: '/sensorGroups/1/capacity', before: 30, after: 45 }],
  });
});

test('answers the strong ETag with a 304 to If-None-Match, and never compresses the answer that carries it', async () => {
  // Ten groups: well over the 1 KiB from which answers are compressed.
  const groups = Array.from({ length: 10 }, (_, i) => ({
    ...body(30).sensorGroups[0]!,
    id: i + 1,
    lines: [{ trackingCameraId: `cam-${i}`, lineId: 'door', inDirection: 'A' }],
  }));
  await as('admin', { method: 'POST', path: '/locations', body: { ...body(30), sensorGroups: groups } });
  const again = await as(
    'viewer',
    one('GET', 'lisbon', { headers: { 'if-none-match': '"1"', 'accept-encoding': 'gzip' } }),
  );
  const long = await as('viewer', one('GET', 'lisbon', { headers: { 'accept-encoding': 'gzip' } }));
  expect(again.status).toBe(304);
  expect([long.status, long.headers['content-encoding'], long.isBase64Encoded, long.bytes.length > 1024]).toEqual([
    200,
    undefined,
    false,
    true,
  ]);
});

test('DELETE answers 204, then the location is 404 and its id refused to a creation until reused knowingly', async () => {
  await as('admin', { method: 'POST', path: '/locations', body: body(30) });
  const deleted = await as('admin', one('DELETE'));
  const gone = await as('admin', one('GET'));
  const again = await as('admin', { method: 'POST', path: '/locations', body: body(30) });
  const reused = await as('admin', {
    method: 'POST',
    path: '/locations',
    body: body(30),
    query: { reuseDeletedId: 'true' },
  });
  expect([deleted.status, deleted.body, gone.status, again.status, reused.status]).toEqual([204, '', 404, 409, 201]);
  expect(reused.headers.etag).toBe('"3"');
});

test('another organization, and a token limited to other locations, see no such location', async () => {
  await as('admin', { method: 'POST', path: '/locations', body: body(30) });
  expect((await as('admin', one('GET'), { org: ORG_B })).status).toBe(404);
  expect((await as('viewer', one('GET'), { locations: ['nyc-store'] })).status).toBe(404);
  expect(
    (
      await as('admin', one('PUT', 'lisbon', { body: body(40), headers: { 'if-match': '"1"' } }), {
        locations: ['nyc-store'],
      })
    ).status,
  ).toBe(404);
  // An admin limited to the location may change it, not create or delete one.
  expect(
    (
      await as('admin', one('PUT', 'lisbon', { body: body(40), headers: { 'if-match': '"1"' } }), {
        locations: ['lisbon'],
      })
    ).status,
  ).toBe(200);
  expect((await as('admin', one('DELETE'), { locations: ['lisbon'] })).status).toBe(403);
  expect(
    (
      await as(
        'admin',
        { method: 'POST', path: '/locations', body: { ...body(30), id: 'porto' } },
        { locations: ['lisbon'] },
      )
    ).status,
  ).toBe(403);
});

test('a body with errors is refused whole with every error at its field, as an import file would be', async () => {
  const bad = {
    ...body(0),
    sensorGroups: [
      ...body(0).sensorGroups,
      { ...body(3).sensorGroups[0]!, openingHours: { monday: [{ open: '08:00', close: '08:00' }] } },
    ],
  };
  const answer = await as('admin', { method: 'POST', path: '/locations', body: bad });
  expect(answer.status).toBe(400);
  expect(answer.json<{ errors: unknown[] }>().errors).toEqual([
    { path: '/sensorGroups/0/capacity', message: 'must be an integer from 1 to 1000000' },
  ]);
  const crossChecked = await as('admin', {
    method: 'POST',
    path: '/locations',
    body: { ...body(3), sensorGroups: bad.sensorGroups.map((g) => ({ ...g, capacity: 3 })) },
  });
  expect(crossChecked.json<{ errors: unknown[] }>().errors).toEqual([
    { path: '/sensorGroups/1/id', message: 'duplicate sensor group id 1 (also at /sensorGroups/0)' },
    {
      path: '/sensorGroups/1/openingHours/monday/0/close',
      message: 'must differ from open (00:00 to 24:00 is a whole day)',
    },
  ]);
  expect(await table.store.listLocations(ORG_A)).toEqual([]);
});
