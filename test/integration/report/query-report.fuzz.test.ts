import fc from 'fast-check';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';
import { movementEvents, parkingEvents } from './fixtures';

/**
 * The edge never answers 5xx to a client mistake: random bodies, random Accept and Content-Type
 * headers, and random but plausible report requests go through the real handler and engine. Every
 * answer must be 2xx or a 4xx problem+json with a status, a type and a detail.
 */
const client = testClient();
const prefix = uniquePrefix('fuzz');
const handler = createQueryReportHandler({ engine: () => new OpenSearchEngine(client, { indexPrefix: prefix }) });

beforeAll(() => indexDocuments(client, prefix, { movementEvents, parkingEvents }));
afterAll(() => deleteIndices(client, prefix));

const FIELDS = [
  'label',
  'trackingCameraId',
  'locationId',
  'timestamp',
  'crossedPaths.id',
  'crossedPaths.end',
  'polygons.id',
  'polygons.value',
  'duration',
  'parkingLotId',
  'spotId',
  'nope',
];
const field = fc.constantFrom(...FIELDS);
const iso = fc
  .date({ min: new Date('2024-02-25T00:00:00Z'), max: new Date('2024-03-10T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const filter = fc.oneof(
  fc.record({
    type: fc.constant('terms'),
    field,
    values: fc.array(fc.constantFrom('car', 'person', 'north', 'A', 'P1', ''), { minLength: 0, maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant('range'),
    field,
    from: fc.option(fc.oneof(iso, fc.integer()), { nil: undefined }),
    to: fc.option(fc.oneof(iso, fc.integer()), { nil: undefined }),
  }),
);
const aggregation = fc.oneof(
  fc.record({
    type: fc.constant('terms'),
    field,
    keyJoiner: fc.option(fc.constantFrom('-', '', ' | '), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('stats'), field, sum: fc.boolean(), count: fc.boolean(), avg: fc.boolean() }),
  fc.record({
    type: fc.constant('dateHistogram'),
    interval: fc.constantFrom('1h', '1d', '7d', '1w', '1M', '90m', '0d', 'x'),
    timeZone: fc.option(fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Nowhere'), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('nested'), path: fc.constantFrom('crossedPaths', 'polygons', 'zones') }),
  fc.record({ type: fc.constant('reverseNested') }),
  fc.record({ type: fc.constant('filter'), filter }),
  fc.record({
    type: fc.constant('filters'),
    filters: fc.dictionary(fc.constantFrom('a', 'b', 'c', '=x', '__proto__', 'constructor'), filter, { maxKeys: 3 }),
  }),
);
/** Mostly valid movement-event pipelines (so the engine is really exercised), with a few mistakes. */
const validPipeline = fc.oneof(
  fc
    .tuple(fc.constantFrom('1h', '1d', '7d', '1w', '90m'), fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'))
    .map(([interval, timeZone]) => [
      { type: 'dateHistogram', interval, timeZone },
      { type: 'terms', field: 'label' },
    ]),
  fc
    .constantFrom('crossedPaths.id', 'crossedPaths.end', 'crossedPaths.start')
    .map((f) => [
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: f },
      { type: 'reverseNested' },
      { type: 'terms', field: 'locationId' },
    ]),
  fc.record({ min: fc.boolean(), max: fc.boolean(), sum: fc.boolean(), count: fc.boolean() }).map((stats) => [
    { type: 'nested', path: 'polygons' },
    { type: 'terms', field: 'polygons.id' },
    { type: 'stats', field: 'polygons.value', ...stats },
  ]),
  fc.array(aggregation, { minLength: 1, maxLength: 4 }),
);
const validFilter = fc.oneof(
  fc.record({
    type: fc.constant('terms'),
    field: fc.constantFrom('label', 'locationId'),
    values: fc.array(fc.constantFrom('car', 'person', 'L1'), { minLength: 1, maxLength: 2 }),
  }),
  fc.tuple(iso, iso).map(([a, b]) => ({
    type: 'range',
    field: 'timestamp',
    ...(a < b ? { from: a, to: b } : { from: b, to: '2024-03-11T00:00:00Z' }),
  })),
);
/** Optional parts appear now and then, so that most requests are valid and reach the engine. */
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
const plausible = fc
  .record({
    source: fc.constantFrom(
      'movementEvents',
      'movementEvents',
      'movementEvents',
      'movementEvents',
      'parkingEvents',
      'other',
    ),
    filters: fc.oneof(
      { arbitrary: fc.array(validFilter, { maxLength: 2 }), weight: 4 },
      { arbitrary: fc.array(filter, { maxLength: 2 }), weight: 1 },
    ),
    nestedFilters: sometimes(
      fc.array(
        fc.record({
          path: fc.constantFrom('crossedPaths', 'polygons'),
          filters: fc.array(filter, { minLength: 1, maxLength: 2 }),
        }),
        { maxLength: 1 },
      ),
    ),
    aggregations: validPipeline,
    splitInterval: sometimes(fc.constantFrom('1d', '1M', 'q', '3x')),
    locationIds: sometimes(fc.array(fc.constantFrom('L1', 'L2', ''), { minLength: 1, maxLength: 2 })),
  })
  .map((body) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));

function assertAnswer(status: number, headers: Record<string, string>, body: string): void {
  expect(status).toBeLessThan(500);
  if (status >= 400) {
    expect(headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(body)).toMatchObject({ status, type: expect.any(String), detail: expect.any(String) });
  }
}

describe('POST /reports:query under random input', () => {
  test('never answers 5xx to plausible but random report requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        plausible,
        fc.constantFrom('application/json', 'text/csv', '*/*', 'text/*'),
        async (body, accept) => {
          const { status, headers, body: text } = await invoke(handler, { body, headers: { accept } });
          assertAnswer(status, headers, text);
        },
      ),
      { numRuns: 400 },
    );
  });

  test('never answers 5xx to arbitrary JSON, raw text or headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.string(),
          fc.constant(''),
        ),
        fc.constantFrom(
          'application/json',
          'APPLICATION/JSON',
          'application/json; charset=utf-8',
          'application/json; charset=latin1',
          'text/plain',
          'application/merge-patch+json',
          '',
          'x;;',
          undefined,
        ),
        fc.constantFrom(
          'application/json',
          'application/xml',
          'text/csv;q=0.5, application/json',
          '',
          'garbage/',
          'text/csv; charset=utf-8',
          'application/json; charset=UTF-8',
          'text/csv; header=absent',
        ),
        async (rawBody, contentType, accept) => {
          const { status, headers, body } = await invoke(handler, {
            rawBody,
            headers: { 'content-type': contentType, accept },
          });
          assertAnswer(status, headers, body);
        },
      ),
      { numRuns: 400 },
    );
  });

  test('reads application/json in any letter case, and answers every Accept that names an answer type with parameters it has', async () => {
    // Media types and parameter names are case-insensitive (RFC 9110 8.3.1, 5.6.6), and so is charset's value.
    const withParameters = (type: string, parameters: readonly string[]) =>
      fc
        .tuple(fc.subarray([...parameters]), fc.constantFrom(';', '; ', ' ; '))
        .map(([chosen, separator]) => [type, ...chosen].join(separator));
    const contentType = fc.mixedCase(withParameters('application/json', ['charset=utf-8']));
    const accept = fc.oneof(
      fc
        .mixedCase(withParameters('text/csv', ['charset=utf-8', 'header=present']))
        .map((range) => ({ range, type: 'text/csv; charset=utf-8', body: 'car,person,truck\r\n3,1,1\r\n' })),
      fc
        .mixedCase(withParameters('application/json', ['charset=utf-8']))
        .map((range) => ({ range, type: 'application/json', body: '{"car":3,"person":1,"truck":1}' })),
    );
    await fc.assert(
      fc.asyncProperty(contentType, accept, async (declared, { range, type, body }) => {
        // Organization org-a: cars e1, e3, e5; person e2; truck e4 (./fixtures.ts).
        const response = await invoke(handler, {
          body: { aggregations: [{ type: 'terms', field: 'label' }] },
          headers: { 'content-type': declared, accept: range },
        });
        expect({ status: response.status, type: response.headers['content-type'], body: response.body }).toEqual({
          status: 200,
          type,
          body,
        });
      }),
      { numRuns: 100 },
    );
  });
});
