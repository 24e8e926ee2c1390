import type { DuckDBInstance } from '@duckdb/node-api';
import { TooManyBucketsError } from '#shared/errors';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { COLLECTIONS } from '#shared/documents/fields';
import { answerReport } from '#shared/report/query-report';
import { buildPlan } from '#shared/report/plan/build-plan';
import { FIXTURE_DOCUMENTS, ORG_A } from '../../../fixtures/documents';

/** The embedded engine alone, over the shared fixtures; values worked out by hand. */
let db: DuckDBInstance;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  for (const c of COLLECTIONS)
    await ingestDocuments(db, c, FIXTURE_DOCUMENTS[c].map((d) => parseDocument(c, d)) as never);
});
afterAll(() => db.closeSync());

const scope = { organizationId: ORG_A };
const json = async (body: unknown, engine = new DuckDbEngine(db)) =>
  JSON.parse((await answerReport(body, scope, engine, 'application/json')).body);

test('counts the Berlin events per local day across the spring change', async () => {
  // Act
  const rows = await json({
    source: 'movementEvents',
    locationIds: ['loc-berlin'],
    filters: [
      { type: 'range', field: 'timestamp', from: '2024-03-30T00:00:00+01:00', to: '2024-04-01T00:00:00+02:00' },
    ],
    aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' }],
  });
  // Assess: Mar 30 local: me-02 (23:30); Mar 31 local (23 hours): me-03 04 05 06.
  expect(rows).toEqual([
    { timestamp: '2024-03-29T23:00:00.000Z', count: 1 },
    { timestamp: '2024-03-30T23:00:00.000Z', count: 4 },
  ]);
});

test('counts crossings per direction and the distinct events behind them', async () => {
  const items = await json({
    aggregations: [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  });
  const events = await json({
    aggregations: [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
      { type: 'reverseNested' },
    ],
  });
  // me-03 crossed two lines in direction A; me-12 one line in each direction.
  expect(items).toEqual({ A: 10, B: 7 });
  expect(events).toEqual({ A: 9, B: 7 });
});

test('marks the answer truncated when a terms aggregation had more keys than termsCap', async () => {
  // Prepare
  const engine = new DuckDbEngine(db, { limits: { termsCap: 1 } });
  // Act
  const result = await engine.run(
    buildPlan({ source: 'movementEvents', aggregations: [{ type: 'terms', field: 'label' }] }),
    scope,
  );
  // Assess
  expect(result).toEqual({ truncated: true, root: { kind: 'terms', buckets: [{ key: 'car', count: 8 }] } });
});

test('refuses a report with more buckets than maxBuckets, counting as OpenSearch does', async () => {
  // Prepare: 3 days, each with documents (me-01; me-02 03; me-04 to 07) × 2 filters buckets, + 2 for the
  // empty-bucket template: 3 + 6 + 2 = 11
  const body = {
    filters: [{ type: 'range', field: 'timestamp', from: '2024-03-29T00:00:00Z', to: '2024-04-01T00:00:00Z' }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      {
        type: 'filters',
        filters: {
          a: { type: 'terms', field: 'label', values: ['car'] },
          b: { type: 'terms', field: 'label', values: ['bus'] },
        },
      },
    ],
  };
  const plan = buildPlan(body);
  // Act / Assess
  await expect(new DuckDbEngine(db, { maxBuckets: 11 }).run(plan, scope)).resolves.toMatchObject({
    root: { kind: 'histogram' },
  });
  await expect(new DuckDbEngine(db, { maxBuckets: 10 }).run(plan, scope)).rejects.toMatchObject({
    status: 422,
    limit: 10,
  });
  await expect(new DuckDbEngine(db, { maxBuckets: 2 }).run(plan, scope)).rejects.toBeInstanceOf(TooManyBucketsError);
});

test('answers an empty series when no document matches and the range is open', async () => {
  const rows = await json({
    filters: [{ type: 'range', field: 'timestamp', from: '2030-01-01T00:00:00Z' }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
    ],
  });
  expect(rows).toEqual([]);
});
