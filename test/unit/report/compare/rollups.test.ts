import type { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument } from '#shared/documents/documents';
import type { EngineResult, ReportEngine } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { rebuildRollups } from '#shared/stores/duckdb/rollups/rebuild';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { COLLECTIONS } from '#shared/documents/fields';
import { answerReport } from '#shared/report/query-report';
import { FIXTURE_DOCUMENTS, ORG_A } from '../../../fixtures/documents';
import { EXTRA_EVENTS } from '../../../fixtures/report-grammar';

/**
 * Each period of a `compare` report is an ordinary plan, so rollups (docs/rollups.md) answer either
 * one as they answer any report: here both periods of a week-over-week report of Berlin hours, over
 * the fixtures and the grammar fuzzer's events (every 17 minutes in March), read from rollups and
 * from the documents alone, give the same bytes.
 */
let db: DuckDBInstance;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  for (const collection of COLLECTIONS) {
    const docs =
      collection === 'movementEvents'
        ? [...FIXTURE_DOCUMENTS.movementEvents, ...EXTRA_EVENTS]
        : FIXTURE_DOCUMENTS[collection];
    await ingestDocuments(
      db,
      collection,
      docs.map((d, i) => parseDocument(collection, d as never, `/${i}`)),
    );
  }
  await rebuildRollups(db);
});

afterAll(() => db?.closeSync());

/** The engine, and the rows each of its runs was answered from. */
function watched(engine: ReportEngine): ReportEngine & { readonly sources: (string | undefined)[] } {
  const sources: (string | undefined)[] = [];
  return {
    sources,
    maxBuckets: engine.maxBuckets,
    run: async (...args) => {
      const result: EngineResult = await engine.run(...args);
      sources.push(result.source);
      return result;
    },
  };
}

test('rollups answer both periods of a comparison, with the bytes the documents give', async () => {
  // Prepare: the week of March 25 (spring DST Sunday) and the week before, by hour and label in Berlin
  const body = {
    source: 'movementEvents',
    filters: [
      { type: 'range', field: 'timestamp', from: '2024-03-25T00:00:00+01:00', to: '2024-04-01T00:00:00+02:00' },
    ],
    aggregations: [
      { type: 'dateHistogram', interval: '1h', timeZone: 'Europe/Berlin' },
      { type: 'terms', field: 'label' },
    ],
    compare: { offset: '1w' },
  };
  const [fromRollups, fromDocuments] = [
    watched(new DuckDbEngine(db, { rollups: true })),
    watched(new DuckDbEngine(db)),
  ];
  // Act
  const rolled = await answerReport(body, { organizationId: ORG_A }, fromRollups, 'text/csv');
  const raw = await answerReport(body, { organizationId: ORG_A }, fromDocuments, 'text/csv');
  // Assess: 167 hours paired with 168 (the earlier week's lone 02:00 on its own row), every one read from rollups
  expect(rolled.body).toBe(raw.body);
  expect(rolled.body.split('\r\n')).toHaveLength(1 + 168 + 1);
  expect(fromRollups.sources).toEqual(['rollup', 'rollup']);
  expect(rolled.source).toBe('rollup');
});
