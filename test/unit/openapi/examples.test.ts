import { errors } from '@opensearch-project/opensearch';
import { openApiDocument } from '#shared/openapi/document';
import { EXAMPLE_REQUEST_ID } from '#shared/openapi/responses';
import type { ReportEngine } from '#shared/report/engines/engine';
import { mapOpenSearchError } from '#shared/report/engines/opensearch/errors';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { createQueryReportHandler } from '../../../functions/query-report';
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
const report = (engine: ReportEngine = unused) => createQueryReportHandler(() => engine);
const live = createLiveInsightsHandler({ store: () => ({ getLiveView: async () => undefined }) });
const list = createListLocationsHandler({ store: () => ({ listLocations: async () => [] }) });
const liveRequest = (filter: string): HttpRequest => ({ method: 'GET', path: '/locations/berlin-mall/insights/live', pathParameters: { locationId: 'berlin-mall' }, query: { filter } });
const terms = { aggregations: [{ type: 'terms', field: 'label' }] };

const cases: [string, ReturnType<typeof report>, HttpRequest, unknown][] = [
  ['queryReport 400 invalidInterval', report(), { body: { aggregations: [{ type: 'dateHistogram', interval: '15 minutes' }] } }, example('/reports:query', 'post', '400', 'invalidInterval')],
  ['queryReport 400 notJson', report(), { rawBody: '{"aggregations":' }, example('/reports:query', 'post', '400', 'notJson')],
  ['queryReport 401 noOrganization', report(), { body: terms, org: null }, example('/reports:query', 'post', '401', 'noOrganization')],
  ['queryReport 406', report(), { body: terms, headers: { accept: 'application/xml' } }, example('/reports:query', 'post', '406', 'notAcceptable')],
  ['queryReport 413', report(), { rawBody: JSON.stringify({ ...terms, pad: 'x'.repeat(65_536) }) }, example('/reports:query', 'post', '413', 'tooLarge')],
  ['queryReport 415', report(), { body: terms, headers: { 'content-type': 'text/plain' } }, example('/reports:query', 'post', '415', 'otherType')],
  ['queryReport 500', report({ maxBuckets: 65_535, run: async () => (undefined as unknown as { x: () => never }).x() }), { body: terms }, example('/reports:query', 'post', '500', 'bug')],
  ['queryReport 503', report({ maxBuckets: 65_535, run: () => Promise.reject(mapOpenSearchError(new errors.TimeoutError('Request timed out', {} as never))) }), { body: terms }, example('/reports:query', 'post', '503', 'engineUnavailable')],
  ['listLocations 405', list, { method: 'DELETE', path: '/locations' }, example('/locations', 'get', '405', 'deleteLocations')],
  ['getLiveInsights 400', live, liveRequest('dwell'), example('/locations/{locationId}/insights/live', 'get', '400', 'unknownKind')],
  ['getLiveInsights 404', live, liveRequest('occupancy'), example('/locations/{locationId}/insights/live', 'get', '404', 'unknownLocation')],
  ['listLocations 406', list, { method: 'GET', path: '/locations', headers: { accept: 'text/csv' } }, example('/locations', 'get', '406', 'notAcceptable')],
];

test.each(cases)('the example of %s is what the handler answers', async (_name, handler, request, expected) => {
  const response = await invoke(handler, { ...request, requestId: EXAMPLE_REQUEST_ID });
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.body).toBe(JSON.stringify(expected));
});
