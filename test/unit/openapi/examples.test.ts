import { errors } from '@opensearch-project/opensearch';
import { openApiDocument } from '#shared/openapi/document';
import { EXAMPLE_REQUEST_ID } from '#shared/openapi/responses';
import type { ReportEngine } from '#shared/stores/store';
import { mapOpenSearchError } from '#shared/stores/opensearch/errors';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { createOccupancyHistoryHandler } from '../../../functions/occupancy-history';
import { createSitesOverviewHandler } from '../../../functions/sites-overview';
import { createQueryReportHandler } from '../../../functions/query-report';
import { createIngestHandler } from '../../../functions/ingest';
import { INGEST_SCOPE } from '#commons/http/identity';
import { REPLAYED_HEADER } from '#commons/idempotency/idempotency-key';
import { INGEST_EXAMPLE_BODY } from '#shared/openapi/ingest-operation';
import { FileItemTable } from '../../../bin/local/file-table';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';

/**
 * The OpenAPI document's problem examples are the service's real answers: each is asked of the real
 * handler (with the examples' request id) and must come back byte for byte. None of them reaches an
 * engine or a table, except the 500 and the 503, whose engines fail as a bug and a timed-out
 * OpenSearch would.
 */
type Json = Record<string, unknown>;
const doc = openApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { responses: Record<string, Json> };
};

/** The example `name` of `status` of the operation at `path`, following a $ref to a component response. */
function example(path: string, method: string, status: string, name: string, type = 'application/problem+json'): unknown {
  let response = doc.paths[path]![method]!.responses[status]!;
  if (typeof response.$ref === 'string') response = doc.components.responses[response.$ref.split('/').pop()!]!;
  const content = response.content as Record<string, { examples: Record<string, { value: unknown }> }>;
  return content[type]!.examples[name]!.value;
}

const unused: ReportEngine = { maxBuckets: 65_535, run: () => Promise.reject(new Error('the engine must not be reached')) };
const report = (engine: ReportEngine = unused) => createQueryReportHandler({ engine: () => engine });
const live = createLiveInsightsHandler({ store: () => ({ getLiveView: async () => undefined }) });
const list = createListLocationsHandler({ store: () => ({ listLocations: async () => [] }) });
const liveRequest = (filter: string): HttpRequest => ({ method: 'GET', path: '/locations/berlin-mall/insights/live', pathParameters: { locationId: 'berlin-mall' }, query: { filter } });
const history = createOccupancyHistoryHandler({ store: () => ({ getLocationWithGroups: async () => undefined }), engine: async () => unused });
const historyRequest = (query: Record<string, string>, headers: Record<string, string> = {}): HttpRequest => ({
  method: 'GET', path: '/locations/berlin-mall/insights/history', pathParameters: { locationId: 'berlin-mall' }, query: { filter: 'occupancy', from: '2024-03-31T03:00:00Z', to: '2024-03-31T06:00:00Z', ...query }, headers,
});
const HISTORY = '/locations/{locationId}/insights/history';
const terms = { aggregations: [{ type: 'terms', field: 'label' }] };

/** A search refused by the request circuit breaker, as a 2.19 node answers it (HTTP 429). */
const breakerTripped = () => {
  const cause = { type: 'circuit_breaking_exception', reason: '[request] Data too large, data for [<reused_arrays>] would be [65784/64.2kb], which is larger than the limit of [65536/64kb]', bytes_wanted: 65784, bytes_limit: 65536, durability: 'TRANSIENT' };
  const body = { error: { root_cause: [cause], type: 'search_phase_execution_exception', reason: 'all shards failed', phase: 'query', grouped: true, failed_shards: [{ shard: 0, index: 'movement-events-2024.03', reason: cause }] }, status: 429 };
  return new errors.ResponseError({ body, statusCode: 429, headers: {}, warnings: null, meta: {} as never });
};

const cases: [string, Parameters<typeof invoke>[0], HttpRequest, unknown][] = [
  ['queryReport 400 invalidInterval', report(), { body: { aggregations: [{ type: 'dateHistogram', interval: '15 minutes' }] } }, example('/reports:query', 'post', '400', 'invalidInterval')],
  ['queryReport 400 notJson', report(), { rawBody: '{"aggregations":' }, example('/reports:query', 'post', '400', 'notJson')],
  ['queryReport 401 noOrganization', report(), { body: terms, org: null }, example('/reports:query', 'post', '401', 'noOrganization')],
  ['queryReport 406', report(), { body: terms, headers: { accept: 'application/xml' } }, example('/reports:query', 'post', '406', 'notAcceptable')],
  ['queryReport 413', report(), { rawBody: JSON.stringify({ ...terms, pad: 'x'.repeat(65_536) }) }, example('/reports:query', 'post', '413', 'tooLarge')],
  ['queryReport 415', report(), { body: terms, headers: { 'content-type': 'text/plain' } }, example('/reports:query', 'post', '415', 'otherType')],
  ['queryReport 500', report({ maxBuckets: 65_535, run: async () => (undefined as unknown as { x: () => never }).x() }), { body: terms }, example('/reports:query', 'post', '500', 'bug')],
  ['queryReport 503', report({ maxBuckets: 65_535, run: () => Promise.reject(mapOpenSearchError(new errors.TimeoutError('Request timed out', {} as never))) }), { body: terms }, example('/reports:query', 'post', '503', 'engineUnavailable')],
  ['queryReport 503 reportTooExpensive', report({ maxBuckets: 65_535, run: () => Promise.reject(mapOpenSearchError(breakerTripped(), 'report')) }), { body: terms }, example('/reports:query', 'post', '503', 'reportTooExpensive')],
  ['listLocations 405', list, { method: 'DELETE', path: '/locations' }, example('/locations', 'get', '405', 'deleteLocations')],
  ['getLiveInsights 400', live, liveRequest('dwell'), example('/locations/{locationId}/insights/live', 'get', '400', 'unknownKind')],
  ['getLiveInsights 404', live, liveRequest('occupancy'), example('/locations/{locationId}/insights/live', 'get', '404', 'unknownLocation')],
  ['getOccupancyHistory 400', history, historyRequest({ interval: '7m' }), example(HISTORY, 'get', '400', 'invalidInterval')],
  ['getOccupancyHistory 404', history, historyRequest({}), example(HISTORY, 'get', '404', 'unknownLocation')],
  ['getOccupancyHistory 406', history, historyRequest({}, { accept: 'application/xml' }), example(HISTORY, 'get', '406', 'notAcceptable')],
  ['listLocations 406', list, { method: 'GET', path: '/locations', headers: { accept: 'text/csv' } }, example('/locations', 'get', '406', 'notAcceptable')],
  [
    'getSitesOverview 503',
    createSitesOverviewHandler({
      store: () => ({ listLocations: async () => [{ id: 'berlin-mall', timezone: 'Europe/Berlin' }] as never, getLiveView: async () => undefined }),
      engine: async () => ({ maxBuckets: 65_535, run: () => Promise.reject(mapOpenSearchError(new errors.TimeoutError('Request timed out', {} as never))) }),
    }),
    { method: 'GET', path: '/insights/overview' },
    example('/insights/overview', 'get', '503', 'engineUnavailable'),
  ],
];

// Ingest: a writer that writes everything, one location, and an embedded table for Idempotency-Keys.
const tableDir = mkdtempSync(join(tmpdir(), 'lrs-openapi-examples-'));
const keys = FileItemTable.open(join(tableDir, 'table.jsonl'));
afterAll(async () => {
  await keys.close();
  rmSync(tableDir, { recursive: true, force: true });
});
const ingest = createIngestHandler({
  writer: () => ({ write: async (_c, documents) => documents.map(() => ({ kind: 'written' as const })) }),
  store: () => ({ listLocations: async () => [{ id: 'berlin-mall' }] as never }),
  table: () => keys,
});
const ingestRequest = (request: HttpRequest = {}): HttpRequest => ({
  method: 'POST',
  path: '/ingest/movementEvents',
  pathParameters: { collection: 'movementEvents' },
  scopes: [INGEST_SCOPE],
  rawBody: INGEST_EXAMPLE_BODY,
  ...request,
  headers: { 'content-type': 'application/x-ndjson', ...request.headers },
});
const ingestExample = (status: string, name: string) => example('/ingest/{collection}', 'post', status, name);
cases.push(
  ['ingestDocuments 400 noBody', ingest, ingestRequest({ rawBody: '' }), ingestExample('400', 'noBody')],
  ['ingestDocuments 400 badKey', ingest, ingestRequest({ headers: { 'idempotency-key': 'a b' } }), ingestExample('400', 'badKey')],
  ['ingestDocuments 403', ingest, ingestRequest({ scopes: [] }), ingestExample('403', 'readingToken')],
  ['ingestDocuments 404', ingest, ingestRequest({ path: '/ingest/events', pathParameters: { collection: 'events' } }), ingestExample('404', 'unknownCollection')],
  ['ingestDocuments 413', ingest, ingestRequest({ rawBody: 'x\n'.repeat(10_001) }), ingestExample('413', 'tooManyLines')],
  ['ingestDocuments 415 otherType', ingest, ingestRequest({ headers: { 'content-type': 'application/json' } }), ingestExample('415', 'otherType')],
  ['ingestDocuments 415 otherCoding', ingest, ingestRequest({ headers: { 'content-encoding': 'br' } }), ingestExample('415', 'otherCoding')],
);

test('the 200 example of ingestDocuments is what the handler answers to the request example, and the same key with another body is the 422 example', async () => {
  const first = await invoke(ingest, { ...ingestRequest({ headers: { 'idempotency-key': 'k1' } }), requestId: EXAMPLE_REQUEST_ID });
  const replayed = await invoke(ingest, { ...ingestRequest({ headers: { 'idempotency-key': 'k1' } }), requestId: EXAMPLE_REQUEST_ID });
  const reused = await invoke(ingest, { ...ingestRequest({ headers: { 'idempotency-key': 'k1' }, rawBody: `${INGEST_EXAMPLE_BODY}\n` }), requestId: EXAMPLE_REQUEST_ID });
  expect(JSON.parse(first.body)).toEqual(example('/ingest/{collection}', 'post', '200', 'oneRejected', 'application/json'));
  expect([replayed.headers[REPLAYED_HEADER.toLowerCase()], replayed.body]).toEqual(['true', first.body]);
  expect((doc as unknown as { components: { headers: Record<string, unknown> } }).components.headers[REPLAYED_HEADER]).toBeDefined();
  expect(reused.body).toBe(JSON.stringify(ingestExample('422', 'keyReused')));
});

test.each(cases)('the example of %s is what the handler answers', async (_name, handler, request, expected) => {
  const response = await invoke(handler, { ...request, requestId: EXAMPLE_REQUEST_ID });
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.body).toBe(JSON.stringify(expected));
});
