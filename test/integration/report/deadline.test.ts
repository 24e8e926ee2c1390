import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { DuckDBInstance } from '@duckdb/node-api';
import { ReportTimeoutError } from '#shared/errors';
import { Deadline } from '#shared/report/deadline';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { buildPlan } from '#shared/report/plan/build-plan';
import { answerReport } from '#shared/report/query-report';
import { createQueryReportHandler } from '../../../functions/query-report';
import { RESPONSE_MARGIN_MS } from '../../../functions/commons/http/answer-deadline';
import { HEAVY_AGGREGATIONS, HEAVY_ORG, heavyEvent, openHeavyDuckDb } from '../../fixtures/heavy-report';
import { httpEvent } from '../../../bin/dev/lambda-events';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';

/**
 * A report that reaches its deadline stops on the engine and answers 503 report-timeout with
 * Retry-After, never a 500: on the real OpenSearch node (its own `timeout`, and the aborted request),
 * on DuckDB (interrupted), through the Lambda handler, and for split reports.
 */
const client = testClient();
const prefix = uniquePrefix('deadline');
const scope = { organizationId: HEAVY_ORG };
const DOCUMENTS = 40_000;
let duckdb: DuckDBInstance;
let engines: Record<'OpenSearch' | 'DuckDB', ReportEngine>;

beforeAll(async () => {
  for (let i = 0; i < DOCUMENTS; i += 5_000) {
    await indexDocuments(client, prefix, {
      movementEvents: Array.from({ length: 5_000 }, (_, j) => heavyEvent(i + j)),
    });
  }
  // Far more memory than the heavy report takes before any deadline here (see openHeavyDuckDb): it
  // reaches the deadline, never the memory limit (that is too-expensive.test.ts).
  duckdb = await openHeavyDuckDb(1_000_000);
});
// A DuckDB engine per test, closed after it: close() waits until the queries the deadline stopped
// have let go of their memory, so that no test starts beside the last one's leftovers.
beforeEach(() => {
  engines = { OpenSearch: new OpenSearchEngine(client, { indexPrefix: prefix }), DuckDB: new DuckDbEngine(duckdb) };
});
afterEach(() => (engines.DuckDB as DuckDbEngine).close());
afterAll(async () => {
  await deleteIndices(client, prefix);
  duckdb?.closeSync();
  await client.close();
});

const heavy = { source: 'movementEvents', aggregations: HEAVY_AGGREGATIONS };
const day = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-02T00:00:00Z' };

/** The node's search tasks on this test's indices. */
async function searchTasks(): Promise<unknown[]> {
  const response = await client.tasks.list({ actions: '*search*', detailed: true });
  const nodes =
    (response.body as { nodes?: Record<string, { tasks: Record<string, { description?: string }> }> }).nodes ?? {};
  return Object.values(nodes)
    .flatMap((n) => Object.values(n.tasks))
    .filter((t) => t.description?.includes(prefix));
}

describe('OpenSearch at the deadline', () => {
  test('the search stops on the node and the report answers 503 report-timeout', async () => {
    // Act
    const error = await engines.OpenSearch.run(buildPlan(heavy), scope, { deadline: Deadline.after(150) }).catch(
      (e: unknown) => e,
    );
    // Assess: 503 with Retry-After; the node stopped (its timeout) or the request was aborted, and no
    // search of this report is left running on the node
    expect(error).toBeInstanceOf(ReportTimeoutError);
    expect(error).toMatchObject({ status: 503, headers: { 'Retry-After': '10' } });
    expect(String((error as Error).cause)).toMatch(/Time exceeded|search_phase_execution_exception|aborted/i);
    let left = await searchTasks();
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await searchTasks();
    }
    expect(left).toEqual([]);
  });

  test('the same report without a deadline is answered (it is slow, not broken)', async () => {
    const result = await engines.OpenSearch.run(buildPlan(heavy), scope);
    expect(result.root).toMatchObject({ kind: 'single', count: DOCUMENTS });
  });

  test('a node that does not answer: the request is aborted (its connection closed) at the deadline', async () => {
    // Prepare: a TCP server that accepts and never answers, as a hung node would
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    const hung = createServer((socket) => {
      const i = sockets.push(socket) - 1;
      closed[i] = false;
      // read and drop the request, so that the client's FIN is seen
      socket.resume().on('close', () => (closed[i] = true));
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const silent = new Client({
      node: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
      requestTimeout: 60_000,
    });
    // Act
    const error = await new OpenSearchEngine(silent, { indexPrefix: prefix })
      .run(buildPlan(heavy), scope, { deadline: Deadline.after(200) })
      .catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ReportTimeoutError);
    for (let i = 0; i < 50 && !closed.every(Boolean); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toEqual([true]);
    await silent.close();
    await new Promise((resolve) => hung.close(resolve));
  });
});

describe.each(['OpenSearch', 'DuckDB'] as const)('%s: a report that reaches the deadline', (name) => {
  test('is answered 503 problem+json with Retry-After by the Lambda handler, never 500', async () => {
    // Prepare: a function with 300 ms left for the report after the response margin
    const handler = createQueryReportHandler({ engine: () => engines[name] });
    const context = {
      awsRequestId: 'deadline',
      functionName: 'query-report',
      getRemainingTimeInMillis: () => RESPONSE_MARGIN_MS + 300,
    } as Context;
    // Act
    const response = (await handler(
      httpEvent({ body: heavy, org: HEAVY_ORG }),
      context,
    )) as APIGatewayProxyStructuredResultV2;
    // Assess
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Content-Type': 'application/problem+json', 'Retry-After': '10' });
    expect(JSON.parse(response.body as string)).toMatchObject({
      type: '/problems#report-timeout',
      status: 503,
      timeoutMs: 300,
    });
  });

  test.each(['auto', '6h'])('is 503, not 422 or 500, when split with splitInterval %s', async (splitInterval) => {
    const body = {
      source: 'movementEvents',
      filters: [day],
      aggregations: [{ type: 'dateHistogram', interval: '1d' }, ...HEAVY_AGGREGATIONS],
      splitInterval,
    };
    const error = await answerReport(body, scope, engines[name], 'application/json', {
      deadline: Deadline.after(300),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportTimeoutError);
  });
});
