import { SignJWT } from 'jose';
import { DEV_KEY_ALG, ephemeralDevKey, type DevKey } from '../../../bin/local/auth/dev-key';
import { DEV_AUDIENCE, DEV_ISSUER, mintDevToken } from '../../../bin/local/auth/tokens';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { OpenSearchEngine } from '#shared/report/engines/opensearch/execute';
import { openApiDocument } from '#shared/openapi/document';
import { provideReportEngine } from '#commons/clients/engine';
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
      { organizationId: ORG_A, locationId: 'L1', trackingCameraId: 'c1', label: 'car', timestamp: '2024-03-01T08:00:00Z', crossedPaths: [], polygons: [] },
      { organizationId: ORG_B, locationId: 'L9', trackingCameraId: 'c1', label: 'bus', timestamp: '2024-03-01T08:00:00Z', crossedPaths: [], polygons: [] },
    ],
  });
  provideReportEngine(new OpenSearchEngine(client, { indexPrefix: prefix }));
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
    headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? tokenA}` }), ...(init.headers as Record<string, string> | undefined) },
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
    const expired = await mintDevToken(key, { organizationId: ORG_A, claimName: 'custom:organizationId', now: new Date(Date.now() - 13 * 3600_000) });
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
    const future = await mintDevToken(key, { organizationId: ORG_A, claimName: 'custom:organizationId', now: new Date(Date.now() + 3600_000) });
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
      expect({ organization, status: response.status, type: response.headers.get('content-type') }).toEqual({ organization, status: 401, type: 'application/problem+json' });
    }
    expect((await call('/locations', { token: await tokenWith(ORG_A) })).status).toBe(200);
  });

  test('answers 400 problem+json naming the parameter to a path that is not percent-encoded UTF-8, before authentication', async () => {
    const response = await call('/locations/%E0/insights/live?filter=occupancy', { token: null });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 400, errors: [{ path: '/path/locationId', message: 'must be percent-encoded UTF-8 (RFC 3986)' }] });
  });

  test('reads a target starting with // as a path, not as a host: 404 problem+json', async () => {
    const response = await call('//x/locations');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ status: 404, detail: 'No route for GET //x/locations.' });
  });

  test('takes the path of an absolute-form target and refuses the other forms', () => {
    expect(targetUrl('http://localhost:3000/locations?x=1')?.pathname).toBe('/locations');
    expect(targetUrl('//x/locations')?.pathname).toBe('//x/locations');
    expect([targetUrl('*'), targetUrl('localhost:3000'), targetUrl('ftp://x/locations')]).toEqual([undefined, undefined, undefined]);
  });
});
