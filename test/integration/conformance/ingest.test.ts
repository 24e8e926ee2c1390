/**
 * Writing documents: OpenSearch bulk indexing and the DuckDB appender keep the same documents for the
 * same input (ids replace within a monthly index), and OpenSearch refusals come back per document.
 */
import { parseDocument, type ReportDocument } from '#shared/report/documents';
import { DuckDbEngine, openDuckDb } from '#shared/report/engines/duckdb/execute';
import { ingestDocuments } from '#shared/report/engines/duckdb/storage/ingest';
import { OpenSearchEngine } from '#shared/report/engines/opensearch/execute';
import { ensureIndexTemplates } from '#shared/report/engines/opensearch/indices';
import { indexDocuments } from '#shared/report/engines/opensearch/ingest';
import { answerReport } from '#shared/report/query-report';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

const client = testClient();
const prefix = uniquePrefix('ingest');

beforeAll(() => ensureIndexTemplates(client, prefix, { replicas: 0 }));
afterAll(async () => {
  await deleteIndices(client, prefix);
  await client.close();
});

const event = (id: string, timestamp: string, label: string): ReportDocument<'movementEvents'> =>
  parseDocument('movementEvents', { id, organizationId: 'org', locationId: 'loc', timestamp, label, crossedPaths: [{ id: label, end: 'A' }] });

test('both engines replace a document written again with its id in the same month, and only there', async () => {
  // Prepare
  const db = await openDuckDb(':memory:');
  const batches = [
    [event('a', '2024-03-01T00:00:00Z', 'car'), event('a', '2024-04-01T00:00:00Z', 'car')],
    [event('a', '2024-03-15T00:00:00Z', 'bus'), event('b', '2024-03-16T00:00:00Z', 'bus')],
  ];
  // Act
  for (const batch of batches) {
    await indexDocuments(client, 'movementEvents', batch, { indexPrefix: prefix, refresh: true });
    await ingestDocuments(db, 'movementEvents', batch);
  }
  const body = { aggregations: [{ type: 'nested', path: 'crossedPaths' }, { type: 'terms', field: 'crossedPaths.id' }, { type: 'reverseNested' }, { type: 'terms', field: 'label' }] };
  const ask = async (engine: OpenSearchEngine | DuckDbEngine) => JSON.parse((await answerReport(body, { organizationId: 'org' }, engine, 'application/json')).body);
  // Assess: March's "a" is now a bus (its car crossing gone); April's "a" is another index's document.
  const expected = { 'bus bus': 2, 'car car': 1 };
  expect(await ask(new OpenSearchEngine(client, { indexPrefix: prefix }))).toEqual(expected);
  expect(await ask(new DuckDbEngine(db))).toEqual(expected);
  db.closeSync();
});

test('returns the documents OpenSearch refuses instead of throwing, and indexes the others', async () => {
  // Prepare: the second document bypassed validation and carries a field the strict mapping lacks
  const good = event('g', '2024-05-01T00:00:00Z', 'car');
  const bad = { ...event('x', '2024-05-02T00:00:00Z', 'car'), colour: 'red' } as ReportDocument<'movementEvents'>;
  // Act
  const result = await indexDocuments(client, 'movementEvents', [good, bad], { indexPrefix: prefix, refresh: true });
  // Assess
  expect(result.indexed).toBe(1);
  expect(result.failures).toEqual([{ index: 1, id: 'x', status: 400, type: 'strict_dynamic_mapping_exception', reason: expect.stringContaining('colour') }]);
});
