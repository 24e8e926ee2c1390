/**
 * Writing documents: both engines write each document exactly once (the same document again is a
 * duplicate, its id with other content a conflict, in any month), keep the same documents for the
 * same input, and OpenSearch refusals come back per document.
 */
import { documentIdentity } from '#shared/documents/identity';
import { parseDocument, type ReportDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { writeDocuments as writeDuckDb } from '#shared/stores/duckdb/write';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import {
  indexDocuments,
  MAX_HITS_PER_SEARCH,
  writeDocuments as writeOpenSearch,
} from '#shared/stores/opensearch/write';
import { answerReport } from '#shared/report/query-report';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

const client = testClient();
const prefix = uniquePrefix('ingest');

beforeAll(() => ensureIndexTemplates(client, prefix, { replicas: 0 }));
afterAll(async () => {
  await deleteIndices(client, prefix);
  await client.close();
});

const event = (
  id: string | undefined,
  timestamp: string,
  label: string,
  org = 'org',
): ReportDocument<'movementEvents'> =>
  parseDocument('movementEvents', {
    ...(id ? { id } : {}),
    organizationId: org,
    locationId: 'loc',
    timestamp,
    label,
    crossedPaths: [{ id: label, end: 'A' }],
  });

const toWrite = (document: ReportDocument<'movementEvents'>) => ({
  document,
  identity: documentIdentity('movementEvents', document),
});

test('both engines write a document once: again it is a duplicate, its id with other content (in any month) a conflict', async () => {
  // Prepare
  const db = await openDuckDb(':memory:');
  const batches = [
    // a car "a" in March, a bus without id, the same "a" for another organization
    [
      event('a', '2024-03-01T00:00:00Z', 'car'),
      event(undefined, '2024-03-02T00:00:00Z', 'bus'),
      event('a', '2024-03-01T00:00:00Z', 'car', 'org2'),
    ],
    // all three again (the bus's instant with another offset), and a new "b"
    [
      event('a', '2024-03-01T00:00:00Z', 'car'),
      event(undefined, '2024-03-02T01:00:00+01:00', 'bus'),
      event('a', '2024-03-01T00:00:00Z', 'car', 'org2'),
      event('b', '2024-03-03T00:00:00Z', 'bus'),
    ],
    // "a" as a truck in the same month, "b" as a car in April
    [event('a', '2024-03-20T00:00:00Z', 'truck')],
    [event('b', '2024-04-01T00:00:00Z', 'car')],
  ];
  // Act
  const outcomes: string[][][] = [];
  for (const batch of batches) {
    const opensearch = await writeOpenSearch(client, 'movementEvents', batch.map(toWrite), {
      indexPrefix: prefix,
      refresh: true,
    });
    const duckdb = await writeDuckDb(db, 'movementEvents', batch.map(toWrite));
    outcomes.push([opensearch.map((o) => o.kind), duckdb.map((o) => o.kind)]);
  }
  const body = {
    aggregations: [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'reverseNested' },
      { type: 'terms', field: 'label' },
    ],
  };
  const ask = async (engine: OpenSearchEngine | DuckDbEngine, org: string) =>
    JSON.parse((await answerReport(body, { organizationId: org }, engine, 'application/json')).body);
  // Assess
  const expected = [
    ['written', 'written', 'written'],
    ['duplicate', 'duplicate', 'duplicate', 'written'],
    ['conflict'],
    ['conflict'],
  ];
  expect(outcomes).toEqual(expected.map((kinds) => [kinds, kinds]));
  // org: car "a", the bus, bus "b"; org2: its own car "a"
  for (const engine of [new OpenSearchEngine(client, { indexPrefix: prefix }), new DuckDbEngine(db)]) {
    expect(await ask(engine, 'org')).toEqual({ 'bus bus': 2, 'car car': 1 });
    expect(await ask(engine, 'org2')).toEqual({ 'car car': 1 });
  }
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
  expect(result.failures).toEqual([
    { index: 1, id: 'x', reason: expect.stringMatching(/^strict_dynamic_mapping_exception: .*colour/) },
  ]);
});

test('OpenSearch writes a batch of more ids than one search may return (10,000), once; again, all duplicates', async () => {
  // 10,001 events with ids, one a minute from March 1: the look-up of stored ids is two searches.
  const start = Date.parse('2024-03-01T00:00:00Z');
  const batch = Array.from({ length: MAX_HITS_PER_SEARCH + 1 }, (_, i) =>
    toWrite(event(`big-${i}`, new Date(start + i * 60_000).toISOString(), 'car', 'org-big')),
  );
  const kinds = (outcomes: readonly { kind: string }[]) =>
    outcomes.reduce<Record<string, number>>((c, o) => {
      c[o.kind] = (c[o.kind] ?? 0) + 1;
      return c;
    }, {});
  expect(
    kinds(await writeOpenSearch(client, 'movementEvents', batch, { indexPrefix: prefix, rollups: false })),
  ).toEqual({
    written: 10_001,
  });
  expect(
    kinds(
      await writeOpenSearch(client, 'movementEvents', batch, { indexPrefix: prefix, rollups: false, refresh: true }),
    ),
  ).toEqual({ duplicate: 10_001 });
}, 120_000);
