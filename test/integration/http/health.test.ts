import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { engineCheck } from '#shared/health/checks';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { Client } from '@opensearch-project/opensearch';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import { tableCheck } from '#commons/clients/dynamo';
import { createHealthHandler } from '../../../functions/health';
import { createTestTable, type TestTable } from '../locations/table';
import { invoke } from '../../../bin/dev/lambda-events';
import { testClient, uniquePrefix } from '../support/opensearch';

/**
 * GET /health through the real handler: the engine check runs its probe report on the suite's
 * OpenSearch node (and on DuckDB, as `npm start` does), the table check reads DynamoDB Local.
 */
let table: TestTable;
const client = testClient();
beforeAll(async () => {
  table = await createTestTable('health');
  process.env.TABLE_NAME = table.name;
});
afterAll(async () => {
  await table.drop();
  await client.close();
});

const health = (engine: ReportEngine, timeoutMs?: number) =>
  invoke(
    createHealthHandler({
      checks: { engine: engineCheck(async () => engine), table: tableCheck },
      ...(timeoutMs ? { timeoutMs } : {}),
    }),
    { method: 'GET', path: '/health', org: null },
  );

test('answers 200 ok when OpenSearch answers the probe (no index of the prefix yet) and the table a read', async () => {
  const response = await health(new OpenSearchEngine(client, { indexPrefix: uniquePrefix('health') }));
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['x-request-id']).toBe('test-request');
  expect(response.json()).toEqual({ status: 'ok', checks: { engine: 'ok', table: 'ok' } });
});

test('answers 200 ok on the embedded engine, DuckDB, as the local server runs it', async () => {
  const db = await openDuckDb(':memory:');
  try {
    expect((await health(new DuckDbEngine(db))).json()).toEqual({
      status: 'ok',
      checks: { engine: 'ok', table: 'ok' },
    });
  } finally {
    db.closeSync();
  }
});

test('answers 503 naming the engine when OpenSearch does not answer, without saying why, with Retry-After', async () => {
  // A closed port on the loopback: connection refused at once.
  const unreachable = new OpenSearchEngine(new Client({ node: 'http://127.0.0.1:9', maxRetries: 0 }));
  const response = await health(unreachable);
  expect([response.status, response.headers['retry-after'], response.headers['cache-control']]).toEqual([
    503,
    '5',
    'no-store',
  ]);
  expect(response.body).toBe('{"status":"fail","checks":{"engine":"fail","table":"ok"}}');
});

test('answers 503 naming the table when it does not exist, and the timeout of an engine that hangs', async () => {
  const hangs: ReportEngine = { maxBuckets: 65_535, run: () => new Promise(() => undefined) };
  const missing = new DynamoLocationStore(table.client, `${table.name}-missing`);
  const handler = createHealthHandler({
    checks: { engine: engineCheck(async () => hangs), table: () => missing.probe() },
    timeoutMs: 200,
  });
  const response = await invoke(handler, { method: 'GET', path: '/health', org: null });
  expect(response.status).toBe(503);
  expect(response.json()).toEqual({ status: 'fail', checks: { engine: 'timeout', table: 'fail' } });
  expect(response.body).not.toContain(table.name);
});

test('answers JSON to any Accept: a monitor never reads a 406 as an outage', async () => {
  const db = await openDuckDb(':memory:');
  try {
    const handler = createHealthHandler({
      checks: { engine: engineCheck(async () => new DuckDbEngine(db)), table: tableCheck },
    });
    const response = await invoke(handler, {
      method: 'GET',
      path: '/health',
      org: null,
      headers: { accept: 'text/html' },
    });
    expect([response.status, response.headers['content-type']]).toEqual([200, 'application/json']);
  } finally {
    db.closeSync();
  }
});
