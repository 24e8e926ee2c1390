import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { answerReport } from '#shared/report/query-report';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';

/**
 * Before the first document of a collection arrives no index exists and OpenSearch returns no
 * aggregations. The answer must still be what it is once an index exists with nothing matching,
 * and what DuckDB answers over an empty table.
 */
const client = testClient();
const noIndex = uniquePrefix('noindex');
const otherOrgOnly = uniquePrefix('otherorg');
const scope = { organizationId: 'org-a' };
let engines: Record<string, ReportEngine>;

beforeAll(async () => {
  await indexDocuments(client, otherOrgOnly, {
    movementEvents: [
      {
        organizationId: 'org-z',
        locationId: 'L',
        label: 'car',
        timestamp: '2024-03-02T10:00:00Z',
        crossedPaths: [],
        polygons: [{ id: 'p', value: 3 }],
      },
    ],
  });
  engines = {
    'OpenSearch without an index': new OpenSearchEngine(client, { indexPrefix: noIndex }),
    'OpenSearch with nothing matching': new OpenSearchEngine(client, { indexPrefix: otherOrgOnly }),
    'DuckDB over empty tables': new DuckDbEngine(await openDuckDb(':memory:')),
  };
});
afterAll(() => deleteIndices(client, otherOrgOnly));

const threeDays = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-04T00:00:00Z' };
const bodies = {
  'a bounded daily histogram': {
    source: 'movementEvents',
    filters: [threeDays],
    aggregations: [{ type: 'dateHistogram', interval: '1d' }],
  },
  'a bounded histogram with filters and stats': {
    filters: [threeDays],
    aggregations: [
      { type: 'dateHistogram', interval: '1d', timeZone: 'America/New_York' },
      { type: 'filters', filters: { cars: { type: 'terms', field: 'label', values: ['car'] } } },
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', sum: true, count: true },
    ],
  },
  'an object of filters buckets and terms': {
    aggregations: [
      {
        type: 'filters',
        filters: {
          a: { type: 'terms', field: 'label', values: ['car'] },
          b: { type: 'terms', field: 'label', values: ['bus'] },
        },
      },
      { type: 'terms', field: 'locationId' },
    ],
  },
  'stats alone': {
    aggregations: [
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', min: true, sum: true, count: true },
    ],
  },
};

describe('a report over no documents', () => {
  test.each(Object.entries(bodies))('answers %s the same on every engine, index or not', async (_name, body) => {
    const answers = await Promise.all(Object.values(engines).map((e) => answerReport(body, scope, e, 'text/csv')));
    const [first, ...rest] = answers.map((a) => a.body);
    for (const other of rest) expect(other).toBe(first);
  });

  test('spans the whole range with empty days, without an index', async () => {
    const answer = await answerReport(
      bodies['a bounded daily histogram'],
      scope,
      engines['OpenSearch without an index'] as ReportEngine,
      'application/json',
    );
    expect(JSON.parse(answer.body)).toEqual([
      { timestamp: '2024-03-01T00:00:00.000Z' },
      { timestamp: '2024-03-02T00:00:00.000Z' },
      { timestamp: '2024-03-03T00:00:00.000Z' },
    ]);
  });
});
