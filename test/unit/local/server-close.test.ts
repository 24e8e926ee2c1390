import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken } from '../../../bin/local/auth/tokens';
import { startLocalServer } from '../../../bin/local/server';
import { EngineUnavailableError } from '#shared/errors';
import { openApiDocument } from '#shared/openapi/document';
import type { ReportEngine, Store } from '#shared/stores/store';
import { provideStore } from '#commons/clients/store';

/**
 * Closing the local server (npm start's Ctrl-C or SIGTERM) lets an answer in progress be written:
 * the report its engine's close interrupted answers 503, and the client receives it rather than a
 * dropped connection (issue 20, 6b). The engine here answers its 503 a little after close() began,
 * as DuckDB's interrupt does, so a close() that dropped every connection at once fails every time.
 */
test('close() lets a running report answer its 503 before the connection goes', async () => {
  // Prepare: an engine that holds the report until it is "interrupted", then refuses it.
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let interrupt!: () => void;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const engine: ReportEngine = {
    maxBuckets: 65_535,
    run: async () => {
      started();
      await interrupted;
      throw new EngineUnavailableError('The local report database is closing; try again shortly.', 5);
    },
  };
  // Only the reports are asked for here.
  provideStore({ reports: engine } as Store);
  process.env.ORGANIZATION_CLAIM = 'custom:organizationId';
  const key = await ephemeralDevKey();
  const token = await mintDevToken(key, { organizationId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', claimName: 'custom:organizationId' });
  const server = await startLocalServer({ port: 0, devKey: key, openApi: openApiDocument() });
  const answer = fetch(`${server.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ aggregations: [{ type: 'terms', field: 'label' }] }),
  }).then(
    async (r) => ({ status: r.status, type: r.headers.get('content-type'), problem: ((await r.json()) as { type: string }).type }),
    (e: unknown) => ({ failed: String(e) }),
  );
  await running;
  // Act: close, and the engine's interrupt lands a moment later.
  const closed = server.close();
  setTimeout(interrupt, 100);
  // Assess
  expect(await answer).toEqual({ status: 503, type: 'application/problem+json', problem: '/problems#engine-unavailable' });
  await closed;
});

/**
 * What close() cannot wait for is still answered (issue 30, M5): a request unanswered when the grace
 * ends gets 503 with Retry-After and `Connection: close`, so that an ingest client retries its batch
 * rather than losing it with a dropped connection.
 */
test('close() answers 503 with Retry-After what is still unanswered when its grace ends', async () => {
  // Prepare: an engine that answers only once the test is over; a grace of 300 ms.
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let release!: (e: Error) => void;
  const released = new Promise<never>((_, reject) => (release = reject));
  provideStore({ reports: { maxBuckets: 65_535, run: () => (started(), released) } } as unknown as Store);
  process.env.ORGANIZATION_CLAIM = 'custom:organizationId';
  const key = await ephemeralDevKey();
  const token = await mintDevToken(key, { organizationId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', claimName: 'custom:organizationId' });
  const server = await startLocalServer({ port: 0, devKey: key, openApi: openApiDocument(), closeGraceMs: 300 });
  const answer = fetch(`${server.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ aggregations: [{ type: 'terms', field: 'label' }] }),
  }).then(
    async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), connection: r.headers.get('connection'), type: ((await r.json()) as { type: string }).type }),
    (e: unknown) => ({ failed: String(e) }),
  );
  await running;
  // Act
  await server.close();
  // Assess
  expect(await answer).toEqual({ status: 503, retryAfter: '5', connection: 'close', type: '/problems#engine-unavailable' });
  release(new Error('the test is over'));
});
