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
import { ADMIN_ORG, LOCATION_EXAMPLE_INPUT } from '#shared/openapi/admin-operations';
import { createLocation, deleteLocation, replaceLocation } from '#shared/locations/admin';
import { TableLocationStore } from '#shared/locations/table-store';
import { createManageLocationsHandler } from '../../../functions/manage-locations';
import { createManageIngestClientsHandler } from '../../../functions/manage-ingest-clients';
import { createManageWebhookEndpointsHandler } from '../../../functions/manage-webhook-endpoints';
import { createEndpoint } from '#shared/webhooks/endpoints';
import { addDelivery, newDelivery } from '#shared/webhooks/deliveries';
import { NO_QUEUE } from '#shared/webhooks/sink';
import { WEBHOOK_EXAMPLE_ID } from '#shared/openapi/webhook-operations';

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
function example(
  path: string,
  method: string,
  status: string,
  name: string,
  type = 'application/problem+json',
): unknown {
  let response = doc.paths[path]![method]!.responses[status]!;
  if (typeof response.$ref === 'string') response = doc.components.responses[response.$ref.split('/').pop()!]!;
  const content = response.content as Record<string, { examples: Record<string, { value: unknown }> }>;
  return content[type]!.examples[name]!.value;
}

const unused: ReportEngine = {
  maxBuckets: 65_535,
  run: () => Promise.reject(new Error('the engine must not be reached')),
};
const report = (engine: ReportEngine = unused) => createQueryReportHandler({ engine: () => engine });
const live = createLiveInsightsHandler({ store: () => ({ getLiveView: async () => undefined }) });
const list = createListLocationsHandler({ store: () => ({ listLocations: async () => [] }) });
const liveRequest = (filter: string): HttpRequest => ({
  method: 'GET',
  path: '/locations/berlin-mall/insights/live',
  pathParameters: { locationId: 'berlin-mall' },
  query: { filter },
});
const history = createOccupancyHistoryHandler({
  store: () => ({ getLocationWithGroups: async () => undefined }),
  engine: async () => unused,
});
const historyRequest = (query: Record<string, string>, headers: Record<string, string> = {}): HttpRequest => ({
  method: 'GET',
  path: '/locations/berlin-mall/insights/history',
  pathParameters: { locationId: 'berlin-mall' },
  query: { filter: 'occupancy', from: '2024-03-31T03:00:00Z', to: '2024-03-31T06:00:00Z', ...query },
  headers,
});
const HISTORY = '/locations/{locationId}/insights/history';
const terms = { aggregations: [{ type: 'terms', field: 'label' }] };

/** A search refused by the request circuit breaker, as a 2.19 node answers it (HTTP 429). */
const breakerTripped = () => {
  const cause = {
    type: 'circuit_breaking_exception',
    reason:
      '[request] Data too large, data for [<reused_arrays>] would be [65784/64.2kb], which is larger than the limit of [65536/64kb]',
    bytes_wanted: 65784,
    bytes_limit: 65536,
    durability: 'TRANSIENT',
  };
  const body = {
    error: {
      root_cause: [cause],
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      phase: 'query',
      grouped: true,
      failed_shards: [{ shard: 0, index: 'movement-events-2024.03', reason: cause }],
    },
    status: 429,
  };
  return new errors.ResponseError({ body, statusCode: 429, headers: {}, warnings: null, meta: {} as never });
};

const cases: [string, Parameters<typeof invoke>[0], HttpRequest, unknown][] = [
  [
    'queryReport 400 invalidInterval',
    report(),
    { body: { aggregations: [{ type: 'dateHistogram', interval: '15 minutes' }] } },
    example('/reports:query', 'post', '400', 'invalidInterval'),
  ],
  [
    'queryReport 400 notJson',
    report(),
    { rawBody: '{"aggregations":' },
    example('/reports:query', 'post', '400', 'notJson'),
  ],
  [
    'queryReport 401 noOrganization',
    report(),
    { body: terms, org: null },
    example('/reports:query', 'post', '401', 'noOrganization'),
  ],
  [
    'queryReport 406',
    report(),
    { body: terms, headers: { accept: 'application/xml' } },
    example('/reports:query', 'post', '406', 'notAcceptable'),
  ],
  [
    'queryReport 413',
    report(),
    { rawBody: JSON.stringify({ ...terms, pad: 'x'.repeat(65_536) }) },
    example('/reports:query', 'post', '413', 'tooLarge'),
  ],
  [
    'queryReport 415',
    report(),
    { body: terms, headers: { 'content-type': 'text/plain' } },
    example('/reports:query', 'post', '415', 'otherType'),
  ],
  [
    'queryReport 500',
    report({ maxBuckets: 65_535, run: async () => (undefined as unknown as { x: () => never }).x() }),
    { body: terms },
    example('/reports:query', 'post', '500', 'bug'),
  ],
  [
    'queryReport 503',
    report({
      maxBuckets: 65_535,
      run: () => Promise.reject(mapOpenSearchError(new errors.TimeoutError('Request timed out', {} as never))),
    }),
    { body: terms },
    example('/reports:query', 'post', '503', 'engineUnavailable'),
  ],
  [
    'queryReport 503 reportTooExpensive',
    report({ maxBuckets: 65_535, run: () => Promise.reject(mapOpenSearchError(breakerTripped(), 'report')) }),
    { body: terms },
    example('/reports:query', 'post', '503', 'reportTooExpensive'),
  ],
  [
    'listLocations 405',
    list,
    { method: 'DELETE', path: '/locations' },
    example('/locations', 'get', '405', 'deleteLocations'),
  ],
  [
    'getLiveInsights 400',
    live,
    liveRequest('dwell'),
    example('/locations/{locationId}/insights/live', 'get', '400', 'unknownKind'),
  ],
  [
    'getLiveInsights 404',
    live,
    liveRequest('occupancy'),
    example('/locations/{locationId}/insights/live', 'get', '404', 'unknownLocation'),
  ],
  [
    'getOccupancyHistory 400',
    history,
    historyRequest({ interval: '7m' }),
    example(HISTORY, 'get', '400', 'invalidInterval'),
  ],
  ['getOccupancyHistory 404', history, historyRequest({}), example(HISTORY, 'get', '404', 'unknownLocation')],
  [
    'getOccupancyHistory 406',
    history,
    historyRequest({}, { accept: 'application/xml' }),
    example(HISTORY, 'get', '406', 'notAcceptable'),
  ],
  [
    'listLocations 406',
    list,
    { method: 'GET', path: '/locations', headers: { accept: 'text/csv' } },
    example('/locations', 'get', '406', 'notAcceptable'),
  ],
  [
    'getSitesOverview 503',
    createSitesOverviewHandler({
      store: () => ({
        listLocations: async () => [{ id: 'berlin-mall', timezone: 'Europe/Berlin' }] as never,
        getLiveView: async () => undefined,
      }),
      engine: async () => ({
        maxBuckets: 65_535,
        run: () => Promise.reject(mapOpenSearchError(new errors.TimeoutError('Request timed out', {} as never))),
      }),
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
  [
    'ingestDocuments 400 badKey',
    ingest,
    ingestRequest({ headers: { 'idempotency-key': 'a b' } }),
    ingestExample('400', 'badKey'),
  ],
  ['ingestDocuments 403', ingest, ingestRequest({ scopes: [] }), ingestExample('403', 'readingToken')],
  [
    'ingestDocuments 404',
    ingest,
    ingestRequest({ path: '/ingest/events', pathParameters: { collection: 'events' } }),
    ingestExample('404', 'unknownCollection'),
  ],
  [
    'ingestDocuments 413',
    ingest,
    ingestRequest({ rawBody: 'x\n'.repeat(10_001) }),
    ingestExample('413', 'tooManyLines'),
  ],
  [
    'ingestDocuments 415 otherType',
    ingest,
    ingestRequest({ headers: { 'content-type': 'application/json' } }),
    ingestExample('415', 'otherType'),
  ],
  [
    'ingestDocuments 415 otherCoding',
    ingest,
    ingestRequest({ headers: { 'content-encoding': 'br' } }),
    ingestExample('415', 'otherCoding'),
  ],
);

// The administration API, on embedded tables: A holds berlin-mall at revision 2, B had it and
// deleted it, C holds it with 50 groups (for the write too large).
const adminDir = mkdtempSync(join(tmpdir(), 'lrs-openapi-admin-'));
const adminTables = ['a', 'b', 'c'].map((name) => FileItemTable.open(join(adminDir, `${name}.jsonl`)));
const [storeA, storeB, storeC] = adminTables.map((t) => new TableLocationStore(t)) as [
  TableLocationStore,
  TableLocationStore,
  TableLocationStore,
];
const adminAt = (iso: string) => ({ organizationId: ADMIN_ORG, actor: 'user-1', now: new Date(iso) });
const fiftyGroups = (from: number) =>
  Array.from({ length: 50 }, (_, i) => ({ ...LOCATION_EXAMPLE_INPUT.sensorGroups[0]!, id: from + i }));
beforeAll(async () => {
  for (const store of [storeA, storeB])
    await createLocation(store, adminAt('2024-03-01T09:30:00Z'), LOCATION_EXAMPLE_INPUT as never);
  await replaceLocation(
    storeA,
    adminAt('2024-04-02T07:00:00Z'),
    'berlin-mall',
    { ...LOCATION_EXAMPLE_INPUT, name: 'Mall' } as never,
    1,
  );
  await deleteLocation(storeB, adminAt('2024-04-01T10:00:00Z'), 'berlin-mall');
  await createLocation(storeC, adminAt('2024-03-01T09:30:00Z'), {
    ...LOCATION_EXAMPLE_INPUT,
    sensorGroups: fiftyGroups(1),
  } as never);
});
afterAll(() => {
  adminTables.forEach((t) => t.close());
  rmSync(adminDir, { recursive: true, force: true });
});
const manage = (store: () => TableLocationStore) =>
  createManageLocationsHandler({ store, refresh: () => async () => undefined });
const [locationsA, locationsB, locationsC] = [manage(() => storeA), manage(() => storeB), manage(() => storeC)];
const admin = { org: ADMIN_ORG, groups: ['admin'] };
const adminRequest = (method: string, path: string, request: HttpRequest = {}): HttpRequest => ({
  method,
  path,
  ...(path.startsWith('/locations/') ? { pathParameters: { locationId: path.split('/')[2]! } } : {}),
  ...admin,
  ...request,
});
const adminExample = (path: string, method: string, status: string, name: string) =>
  example(path, method, status, name);
const clients = createManageIngestClientsHandler({
  table: () => keys,
  issuer: () => ({ tokenUrl: 'x', create: () => Promise.reject(new Error('not here')), remove: async () => undefined }),
});
const ONE = '/locations/{locationId}';
// Webhooks: an enabled endpoint at revision 1 (A), a paused one with a delivery (B).
const hooksDir = mkdtempSync(join(tmpdir(), 'lrs-openapi-hooks-'));
const [hooksA, hooksB, hooksEmpty] = ['a', 'b', 'empty'].map((n) => FileItemTable.open(join(hooksDir, `${n}.jsonl`)));
const hookInput = { url: 'https://hooks.example.com/lrs', events: ['occupancy.above' as const], description: '' };
beforeAll(async () => {
  const ctx = adminAt('2024-03-01T09:45:00Z');
  await createEndpoint(hooksA!, ctx, { ...hookInput, enabled: true }, WEBHOOK_EXAMPLE_ID);
  await createEndpoint(hooksB!, ctx, { ...hookInput, enabled: false }, WEBHOOK_EXAMPLE_ID);
  await addDelivery(
    hooksB!,
    newDelivery({
      id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      organizationId: ADMIN_ORG,
      endpointId: WEBHOOK_EXAMPLE_ID,
      type: 'occupancy.above',
      eventId: 'e-1',
      locationId: 'berlin-mall',
      body: '{}',
      now: new Date('2024-03-01T10:05:01Z'),
    }),
  );
});
afterAll(() => {
  [hooksA, hooksB, hooksEmpty].forEach((t) => t!.close());
  rmSync(hooksDir, { recursive: true, force: true });
});
const hooks = (table: FileItemTable) =>
  createManageWebhookEndpointsHandler({ table: () => table, queue: () => NO_QUEUE, policy: () => ({}) });
const HOOK = `/webhook-endpoints/${WEBHOOK_EXAMPLE_ID}`;
const hookRequest = (method: string, suffix: string, request: HttpRequest = {}): HttpRequest => ({
  method,
  path: `${HOOK}${suffix}`,
  ...admin,
  ...request,
  pathParameters: { endpointId: WEBHOOK_EXAMPLE_ID, ...(request.pathParameters ?? {}) },
});
const HOOK_ONE = '/webhook-endpoints/{endpointId}';
cases.push(
  [
    'createWebhookEndpoint 400',
    hooks(hooksA!),
    {
      method: 'POST',
      path: '/webhook-endpoints',
      ...admin,
      body: { ...hookInput, url: 'http://hooks.example.com/lrs' },
    },
    adminExample('/webhook-endpoints', 'post', '400', 'notHttps'),
  ],
  [
    'createWebhookEndpoint 403',
    hooks(hooksA!),
    { method: 'POST', path: '/webhook-endpoints', org: ADMIN_ORG, body: hookInput },
    adminExample('/webhook-endpoints', 'post', '403', 'viewer'),
  ],
  [
    'createWebhookEndpoint 403 limitedAdmin',
    hooks(hooksA!),
    { method: 'POST', path: '/webhook-endpoints', ...admin, locations: ['nyc-store'], body: hookInput },
    adminExample('/webhook-endpoints', 'post', '403', 'limitedAdmin'),
  ],
  [
    'getWebhookEndpoint 404',
    hooks(hooksEmpty!),
    hookRequest('GET', ''),
    adminExample(HOOK_ONE, 'get', '404', 'unknownEndpoint'),
  ],
  [
    'replaceWebhookEndpoint 428',
    hooks(hooksA!),
    hookRequest('PUT', '', { body: hookInput }),
    adminExample(HOOK_ONE, 'put', '428', 'noIfMatch'),
  ],
  [
    'replaceWebhookEndpoint 412',
    hooks(hooksA!),
    hookRequest('PUT', '', { body: hookInput, headers: { 'if-match': '"7"' } }),
    adminExample(HOOK_ONE, 'put', '412', 'stale'),
  ],
  [
    'deleteWebhookEndpoint 412',
    hooks(hooksA!),
    hookRequest('DELETE', '', { headers: { 'if-match': '"7"' } }),
    adminExample(HOOK_ONE, 'delete', '412', 'stale'),
  ],
  [
    'rotateWebhookSecret 412',
    hooks(hooksA!),
    hookRequest('POST', '/secret:rotate', { headers: { 'if-match': '"7"' } }),
    adminExample(`${HOOK_ONE}/secret:rotate`, 'post', '412', 'stale'),
  ],
  [
    'listWebhookDeliveries 400',
    hooks(hooksA!),
    hookRequest('GET', '/deliveries', { query: { limit: '0' } }),
    adminExample(`${HOOK_ONE}/deliveries`, 'get', '400', 'badLimit'),
  ],
  [
    'retryWebhookDelivery 404',
    hooks(hooksA!),
    hookRequest('POST', '/deliveries/msg_2KWPBgLlAfxdpx2AI54pPJ85f4W/retry', {
      pathParameters: { deliveryId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' },
    }),
    adminExample(`${HOOK_ONE}/deliveries/{deliveryId}/retry`, 'post', '404', 'unknownDelivery'),
  ],
  [
    'retryWebhookDelivery 409',
    hooks(hooksB!),
    hookRequest('POST', '/deliveries/msg_2KWPBgLlAfxdpx2AI54pPJ85f4W/retry', {
      pathParameters: { deliveryId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' },
    }),
    adminExample(`${HOOK_ONE}/deliveries/{deliveryId}/retry`, 'post', '409', 'disabled'),
  ],
);
cases.push(
  [
    'createLocation 400',
    locationsA,
    adminRequest('POST', '/locations', {
      body: {
        ...LOCATION_EXAMPLE_INPUT,
        id: 'x',
        sensorGroups: [{ ...LOCATION_EXAMPLE_INPUT.sensorGroups[0], capacity: 0 }],
      },
    }),
    adminExample('/locations', 'post', '400', 'invalidCapacity'),
  ],
  [
    'createLocation 403 viewer',
    locationsA,
    adminRequest('POST', '/locations', { body: LOCATION_EXAMPLE_INPUT, groups: [] }),
    adminExample('/locations', 'post', '403', 'viewer'),
  ],
  [
    'createLocation 403 limitedAdmin',
    locationsA,
    adminRequest('POST', '/locations', { body: LOCATION_EXAMPLE_INPUT, locations: ['nyc-store'] }),
    adminExample('/locations', 'post', '403', 'limitedAdmin'),
  ],
  [
    'createLocation 409 exists',
    locationsA,
    adminRequest('POST', '/locations', { body: LOCATION_EXAMPLE_INPUT }),
    adminExample('/locations', 'post', '409', 'exists'),
  ],
  [
    'createLocation 409 deleted',
    locationsB,
    adminRequest('POST', '/locations', { body: LOCATION_EXAMPLE_INPUT }),
    adminExample('/locations', 'post', '409', 'deleted'),
  ],
  [
    'createLocation 413',
    locationsA,
    adminRequest('POST', '/locations', {
      rawBody: JSON.stringify({ ...LOCATION_EXAMPLE_INPUT, pad: 'x'.repeat(1048576) }),
    }),
    adminExample('/locations', 'post', '413', 'tooLarge'),
  ],
  [
    'createLocation 415',
    locationsA,
    adminRequest('POST', '/locations', { body: LOCATION_EXAMPLE_INPUT, headers: { 'content-type': 'text/plain' } }),
    adminExample('/locations', 'post', '415', 'otherType'),
  ],
  [
    'getLocation 404',
    locationsA,
    adminRequest('GET', '/locations/berlin-mall', { locations: ['nyc-store'] }),
    adminExample(ONE, 'get', '404', 'unknownLocation'),
  ],
  [
    'replaceLocation 404',
    locationsB,
    adminRequest('PUT', '/locations/berlin-mall', { body: LOCATION_EXAMPLE_INPUT, headers: { 'if-match': '"1"' } }),
    adminExample(ONE, 'put', '404', 'unknownLocation'),
  ],
  [
    'replaceLocation 412',
    locationsA,
    adminRequest('PUT', '/locations/berlin-mall', { body: LOCATION_EXAMPLE_INPUT, headers: { 'if-match': '"1"' } }),
    adminExample(ONE, 'put', '412', 'stale'),
  ],
  [
    'replaceLocation 422',
    locationsC,
    adminRequest('PUT', '/locations/berlin-mall', {
      body: { ...LOCATION_EXAMPLE_INPUT, sensorGroups: fiftyGroups(51) },
      headers: { 'if-match': '"1"' },
    }),
    adminExample(ONE, 'put', '422', 'tooLarge'),
  ],
  [
    'replaceLocation 428',
    locationsA,
    adminRequest('PUT', '/locations/berlin-mall', { body: LOCATION_EXAMPLE_INPUT }),
    adminExample(ONE, 'put', '428', 'noIfMatch'),
  ],
  [
    'replaceLocation 403',
    locationsA,
    adminRequest('PUT', '/locations/berlin-mall', { body: LOCATION_EXAMPLE_INPUT, groups: ['viewer'] }),
    adminExample(ONE, 'put', '403', 'viewer'),
  ],
  [
    'deleteLocation 412',
    locationsA,
    adminRequest('DELETE', '/locations/berlin-mall', { headers: { 'if-match': '"1"' } }),
    adminExample(ONE, 'delete', '412', 'stale'),
  ],
  [
    'deleteLocation 403 limitedAdmin',
    locationsA,
    adminRequest('DELETE', '/locations/berlin-mall', { locations: ['nyc-store'] }),
    adminExample(ONE, 'delete', '403', 'limitedAdmin'),
  ],
  [
    'listLocationChanges 400',
    locationsA,
    adminRequest('GET', '/locations/berlin-mall/changes', { query: { limit: '0' } }),
    adminExample('/locations/{locationId}/changes', 'get', '400', 'badLimit'),
  ],
  [
    'registerIngestClient 400',
    clients,
    { method: 'POST', path: '/ingest-clients', ...admin, body: { name: 'a/b' } },
    adminExample('/ingest-clients', 'post', '400', 'badName'),
  ],
  [
    'registerIngestClient 403',
    clients,
    { method: 'POST', path: '/ingest-clients', org: ADMIN_ORG, body: { name: 'gw' } },
    adminExample('/ingest-clients', 'post', '403', 'viewer'),
  ],
  [
    'listIngestClients 403',
    clients,
    { method: 'GET', path: '/ingest-clients', ...admin, locations: ['nyc-store'] },
    adminExample('/ingest-clients', 'get', '403', 'limitedAdmin'),
  ],
  [
    'revokeIngestClient 404',
    clients,
    {
      method: 'DELETE',
      path: '/ingest-clients/local-6c1d9b1e0f3a47a2b8c9d0e1',
      pathParameters: { clientId: 'local-6c1d9b1e0f3a47a2b8c9d0e1' },
      ...admin,
    },
    adminExample('/ingest-clients/{clientId}', 'delete', '404', 'unknownClient'),
  ],
  [
    'queryReport 403',
    report(),
    { body: { ...terms, locationIds: ['berlin-mall'] }, locations: ['nyc-store'] },
    example('/reports:query', 'post', '403', 'outsideGrant'),
  ],
);

test('the 200 example of getLocation is what the handler answers after the 201 of createLocation, with the strong ETag of its revision', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-openapi-created-'));
  const table = FileItemTable.open(join(dir, 't.jsonl'));
  try {
    const handler = createManageLocationsHandler({
      store: () => new TableLocationStore(table),
      refresh: () => async () => undefined,
      now: () => Date.parse('2024-03-01T09:30:00Z'),
    });
    const created = await invoke(handler, {
      ...adminRequest('POST', '/locations', { body: LOCATION_EXAMPLE_INPUT }),
      requestId: EXAMPLE_REQUEST_ID,
    });
    const read = await invoke(handler, adminRequest('GET', '/locations/berlin-mall'));
    expect([created.status, created.headers.etag, created.headers.location]).toEqual([
      201,
      '"1"',
      '/locations/berlin-mall',
    ]);
    expect(created.json()).toEqual(example('/locations', 'post', '201', 'berlinMall', 'application/json'));
    expect([read.status, read.headers.etag, read.body]).toEqual([200, '"1"', created.body]);
    expect(read.json()).toEqual(example(ONE, 'get', '200', 'berlinMall', 'application/json'));
  } finally {
    table.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the 200 example of ingestDocuments is what the handler answers to the request example, and the same key with another body is the 422 example', async () => {
  const first = await invoke(ingest, {
    ...ingestRequest({ headers: { 'idempotency-key': 'k1' } }),
    requestId: EXAMPLE_REQUEST_ID,
  });
  const replayed = await invoke(ingest, {
    ...ingestRequest({ headers: { 'idempotency-key': 'k1' } }),
    requestId: EXAMPLE_REQUEST_ID,
  });
  const reused = await invoke(ingest, {
    ...ingestRequest({ headers: { 'idempotency-key': 'k1' }, rawBody: `${INGEST_EXAMPLE_BODY}\n` }),
    requestId: EXAMPLE_REQUEST_ID,
  });
  expect(JSON.parse(first.body)).toEqual(
    example('/ingest/{collection}', 'post', '200', 'oneRejected', 'application/json'),
  );
  expect([replayed.headers[REPLAYED_HEADER.toLowerCase()], replayed.body]).toEqual(['true', first.body]);
  expect(
    (doc as unknown as { components: { headers: Record<string, unknown> } }).components.headers[REPLAYED_HEADER],
  ).toBeDefined();
  expect(reused.body).toBe(JSON.stringify(ingestExample('422', 'keyReused')));
});

test.each(cases)('the example of %s is what the handler answers', async (_name, handler, request, expected) => {
  const response = await invoke(handler, { ...request, requestId: EXAMPLE_REQUEST_ID });
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.body).toBe(JSON.stringify(expected));
});
