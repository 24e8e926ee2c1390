import { type IncomingHttpHeaders, request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { DEV_KEY_ALG, ephemeralDevKey, type DevKey } from '../../../bin/local/auth/dev-key';
import { DEV_AUDIENCE, DEV_ISSUER, mintDevToken } from '../../../bin/local/auth/tokens';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { openSearchStore } from '#shared/stores/opensearch/store';
import { openApiDocument } from '#shared/openapi/document';
import { provideStore } from '#commons/clients/store';
import { targetUrl } from '../../../bin/local/http-adapter';
import { startLocalServer, type LocalServer } from '../../../bin/local/server';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { createTestTable, type TestTable } from '../locations/table';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The local server plays API Gateway over real HTTP: routing from functions/routes.ts, the JWT
 * authorizer with the development key, the payload 2.0 event, and the real handlers and stores.
 */
const client = testClient();
const prefix = uniquePrefix('local');
let table: TestTable;
let key: DevKey;
let server: LocalServer;
let tokenA: string;

beforeAll(async () => {
  table = await createTestTable('local');
  process.env.TABLE_NAME = table.name;
  process.env.ORGANIZATION_CLAIM = 'custom:organizationId';
  await applyImport(table.store, validateImportFile(importFile), { now: new Date('2024-01-01T00:00:00Z') });
  await indexDocuments(client, prefix, {
    movementEvents: [
      {
        organizationId: ORG_A,
        locationId: 'L1',
        trackingCameraId: 'c1',
        label: 'car',
        timestamp: '2024-03-01T08:00:00Z',
        crossedPaths: [],
        polygons: [],
      },
      {
        organizationId: ORG_B,
        locationId: 'L9',
        trackingCameraId: 'c1',
        label: 'bus',
        timestamp: '2024-03-01T08:00:00Z',
        crossedPaths: [],
        polygons: [],
      },
    ],
  });
  provideStore(openSearchStore(client, { indexPrefix: prefix }));
  key = await ephemeralDevKey();
  tokenA = await mintDevToken(key, { organizationId: ORG_A, claimName: 'custom:organizationId' });
  server = await startLocalServer({ port: 0, devKey: key, openApi: openApiDocument() });
});
afterAll(async () => {
  await server.close();
  await table.drop();
  await deleteIndices(client, prefix);
});

const call = (path: string, init: RequestInit & { token?: string | null } = {}) =>
  fetch(server.url + path, {
    ...init,
    headers: {
      ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? tokenA}` }),
      ...(init.headers as Record<string, string> | undefined),
    },
  });

describe('the local server', () => {
  test('runs a report through the real handler for the token’s organization only', async () => {
    const response = await call('/reports:query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/csv' },
      body: JSON.stringify({ aggregations: [{ type: 'terms', field: 'label' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await response.text()).toBe('car\r\n1\r\n');
  });

  test('answers 401 problem+json without a token, with a bad one, and with an expired one', async () => {
    const expired = await mintDevToken(key, {
      organizationId: ORG_A,
      claimName: 'custom:organizationId',
      now: new Date(Date.now() - 13 * 3600_000),
    });
    for (const token of [null, 'not-a-jwt', expired]) {
      const response = await call('/locations', { token });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  test('routes path parameters and query strings to the handlers', async () => {
    const list = await call('/locations');
    expect(list.status).toBe(200);
    const ids = ((await list.json()) as { id: string; organizationId: string }[]).map((l) => [l.id, l.organizationId]);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every(([, org]) => org === ORG_A)).toBe(true);
    const [firstId] = ids[0] as [string, string];
    const live = await call(`/locations/${encodeURIComponent(firstId)}/insights/live?filter=occupancy`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ insights: { occupancy: expect.any(Array) } });
    expect((await call(`/locations/${encodeURIComponent(firstId)}/insights/live`)).status).toBe(400);
  });

  test('serves the occupancy history, JSON or CSV by Accept, with its query string', async () => {
    // berlin-mall's Parking is open all day and nothing crossed its ramp here: 0 at every bucket.
    const path =
      '/locations/berlin-mall/insights/history?filter=occupancy&from=2024-03-01T10:00:00Z&to=2024-03-01T11:00:00Z&interval=30m';
    const json = await call(path);
    expect(json.status).toBe(200);
    const body = (await json.json()) as {
      insights: { occupancy: { sensorGroup: { id: number }; buckets: unknown[] }[] };
    };
    expect(body.insights.occupancy.find((g) => g.sensorGroup.id === 3)?.buckets).toEqual([
      { timestamp: '2024-03-01T10:00:00.000Z', occupancy: 0, peak: 0 },
      { timestamp: '2024-03-01T10:30:00.000Z', occupancy: 0, peak: 0 },
    ]);
    const csv = await call(path, { headers: { accept: 'text/csv' } });
    expect([csv.status, csv.headers.get('content-type')]).toEqual([200, 'text/csv; charset=utf-8']);
    expect((await csv.text()).split('\r\n')[0]).toBe(
      'sensorGroupId,sensorGroupName,timestamp,localTime,occupancy,peak,capacity,utilization,peakUtilization',
    );
    expect((await call(path.replace('interval=30m', 'interval=2h'))).status).toBe(400);
  });

  test('answers 404 problem+json for a path no route has, and serves the OpenAPI document without a token', async () => {
    const missing = await call('/nowhere');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, detail: 'No route for GET /nowhere.' });
    const doc = await call('/openapi.json', { token: null });
    expect(doc.status).toBe(200);
    expect(await doc.json()).toMatchObject({ openapi: '3.1.0' });
  });

  test('refuses a token issued in the future, as the API Gateway JWT authorizer does (no clock skew)', async () => {
    // Prepare: iat an hour ahead; exp 12 hours after that, so only iat is wrong.
    const future = await mintDevToken(key, {
      organizationId: ORG_A,
      claimName: 'custom:organizationId',
      now: new Date(Date.now() + 3600_000),
    });
    // Act
    const response = await call('/locations', { token: future });
    // Assess
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ status: 401, detail: 'The token was issued in the future.' });
  });

  test('answers 401 to a validly signed token whose organization is null, a number, a boolean, an array, an object or not a UUID', async () => {
    const tokenWith = (organization: unknown) =>
      new SignJWT({ 'custom:organizationId': organization, token_use: 'id' })
        .setProtectedHeader({ alg: DEV_KEY_ALG, kid: key.kid, typ: 'JWT' })
        .setIssuer(DEV_ISSUER)
        .setAudience(DEV_AUDIENCE)
        .setSubject('local-developer')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key.privateKey);
    for (const organization of [null, 42, true, [ORG_A], { id: ORG_A }, 'org-a', '', `${ORG_A} `]) {
      const response = await call('/locations', { token: await tokenWith(organization) });
      expect({ organization, status: response.status, type: response.headers.get('content-type') }).toEqual({
        organization,
        status: 401,
        type: 'application/problem+json',
      });
    }
    expect((await call('/locations', { token: await tokenWith(ORG_A) })).status).toBe(200);
  });

  test('answers 400 problem+json naming the parameter to a path that is not percent-encoded UTF-8, before authentication', async () => {
    const response = await call('/locations/%E0/insights/live?filter=occupancy', { token: null });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      status: 400,
      errors: [{ path: '/path/locationId', message: 'must be percent-encoded UTF-8 (RFC 3986)' }],
    });
  });

  test('reads a target starting with // as a path, not as a host: 404 problem+json', async () => {
    const response = await call('//x/locations');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ status: 404, detail: 'No route for GET //x/locations.' });
  });

  test('answers 421 problem+json to a Host that is not its own (DNS rebinding), before reading the token or the explorer', async () => {
    // Prepare: a page on evil.example resolved to 127.0.0.1 sends its own name as Host.
    const port = new URL(server.url).port;
    // Act
    const answers = await Promise.all(
      ['evil.example', `evil.example:${port}`, 'localhost:1', `localhost.evil.example:${port}`].map((host) =>
        raw('/locations', { headers: { host } }),
      ),
    );
    // Assess
    for (const answer of answers) {
      expect([answer.status, answer.headers['content-type']]).toEqual([421, 'application/problem+json']);
      expect(JSON.parse(answer.bytes.toString())).toMatchObject({
        type: '/problems#misdirected-request',
        status: 421,
        allowed: [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`],
      });
    }
  });

  test('answers for localhost, 127.0.0.1 and [::1] with its port, in any case', async () => {
    const port = new URL(server.url).port;
    const answers = await Promise.all(
      [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`].map((host) =>
        raw('/locations', { headers: { host } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  });

  test('answers 405 with Allow to another method on a path that exists, after the token as API Gateway does, and 404 where no path is', async () => {
    const [del, getReport, unauthorized, nowhere] = await Promise.all([
      call('/locations', { method: 'DELETE' }),
      call('/reports:query'),
      call('/locations', { method: 'PUT', token: null }),
      call('/nowhere', { method: 'DELETE' }),
    ]);
    expect([del.status, del.headers.get('allow'), del.headers.get('content-type')]).toEqual([
      405,
      'GET, POST, HEAD, OPTIONS',
      'application/problem+json',
    ]);
    expect(await del.json()).toMatchObject({
      type: '/problems#method-not-allowed',
      allowed: ['GET', 'POST', 'HEAD', 'OPTIONS'],
    });
    expect([getReport.status, getReport.headers.get('allow')]).toEqual([405, 'POST, OPTIONS']);
    expect([unauthorized.status, nowhere.status]).toEqual([401, 404]);
  });

  test('answers HEAD on the GET endpoints with the headers of GET and no body', async () => {
    for (const path of ['/locations', '/health', '/problems', '/openapi.json']) {
      const [get, head] = [await raw(path), await raw(path, { method: 'HEAD' })];
      const same = (h: IncomingHttpHeaders) => [h['content-type'], h.etag, h['cache-control'], h.vary];
      expect({ path, status: head.status, bytes: head.bytes.length, headers: same(head.headers) }).toEqual({
        path,
        status: get.status,
        bytes: 0,
        headers: same(get.headers),
      });
    }
  });

  test('takes the path of an absolute-form target and refuses the other forms', () => {
    expect(targetUrl('http://localhost:3000/locations?x=1')?.pathname).toBe('/locations');
    expect(targetUrl('//x/locations')?.pathname).toBe('//x/locations');
    expect([targetUrl('*'), targetUrl('localhost:3000'), targetUrl('ftp://x/locations')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

/** A raw HTTP GET or POST: the bytes as sent, undecoded (fetch would decompress them itself). */
function raw(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      server.url + path,
      { method: init.method ?? 'GET', headers: { authorization: `Bearer ${tokenA}`, ...init.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('HTTP conventions through the local server', () => {
  /** Hourly over March: 744 buckets, org-a's one car at 2024-03-01 08:00. */
  const hourly = JSON.stringify({
    source: 'movementEvents',
    filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' }],
    aggregations: [{ type: 'dateHistogram', interval: '1h' }],
  });

  test('answers a report gzip-compressed to an HTTP client that accepts it, the same JSON once the test decodes it', async () => {
    const post = { method: 'POST', body: hourly };
    const plain = await raw('/reports:query', { ...post, headers: { 'content-type': 'application/json' } });
    const gzip = await raw('/reports:query', {
      ...post,
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
    });
    expect([gzip.status, gzip.headers['content-encoding'], gzip.headers.vary]).toEqual([
      200,
      'gzip',
      'Accept, Accept-Encoding',
    ]);
    expect([plain.headers['content-encoding'], plain.headers.vary]).toEqual([undefined, 'Accept, Accept-Encoding']);
    expect(gunzipSync(gzip.bytes).equals(plain.bytes)).toBe(true);
    const rows = JSON.parse(plain.bytes.toString('utf8')) as Record<string, unknown>[];
    expect([rows.length, rows[7], rows[8]]).toEqual([
      744,
      { timestamp: '2024-03-01T07:00:00.000Z' },
      { timestamp: '2024-03-01T08:00:00.000Z', count: 1 },
    ]);
    const br = await raw('/reports:query', {
      ...post,
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
  });

  test('names every answer with its own X-Request-Id, the handlers’ and the server’s own problems alike', async () => {
    const answers = await Promise.all([
      call('/locations'),
      call('/locations', { token: null }),
      call('/nowhere'),
      call('/openapi.json', { token: null }),
    ]);
    const ids = answers.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(4);
    const [, unauthorized, missing] = answers;
    expect(await unauthorized!.json()).toMatchObject({ status: 401, requestId: ids[1] });
    expect(await missing!.json()).toMatchObject({ status: 404, requestId: ids[2] });
  });

  test('answers GET /health without a token: the engine and the table answer', async () => {
    const response = await call('/health', { token: null });
    expect([response.status, response.headers.get('cache-control')]).toEqual([200, 'no-store']);
    expect(await response.json()).toEqual({ status: 'ok', checks: { engine: 'ok', table: 'ok' } });
  });

  test('answers 304 with no body to If-None-Match naming the ETag of GET /locations', async () => {
    const first = await raw('/locations');
    const again = await raw('/locations', { headers: { 'if-none-match': String(first.headers.etag) } });
    expect([again.status, again.bytes.length, again.headers.etag, again.headers['content-type']]).toEqual([
      304,
      0,
      first.headers.etag,
      undefined,
    ]);
  });
});
