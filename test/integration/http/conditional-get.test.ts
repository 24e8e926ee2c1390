import { gunzipSync } from 'node:zlib';
import { applyImport, validateImportFile } from '#shared/locations/import';
import type { Location } from '#shared/locations/model';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { ORG_A, importFile } from '../../fixtures/locations';
import { createTestTable, type TestTable } from '../locations/table';
import { invoke } from '../../../bin/dev/lambda-events';

/**
 * Conditional GET on the two GET endpoints, through the real handlers on DynamoDB Local: an ETag on
 * every 200, and 304 with no body when If-None-Match names it, so a dashboard polling every minute
 * moves no bytes while nothing changed. "Now" is Sunday 2024-06-02 12:02:30Z, as in
 * test/integration/occupancy/live-insights.test.ts.
 */
let table: TestTable;
const NOW = Date.parse('2024-06-02T12:02:30Z');
const entry = (sensorGroupId: number, occupancy: number, openedAt: string) => ({
  organizationId: ORG_A,
  locationId: 'berlin-mall',
  sensorGroupId,
  name: 'cached name',
  occupancy,
  openedAt,
  refreshedAt: '2024-06-02T12:00:00.000Z',
});

beforeAll(async () => {
  table = await createTestTable('etag');
  await applyImport(table.store, validateImportFile(importFile), { now: new Date('2024-05-01T00:00:00Z') });
  await table.store.putOccupancy(entry(1, 42, '2024-06-02T04:00:00.000Z'));
});
afterAll(() => table.drop());

const list = (headers: Record<string, string> = {}) =>
  invoke(createListLocationsHandler({ store: () => table.store }), {
    method: 'GET',
    path: '/locations',
    headers,
    org: ORG_A,
  });
const live = (headers: Record<string, string> = {}, now = NOW) =>
  invoke(createLiveInsightsHandler({ store: () => table.store, now: () => now }), {
    method: 'GET',
    path: '/locations/berlin-mall/insights/live',
    pathParameters: { locationId: 'berlin-mall' },
    query: { filter: 'occupancy' },
    headers,
    org: ORG_A,
  });

describe('GET /locations', () => {
  test('carries a weak ETag, the same while the locations are the same', async () => {
    const [a, b] = [await list(), await list()];
    expect(a.json<{ id: string }[]>().map((l) => l.id)).toEqual(['berlin-mall', 'nyc-store']);
    expect(a.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(b.headers.etag).toBe(a.headers.etag);
  });

  test('answers 304 with no body, the same ETag, Cache-Control and Vary, and no Content-Type, to If-None-Match naming it', async () => {
    const first = await list();
    const again = await list({ 'if-none-match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers).toEqual({
      etag: first.headers.etag,
      'cache-control': 'private, no-cache',
      vary: 'Accept-Encoding',
      'x-request-id': 'test-request',
      'x-content-type-options': 'nosniff',
    });
  });

  test('answers 304 to the tag in a list, to the strong form of the tag (weak comparison), and to *', async () => {
    const { etag } = (await list()).headers;
    for (const ifNoneMatch of [`W/"other", ${etag}`, etag!.slice(2), '*'])
      expect({ ifNoneMatch, status: (await list({ 'if-none-match': ifNoneMatch })).status }).toEqual({
        ifNoneMatch,
        status: 304,
      });
  });

  test('answers 200 with the body to another tag', async () => {
    expect((await list({ 'if-none-match': 'W/"someone-else"' })).status).toBe(200);
  });

  test('answers 304 to If-None-Match with Cache-Control: no-cache, as fetch sends it (a directive to caches, RFC 9111 §5.2.1.4)', async () => {
    const { etag } = (await list()).headers;
    const again = await list({ 'if-none-match': etag!, 'cache-control': 'no-cache', pragma: 'no-cache' });
    expect([again.status, again.body]).toEqual([304, '']);
  });
});

describe('GET /locations/{locationId}/insights/live', () => {
  test('answers 304 while the occupancy is the same, with the Cache-Control of now', async () => {
    const first = await live();
    expect(first.status).toBe(200);
    // 12:03:30: the same occupancy, a minute less to the next refresh (12:06:00).
    const later = await live({ 'if-none-match': first.headers.etag! }, NOW + 60_000);
    expect([later.status, later.body, later.headers.etag, later.headers['cache-control']]).toEqual([
      304,
      '',
      first.headers.etag,
      'private, max-age=150',
    ]);
  });

  test('answers 200 with a new ETag once the occupancy changed', async () => {
    const first = await live();
    await table.store.putOccupancy({
      ...entry(1, 43, '2024-06-02T04:00:00.000Z'),
      refreshedAt: '2024-06-02T12:01:00.000Z',
    });
    const changed = await live({ 'if-none-match': first.headers.etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(changed.json()).toEqual({
      insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Entrance hall' }, occupancy: 43 }] },
    });
  });
});

describe('a long answer', () => {
  test('is compressed, its ETag is that of the plain JSON, and its 304 is empty whatever the coding', async () => {
    // 60 locations of about 200 bytes each: over the 1 KiB threshold.
    const at = '2024-05-01T00:00:00.000Z';
    const many: Location[] = Array.from({ length: 60 }, (_, i) => ({
      id: `site-${String(i).padStart(2, '0')}`,
      name: `Site ${i}`,
      organizationId: ORG_A,
      type: 'store',
      timezone: 'UTC',
      createdBy: null,
      updatedBy: null,
      createdAt: at,
      updatedAt: at,
    }));
    const handler = createListLocationsHandler({ store: () => ({ listLocations: async () => many }) });
    const plain = await invoke(handler, { method: 'GET', path: '/locations' });
    const gzip = await invoke(handler, { method: 'GET', path: '/locations', headers: { 'accept-encoding': 'gzip' } });
    expect([gzip.status, gzip.headers['content-encoding'], gzip.headers.etag]).toEqual([
      200,
      'gzip',
      plain.headers.etag,
    ]);
    expect(gunzipSync(gzip.bytes).toString('utf8')).toBe(plain.body);
    const again = await invoke(handler, {
      method: 'GET',
      path: '/locations',
      headers: { 'accept-encoding': 'gzip', 'if-none-match': plain.headers.etag! },
    });
    expect([again.status, again.body, again.headers['content-encoding'], again.headers.vary]).toEqual([
      304,
      '',
      undefined,
      'Accept-Encoding',
    ]);
  });
});
