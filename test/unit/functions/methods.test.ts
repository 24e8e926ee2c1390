import { createListLocationsHandler } from '../../../functions/list-locations';
import { createProblemsHandler } from '../../../functions/problems';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';

/**
 * Methods at the handlers, as API Gateway's `ANY` route of each path (functions/routes.ts,
 * GATEWAY_ROUTES) delivers them: another method 405 with Allow (RFC 9110 §15.5.6), HEAD as GET
 * without its body (§9.3.2), a path no route has 404.
 */
// Ten locations: over the 1 KiB from which answers are compressed.
const locations = Array.from({ length: 10 }, (_, i) => ({
  id: `mall-${i}`,
  organizationId: 'o',
  type: 'shopping-mall',
  timezone: 'Europe/Berlin',
  createdAt: '2024-03-01T09:30:00.000Z',
  updatedAt: '2024-03-01T09:30:00.000Z',
}));
const list = createListLocationsHandler({ store: () => ({ listLocations: async () => locations as never }) });
const report = createQueryReportHandler({
  engine: () => ({ maxBuckets: 65_535, run: () => Promise.reject(new Error('the engine must not be reached')) }),
});

describe('another method on a path that exists', () => {
  test('answers 405 problem+json with Allow naming GET, POST, HEAD and OPTIONS on /locations', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      const answer = await invoke(list, { method, path: '/locations' });
      expect([method, answer.status, answer.headers.allow, answer.headers['content-type']]).toEqual([
        method,
        405,
        'GET, POST, HEAD, OPTIONS',
        'application/problem+json',
      ]);
      expect(answer.json()).toMatchObject({
        type: '/problems#method-not-allowed',
        status: 405,
        allowed: ['GET', 'POST', 'HEAD', 'OPTIONS'],
        detail: `/locations does not answer ${method}; it answers GET, POST, HEAD, OPTIONS.`,
      });
    }
  });

  test('answers 405 with Allow: POST to GET and HEAD on /reports:query, and 404 to a path no route has', async () => {
    const [get, head, nowhere] = await Promise.all([
      invoke(report, { method: 'GET', path: '/reports:query' }),
      invoke(report, { method: 'HEAD', path: '/reports%3Aquery' }),
      invoke(report, { method: 'GET', path: '/anything' }),
    ]);
    expect([get.status, get.headers.allow, head.status, head.headers.allow, head.body]).toEqual([
      405,
      'POST, OPTIONS',
      405,
      'POST, OPTIONS',
      '',
    ]);
    expect(nowhere.status).toBe(404);
  });

  test('answers 405 to a method of another path that reached this function (POST /health on the report route)', async () => {
    const answer = await invoke(report, { method: 'POST', path: '/health', body: {} });
    expect([answer.status, answer.headers.allow]).toEqual([405, 'GET, HEAD, OPTIONS']);
  });
});

describe('OPTIONS', () => {
  test('answers a CORS preflight without a token 204 with Allow, the request id and nosniff, on every path, whichever function it reached', async () => {
    // Prepare: what a browser sends before a cross-origin report (no Authorization, never).
    const preflight = {
      origin: 'https://elsewhere.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    };
    // Act
    const [reports, locations, health] = await Promise.all([
      invoke(report, { method: 'OPTIONS', path: '/reports:query', org: null, headers: preflight, requestId: 'r-1' }),
      invoke(list, { method: 'OPTIONS', path: '/locations', org: null, headers: preflight }),
      invoke(report, { method: 'OPTIONS', path: '/health', org: null }),
    ]);
    // Assess
    expect([
      reports.status,
      reports.headers.allow,
      reports.body,
      reports.headers['x-request-id'],
      reports.headers['x-content-type-options'],
    ]).toEqual([204, 'POST, OPTIONS', '', 'r-1', 'nosniff']);
    // /locations lists (GET) and creates (POST, the locations family's function): Allow names the path's methods.
    expect([locations.status, locations.headers.allow, health.status, health.headers.allow]).toEqual([
      204,
      'GET, POST, HEAD, OPTIONS',
      204,
      'GET, HEAD, OPTIONS',
    ]);
  });

  test('answers OPTIONS on a path no route has 404', async () => {
    expect((await invoke(report, { method: 'OPTIONS', path: '/anything', org: null })).status).toBe(404);
  });
});

describe('HEAD', () => {
  test('answers HEAD /locations with the headers of GET, ETag and Content-Encoding included, and no body', async () => {
    const headers = { 'accept-encoding': 'gzip' };
    const [get, head] = [
      await invoke(list, { method: 'GET', path: '/locations', headers }),
      await invoke(list, { method: 'HEAD', path: '/locations', headers }),
    ];
    expect([get.status, get.body.length > 0, head.status, head.body, head.isBase64Encoded]).toEqual([
      200,
      true,
      200,
      '',
      false,
    ]);
    expect(head.headers).toEqual(get.headers);
    expect(head.headers['content-encoding']).toBe('gzip');
  });

  test('answers HEAD with If-None-Match naming the ETag 304, as GET', async () => {
    const { etag } = (await invoke(list, { method: 'GET', path: '/locations' })).headers;
    const head = await invoke(list, { method: 'HEAD', path: '/locations', headers: { 'if-none-match': etag! } });
    expect([head.status, head.body]).toEqual([304, '']);
  });

  test('answers HEAD /problems (public) with the page’s headers and no body', async () => {
    const head = await invoke(createProblemsHandler(), { method: 'HEAD', path: '/problems', org: null });
    expect([head.status, head.headers['content-type'], head.body]).toEqual([200, 'text/html; charset=utf-8', '']);
  });
});
