import { DynamoItemTable } from '#shared/locations/dynamo-store';
import { AlertStore } from '#shared/alerts/store';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import { createManageAlertRulesHandler } from '../../../functions/manage-alert-rules';
import { createManageLocationsHandler } from '../../../functions/manage-locations';
import { ORG_A, ORG_B } from '../../fixtures/locations';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * The alert rule routes through the real handler on DynamoDB Local: the interface point the issue
 * fixes (`POST /alert-rules {locationId, sensorGroupId, kind: "occupancy-above", percent: 80}` → 201),
 * the defaults (clear level 10 points below), If-Match (428 / 412 / 200), 204 then 404, roles (a
 * viewer reads, only an admin writes), location grants and organizations, and every bad body a 400
 * naming the field.
 */
let table: TestTable;
const now = Date.parse('2024-05-01T10:00:00Z');

beforeEach(async () => {
  table = await createTestTable('alert-rules');
  const locations = createManageLocationsHandler({
    store: () => table.store,
    refresh: () => async () => {},
    now: () => now,
  });
  for (const id of ['lisbon', 'porto']) {
    const created = await invoke(locations, {
      method: 'POST',
      path: '/locations',
      org: ORG_A,
      groups: ['admin'],
      body: {
        id,
        type: 'store',
        timezone: 'Europe/Lisbon',
        sensorGroups: [
          {
            id: 1,
            name: 'Floor',
            capacity: 40,
            lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'A' }],
            openingHours: { monday: [{ open: '08:00', close: '20:00' }] },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
  }
});
afterEach(() => table.drop());

const handler = () =>
  createManageAlertRulesHandler({
    rules: () => new AlertStore(new DynamoItemTable(table.client, table.name)),
    locations: () => table.store,
    now: () => now,
  });
const as = (who: 'admin' | 'viewer', request: HttpRequest, extra: Partial<HttpRequest> = {}) =>
  invoke(handler(), {
    org: ORG_A,
    sub: `${who}-1`,
    ...(who === 'admin' ? { groups: ['admin'] } : {}),
    ...request,
    ...extra,
  });
const post = (body: unknown): HttpRequest => ({ method: 'POST', path: '/alert-rules', body });
const one = (method: string, id: string, extra: Partial<HttpRequest> = {}): HttpRequest => ({
  method,
  path: `/alert-rules/${id}`,
  pathParameters: { ruleId: id },
  ...extra,
});
const THE_RULE = { locationId: 'lisbon', sensorGroupId: 1, kind: 'occupancy-above', percent: 80 };

test('POST {locationId, sensorGroupId, kind: "occupancy-above", percent: 80} → 201 with the clear level 70 filled in; GET reads it back', async () => {
  const created = await as('admin', post(THE_RULE));
  expect(created.status).toBe(201);
  const rule = created.json() as { id: string };
  expect(created.headers.etag).toBe('"1"');
  expect(created.headers.location).toBe(`/alert-rules/${rule.id}`);
  const expected = {
    id: rule.id,
    locationId: 'lisbon',
    kind: 'occupancy-above',
    sensorGroupId: 1,
    percent: 80,
    clearPercent: 70,
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
    createdBy: 'admin-1',
    updatedBy: 'admin-1',
  };
  expect(rule).toEqual(expected);
  const read = await as('viewer', one('GET', rule.id));
  expect([read.status, read.headers.etag, read.json()]).toEqual([200, '"1"', expected]);
  expect((await as('viewer', { method: 'GET', path: '/alert-rules' })).json()).toEqual({ alertRules: [expected] });
});

test('count with its default clear level (10 % below, at least one), parking-full at 100 % by default, sensor-silent of a camera', async () => {
  const bodies = [
    { locationId: 'lisbon', sensorGroupId: 1, kind: 'occupancy-above', count: 25 },
    { locationId: 'lisbon', sensorGroupId: 1, kind: 'occupancy-above', count: 5 },
    { locationId: 'lisbon', kind: 'parking-full', parkingLotId: 'P1' },
    { locationId: 'lisbon', kind: 'sensor-silent', cameraId: 'cam-1' },
  ];
  const answers = [];
  for (const b of bodies) answers.push((await as('admin', post(b))).json());
  expect(answers).toMatchObject([
    { count: 25, clearCount: 22 }, // 25 − ceil(2.5) = 22
    { count: 5, clearCount: 4 }, // 5 − max(1, ceil(0.5)) = 4
    { parkingLotId: 'P1', percent: 100, clearPercent: 90 },
    { cameraId: 'cam-1' },
  ]);
});

test('PUT needs If-Match: 428 without, 412 with another revision, 200 with the current one; DELETE 204, then 404', async () => {
  const { id } = (await as('admin', post(THE_RULE))).json() as { id: string };
  const changed = { ...THE_RULE, percent: 90, clearPercent: 50 };
  expect((await as('admin', one('PUT', id, { body: changed }))).status).toBe(428);
  expect((await as('admin', one('PUT', id, { body: changed, headers: { 'if-match': '"7"' } }))).status).toBe(412);
  const put = await as('admin', one('PUT', id, { body: changed, headers: { 'if-match': '"1"' } }));
  expect([put.status, put.headers.etag]).toEqual([200, '"2"']);
  expect(put.json()).toMatchObject({ percent: 90, clearPercent: 50, createdBy: 'admin-1' });
  expect((await as('admin', one('DELETE', id, { headers: { 'if-match': '"1"' } }))).status).toBe(412);
  expect((await as('admin', one('DELETE', id))).status).toBe(204);
  expect((await as('viewer', one('GET', id))).status).toBe(404);
});

test('a viewer reads but may not write (403); another organization and a token granted other locations do not see the rule', async () => {
  const { id } = (await as('admin', post(THE_RULE))).json() as { id: string };
  expect((await as('viewer', post(THE_RULE))).status).toBe(403);
  expect((await as('viewer', one('PUT', id, { body: THE_RULE, headers: { 'if-match': '"1"' } }))).status).toBe(403);
  expect((await as('viewer', one('DELETE', id))).status).toBe(403);
  expect((await as('viewer', one('GET', id), { org: ORG_B })).status).toBe(404);
  expect((await as('viewer', one('GET', id), { locations: ['porto'] })).status).toBe(404);
  expect((await as('viewer', { method: 'GET', path: '/alert-rules' }, { locations: ['porto'] })).json()).toEqual({
    alertRules: [],
  });
  // An admin of porto only may not make a rule of lisbon: the location is not there for them.
  const outside = await as('admin', post(THE_RULE), { locations: ['porto'] });
  expect(outside.status).toBe(400);
  expect(outside.json()).toMatchObject({ errors: [{ path: '/locationId', message: "there is no location 'lisbon'" }] });
});

test('every bad body is a 400 naming the field and what is allowed', async () => {
  const cases: [unknown, { path: string; message: string }[]][] = [
    [
      { locationId: 'lisbon', kind: 'occupancy-above', percent: 80 },
      [{ path: '/sensorGroupId', message: 'is required for kind occupancy-above' }],
    ],
    [
      { ...THE_RULE, count: 5 },
      [{ path: '/percent', message: 'exactly one of percent and count is required for kind occupancy-above' }],
    ],
    [{ ...THE_RULE, clearPercent: 85 }, [{ path: '/clearPercent', message: 'must be at most percent (80)' }]],
    [
      { ...THE_RULE, sensorGroupId: 9 },
      [{ path: '/sensorGroupId', message: "location 'lisbon' has no sensor group 9 (it has 1)" }],
    ],
    [{ ...THE_RULE, locationId: 'nowhere' }, [{ path: '/locationId', message: "there is no location 'nowhere'" }]],
    [
      { locationId: 'lisbon', kind: 'sensor-silent' },
      [{ path: '/cameraId', message: 'exactly one of cameraId and parkingLotId is required for kind sensor-silent' }],
    ],
    [
      { locationId: 'lisbon', kind: 'parking-full', parkingLotId: 'P1', sensorGroupId: 1 },
      [
        {
          path: '/sensorGroupId',
          message: 'is not allowed for kind parking-full (it takes parkingLotId, percent, clearPercent)',
        },
      ],
    ],
  ];
  for (const [body, errors] of cases) {
    const answer = await as('admin', post(body));
    expect([answer.status, answer.headers['content-type']]).toEqual([400, 'application/problem+json']);
    expect((answer.json() as { errors: unknown }).errors).toEqual(errors);
  }
  const kind = await as('admin', post({ ...THE_RULE, kind: 'too-hot' }));
  expect(kind.status).toBe(400);
  expect(JSON.stringify(kind.json())).toContain('/kind');
});
