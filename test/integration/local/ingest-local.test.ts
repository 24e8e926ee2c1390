import { gzipSync } from 'node:zlib';
import { type LocalService, startLocalService } from '../../../bin/dev/local-service';
import { mintIngestToken } from './ingest-token';

/**
 * POST /ingest/{collection} on `npm start`: the local server writes into its own DuckDB (no second
 * writer), its report cache forgets what a write changes, tokens of the wrong kind are refused, and a
 * server killed in the middle of a batch keeps all of it or none.
 */
let service: LocalService;
let ingestToken: string;

beforeAll(async () => {
  service = await startLocalService();
  ingestToken = mintIngestToken(service.dataDir);
});
afterAll(() => service?.stop());

/** A label the seed never writes, so these tests count only their own documents. */
const LABEL = 'ingest-test';
const lines = (n: number, label = LABEL) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      locationId: 'berlin-mall',
      timestamp: new Date(Date.UTC(2020, 0, 1) + i * 1000).toISOString(),
      label,
      trackingCameraId: 'cam-1',
      crossedPaths: [{ id: 'entrance', end: i % 2 ? 'A' : 'B' }],
      polygons: [{ id: 'hall', value: i }],
    }),
  ).join('\n');

const post = (body: Buffer | string, token = ingestToken, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/ingest/movementEvents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', ...headers },
    body,
  });

/** Documents with `label` in January 2020, as the report API counts them (through the report cache). */
async function count(label = LABEL): Promise<number> {
  const response = await fetch(`${service.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      filters: [
        { type: 'range', field: 'timestamp', from: '2020-01-01T00:00:00Z', to: '2020-02-01T00:00:00Z' },
        { type: 'terms', field: 'label', values: [label] },
      ],
      aggregations: [{ type: 'terms', field: 'label' }],
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Record<string, number>)[label] ?? 0;
}

test('writes a gzip batch into the running server, and a report asked before sees it after (the cache forgets)', async () => {
  // Prepare: the report once, so that its answer (none) is cached
  expect(await count()).toBe(0);
  // Act
  const first = await post(gzipSync(lines(3)), ingestToken, { 'content-encoding': 'gzip' });
  const again = await post(lines(3));
  // Assess
  expect([first.status, await first.json()]).toEqual([200, { accepted: 3, duplicates: 0, rejected: [] }]);
  expect([again.status, await again.json()]).toEqual([200, { accepted: 0, duplicates: 3, rejected: [] }]);
  expect(await count()).toBe(3);
});

test('refuses a user token on the ingest route and an ingest token on the read routes (403)', async () => {
  expect((await post(lines(1), service.token)).status).toBe(403);
  const read = await fetch(`${service.url}/locations`, { headers: { authorization: `Bearer ${ingestToken}` } });
  expect(read.status).toBe(403);
});

test('keeps a whole batch or none of it when the server is killed (SIGKILL) while writing it, and the same batch again completes it', async () => {
  // Prepare: 10,000 documents of a label of their own
  const label = 'killed-batch';
  const body = lines(10_000, label);
  // Act: kill -9 while the request is being answered, then start again on the same data folder
  const pending = post(body).then(
    (r) => r.status,
    () => 'connection closed',
  );
  await new Promise((resolve) => setTimeout(resolve, 150));
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  // npm start's process is the server itself (node with tsx's loader).
  service.child.kill('SIGKILL');
  await exited;
  await pending;
  const restarted = await startLocalService({}, [], { dataDir: service.dataDir });
  const stop = service.stop.bind(service);
  service = { ...restarted, stop: async () => (await restarted.stop(), await stop()) };
  ingestToken = mintIngestToken(service.dataDir);
  const afterKill = await count(label);
  const resent = (await (await post(body)).json()) as { accepted: number; duplicates: number };
  // Assess: all or nothing, then exactly the batch
  expect([0, 10_000]).toContain(afterKill);
  expect(resent.accepted + resent.duplicates).toBe(10_000);
  expect(resent.duplicates).toBe(afterKill);
  expect(await count(label)).toBe(10_000);
});
