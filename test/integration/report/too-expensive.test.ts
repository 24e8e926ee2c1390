import { Client } from '@opensearch-project/opensearch';
import type { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';
import { startOpenSearch, type OpenSearchNode } from '../../../bin/dev/opensearch-node';
import { HEAVY_AGGREGATIONS, HEAVY_ORG, heavyEvent, openHeavyDuckDb } from '../../fixtures/heavy-report';
import { indexDocuments, uniquePrefix } from '../support/opensearch';

/**
 * A report that needs more memory than the engine gives it is the report's cost, not a bug: 503
 * report-too-expensive with Retry-After, through the Lambda handler, whole or split, on both engines,
 * provoked on purpose: an embedded DuckDB with a 16 MB memory limit (`Out of Memory Error`), and an
 * OpenSearch node whose request circuit breaker is set low (`circuit_breaking_exception`, HTTP 429).
 * The node is this file's own: a breaker is a node-wide setting, and on the shared test node it
 * would trip the other files' searches too. A cheap report is still answered beside it.
 */
const DOCUMENTS = 10_000;
const prefix = uniquePrefix('expensive');
let node: OpenSearchNode;
let client: Client;
let duckdb: DuckDBInstance;
let engines: Record<'OpenSearch' | 'DuckDB', ReportEngine>;

beforeAll(async () => {
  node = await startOpenSearch({ heap: '256m' });
  client = new Client({ node: node.url });
  await indexDocuments(client, prefix, { movementEvents: Array.from({ length: DOCUMENTS }, (_, i) => heavyEvent(i)) });
  // 64 KB: under what the heavy report's aggregations reserve, over a terms report's (tried on 2.19.3).
  await client.cluster.putSettings({ body: { transient: { 'indices.breaker.request.limit': '64kb' } } });
  // 16 MB: the 10,000 events take about 6 MB, a terms report a little more, the heavy report far more.
  duckdb = await openHeavyDuckDb(DOCUMENTS, { memoryLimit: '16MB' });
  engines = { OpenSearch: new OpenSearchEngine(client, { indexPrefix: prefix }), DuckDB: new DuckDbEngine(duckdb) };
}, 300_000);

afterAll(async () => {
  duckdb?.closeSync();
  await client?.close();
  await node?.stop();
});

const handlerOn = (name: keyof typeof engines) => createQueryReportHandler({ engine: () => engines[name] });
const day = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-02T00:00:00Z' };

describe.each(['OpenSearch', 'DuckDB'] as const)(
  '%s: a report that needs more memory than the engine gives it',
  (name) => {
    test.each([
      ['whole', { source: 'movementEvents', aggregations: HEAVY_AGGREGATIONS }],
      [
        'split',
        {
          source: 'movementEvents',
          filters: [day],
          aggregations: [{ type: 'dateHistogram', interval: '1h' }, ...HEAVY_AGGREGATIONS],
          splitInterval: '6h',
        },
      ],
    ])('%s, is answered 503 report-too-expensive with Retry-After, never 500', async (_, body) => {
      // Act
      const answer = await invoke(handlerOn(name), { body, org: HEAVY_ORG });
      // Assess
      expect(answer.status).toBe(503);
      expect(answer.headers).toMatchObject({ 'content-type': 'application/problem+json', 'retry-after': '10' });
      expect(answer.json()).toMatchObject({
        type: '/problems#report-too-expensive',
        title: 'Report too expensive',
        status: 503,
      });
    });

    test('leaves the engine answering a cheap report (3,334 cars, 3,333 people and trucks)', async () => {
      const answer = await invoke(handlerOn(name), {
        body: { source: 'movementEvents', aggregations: [{ type: 'terms', field: 'label' }] },
        org: HEAVY_ORG,
      });
      expect([answer.status, answer.json()]).toEqual([200, { car: 3334, person: 3333, truck: 3333 }]);
    });
  },
);
