import type { DuckDBInstance } from '@duckdb/node-api';
import type { API, Client } from '@opensearch-project/opensearch';
import { TooManyBucketsError } from '#shared/errors';
import { AnswerBucketsError } from '#shared/report/bucket-limit';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { answerReport } from '#shared/report/query-report';
import { ORG_A } from '../../fixtures/documents';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { fixtureEngines, loadFixtureEngines } from '../support/fixture-engines';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The bucket floor of a histogram left open on a side: its buckets span to the documents, so the
 * OpenSearch engine asks for their first and last timestamp before the report, and refuses (422)
 * what must exceed the bucket limit before the cluster collects anything. Without that, a fine
 * histogram with `filters` below it was collected in full on every shard and counted only at the
 * final reduce: a 503 at the deadline where DuckDB, which knows the extent, answered 422.
 * Over test/fixtures/documents.ts: org A's movement events run from 2024-03-10T06:30Z to
 * 2024-11-04T04:59Z; the test node allows TEST_MAX_BUCKETS (2,000) buckets.
 */
const client = testClient();
const prefix = uniquePrefix('floor');
let duckdb: DuckDBInstance;
let engines: { opensearch: ReportEngine; duckdb: ReportEngine };
/** The aggregation names of every search the OpenSearch engine sends. */
const sent: string[][] = [];

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix);
  const recording = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'search') return Reflect.get(target, property, receiver) as unknown;
      return (request: API.Search_Request, options?: object) => {
        sent.push(Object.keys(request.body?.aggs ?? {}));
        return target.search(request, options);
      };
    },
  });
  engines = {
    ...fixtureEngines(client, prefix, duckdb),
    opensearch: new OpenSearchEngine(recording as Client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS }),
  };
});

beforeEach(() => {
  sent.length = 0;
});

afterAll(async () => {
  await deleteIndices(client, prefix);
  duckdb?.closeSync();
  await client.close();
});

const scope = { organizationId: ORG_A };
const hourly = { type: 'dateHistogram', interval: '1h' };
const carsAndPeople = {
  type: 'filters',
  filters: {
    cars: { type: 'terms', field: 'label', values: ['car'] },
    people: { type: 'terms', field: 'label', values: ['person'] },
  },
};

describe.each(['opensearch', 'duckdb'] as const)('%s', (name) => {
  test('refuses an open hourly histogram over the documents’ eight months, with filters below it, before the report', async () => {
    // Prepare: March 10 to November 4 is 239 days, about 5,735 hours: over the limit however the filters fall
    const body = { source: 'movementEvents', aggregations: [hourly, carsAndPeople] };
    // Act
    const error = await answerReport(body, scope, engines[name], 'application/json').catch((e: unknown) => e);
    // Assess: 422, and on OpenSearch only the extent was searched
    expect(error).toBeInstanceOf(TooManyBucketsError);
    if (name === 'opensearch') expect(sent).toEqual([['extent']]);
  });

  test('answers the same histogram from November 1, spanning to the last document', async () => {
    const body = {
      source: 'movementEvents',
      filters: [{ type: 'range', field: 'timestamp', from: '2024-11-01T00:00:00Z' }],
      aggregations: [hourly, carsAndPeople],
    };
    const rows = JSON.parse((await answerReport(body, scope, engines[name], 'application/json')).body) as Record<
      string,
      unknown
    >[];
    // Nov 1 00:00 to Nov 4 04:00 is 3 × 24 + 5 = 77 hours; me-16 (05:30Z) and me-17 (06:30Z) are cars on
    // Nov 3, the last event a person at 04:59Z on Nov 4
    expect(rows).toHaveLength(77);
    expect(rows.filter((row) => Object.keys(row).length > 1)).toEqual([
      { timestamp: '2024-11-03T05:00:00.000Z', cars: 1 },
      { timestamp: '2024-11-03T06:00:00.000Z', cars: 1 },
      { timestamp: '2024-11-04T04:00:00.000Z', people: 1 },
    ]);
    if (name === 'opensearch') expect(sent).toEqual([['extent'], ['s0']]);
  });

  test('refuses a split report whose slices together would carry more filters buckets than 4 × the limit, before any slice runs', async () => {
    // Prepare: March to October 2024 is 245 days; 245 × 40 = 9,800 > 8,000, though each week's slice (7 × 41) fits
    const split = (n: number) => ({
      source: 'movementEvents',
      splitInterval: '1w',
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-11-01T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        {
          type: 'filters',
          filters: Object.fromEntries(
            Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'terms', field: 'label', values: ['car'] }]),
          ),
        },
      ],
    });
    // Act
    const error = await answerReport(split(40), scope, engines[name], 'application/json').catch((e: unknown) => e);
    // Assess: 422 naming the product, and no search sent; 30 buckets (7,350) are answered, one row a day
    expect(error).toBeInstanceOf(TooManyBucketsError);
    expect((error as TooManyBucketsError).detail).toBe(
      'Each of its 245 time buckets would carry the 40 buckets of its filters stages, 9800 in all: more than 8000 (4 × the bucket limit of 2000), ' +
        'however the report is split. Use a coarser dateHistogram interval, a shorter time range, or fewer filters buckets.',
    );
    if (name === 'opensearch') expect(sent).toEqual([]);
    const rows = JSON.parse(
      (await answerReport(split(30), scope, engines[name], 'application/json')).body,
    ) as unknown[];
    expect(rows).toHaveLength(245);
  });

  test.each([7, 30])(
    'refuses a 1 s histogram by label over %i days split by 2 h before any slice runs: its answer alone is too large',
    async (days) => {
      // Prepare: 7 days are 604,800 time buckets, over the 262,140 an answer may hold whatever the engine
      const body = {
        source: 'movementEvents',
        splitInterval: '2h',
        filters: [
          {
            type: 'range',
            field: 'timestamp',
            from: '2024-03-10T00:00:00Z',
            to: new Date(Date.UTC(2024, 2, 10 + days)).toISOString(),
          },
        ],
        aggregations: [
          { type: 'dateHistogram', interval: '1s' },
          { type: 'terms', field: 'label' },
        ],
      };
      // Act
      const error = await answerReport(body, scope, engines[name], 'application/json').catch((e: unknown) => e);
      // Assess
      expect(error).toBeInstanceOf(AnswerBucketsError);
      expect((error as AnswerBucketsError).toProblem()).toMatchObject({
        status: 422,
        maxAnswerBuckets: 262_140,
        errors: [{ path: '/aggregations/0/interval' }],
      });
      if (name === 'opensearch') expect(sent).toEqual([]);
    },
  );

  test('stops a split report once its slices hold more terms keys than the answer may, and answers it at the bound', async () => {
    // Prepare: March to October are 245 days; org A's labelled events fall on 8 of them, 14 (day, label)
    // keys: Mar 10 car, truck; Mar 29 car; Mar 30 car, person; Mar 31 car, person, truck; Apr 2 truck;
    // Apr 8 person; Oct 26 car; Oct 27 car, person, truck. The answer holds 245 + 14 = 259 buckets.
    const body = {
      source: 'movementEvents',
      splitInterval: '1w',
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-11-01T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'terms', field: 'label' },
      ],
    };
    // Act
    const refused = await answerReport(body, scope, engines[name], 'application/json', { maxAnswerBuckets: 258 }).catch(
      (e: unknown) => e,
    );
    const answered = await answerReport(body, scope, engines[name], 'application/json', { maxAnswerBuckets: 259 });
    // Assess
    expect(refused).toBeInstanceOf(AnswerBucketsError);
    expect((refused as AnswerBucketsError).toProblem()).toMatchObject({
      status: 422,
      maxAnswerBuckets: 258,
      errors: [{ path: '/aggregations/0/interval' }],
    });
    const rows = JSON.parse(answered.body) as Record<string, unknown>[];
    expect(rows).toHaveLength(245);
    expect(rows.reduce((keys, row) => keys + Object.keys(row).length - 1, 0)).toBe(14);
  });

  test('leaves a histogram alone to the engine’s own refusal, without asking for the extent', async () => {
    const error = await answerReport(
      { source: 'movementEvents', aggregations: [hourly] },
      scope,
      engines[name],
      'application/json',
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyBucketsError);
    if (name === 'opensearch') expect(sent).toEqual([['s0']]);
  });
});
