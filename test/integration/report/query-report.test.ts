import { Client } from '@opensearch-project/opensearch';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { openSearchStoreFromEnv } from '#commons/clients/opensearch-store';
import { createQueryReportHandler } from '../../../functions/query-report';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';
import { movementEvents, ORG_B, parkingEvents, parkingLotStats } from './fixtures';

/**
 * POST /reports:query through the real handler (middy, validation, content negotiation, errors)
 * against the real OpenSearch node. Expected values are computed by hand from ./fixtures.ts.
 */
const client = testClient();
const prefix = uniquePrefix('report');
const handler = createQueryReportHandler({ engine: () => new OpenSearchEngine(client, { indexPrefix: prefix }) });
const query = (req: HttpRequest) => invoke(handler, req);

beforeAll(async () => {
  await indexDocuments(client, prefix, { movementEvents, parkingEvents, parkingLotStats });
});
afterAll(() => deleteIndices(client, prefix));

const firstDays = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-04T00:00:00Z' };
const nestedDirections = [
  { type: 'dateHistogram', interval: '1d' },
  { type: 'nested', path: 'crossedPaths' },
  { type: 'terms', field: 'crossedPaths.end' },
  { type: 'terms', field: 'crossedPaths.id' },
];

describe('time series (shape 1)', () => {
  test('counts documents per day and label over the whole range, leaving absent series out', async () => {
    // Prepare: 03-01 e1 car, e2 person, e3 car; 03-02 e4 truck; 03-03 e5 car; e6 is org-b's.
    const body = {
      filters: [firstDays],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'terms', field: 'label' },
      ],
    };
    // Act
    const response = await query({ body });
    // Assess
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.json()).toEqual([
      { timestamp: '2024-03-01T00:00:00.000Z', car: 2, person: 1 },
      { timestamp: '2024-03-02T00:00:00.000Z', truck: 1 },
      { timestamp: '2024-03-03T00:00:00.000Z', car: 1 },
    ]);
  });

  test('spans the buckets over the whole range, empty days as timestamp-only objects', async () => {
    const body = {
      filters: [{ ...firstDays, to: '2024-03-06T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'terms', field: 'label' },
      ],
    };
    const rows = (await query({ body })).json<object[]>();
    expect(rows.slice(3)).toEqual([
      { timestamp: '2024-03-04T00:00:00.000Z' },
      { timestamp: '2024-03-05T00:00:00.000Z' },
    ]);
  });

  test('answers an empty series when two timestamp ranges do not overlap', async () => {
    const body = {
      filters: [firstDays, { ...firstDays, from: '2024-03-10T00:00:00Z', to: '2024-03-11T00:00:00Z' }],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'terms', field: 'label' },
      ],
    };
    const response = await query({ body });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual([]);
  });

  test('aligns days to the time zone: e3 at 23:30Z falls on the next Berlin day', async () => {
    // Berlin is UTC+1 in early March: days start at 23:00Z; the range end 03-04T00:00Z is 01:00 on Berlin's 03-04.
    const body = {
      filters: [firstDays],
      aggregations: [
        { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' },
        { type: 'terms', field: 'label' },
      ],
    };
    expect((await query({ body })).json()).toEqual([
      { timestamp: '2024-02-29T23:00:00.000Z', car: 1, person: 1 },
      { timestamp: '2024-03-01T23:00:00.000Z', car: 1, truck: 1 },
      { timestamp: '2024-03-02T23:00:00.000Z', car: 1 },
      { timestamp: '2024-03-03T23:00:00.000Z' },
    ]);
  });

  test('names crossings by line then direction, counting nested items', async () => {
    // Items: 03-01 north A (e1), north B (e2), south A (e2, e3); 03-02 north A (e4); 03-03 e5 crossed nothing.
    const response = await query({ body: { aggregations: nestedDirections } });
    expect(response.json()).toEqual([
      { timestamp: '2024-03-01T00:00:00.000Z', 'north A': 1, 'south A': 2, 'north B': 1 },
      { timestamp: '2024-03-02T00:00:00.000Z', 'north A': 1 },
      { timestamp: '2024-03-03T00:00:00.000Z' },
    ]);
  });

  test('answers CSV with one column per series and absent counts as 0', async () => {
    const response = await query({ body: { aggregations: nestedDirections }, headers: { accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.body).toBe(
      'timestamp,north A,south A,north B\r\n' +
        '2024-03-01T00:00:00.000Z,1,2,1\r\n' +
        '2024-03-02T00:00:00.000Z,1,0,0\r\n' +
        '2024-03-03T00:00:00.000Z,0,0,0\r\n',
    );
  });

  test('joins parts with each aggregation’s keyJoiner', async () => {
    const aggregations = [
      nestedDirections[0],
      nestedDirections[1],
      { ...nestedDirections[2], keyJoiner: '/' },
      { ...nestedDirections[3], keyJoiner: '|' },
    ];
    const [first] = (await query({ body: { aggregations } })).json<object[]>();
    expect(first).toEqual({ timestamp: '2024-03-01T00:00:00.000Z', 'north|A': 1, 'south|A': 2, 'north|B': 1 });
  });

  test('reports hourly maxima of parking lot occupancy per lot', async () => {
    const body = {
      source: 'parkingLotStats',
      aggregations: [
        { type: 'dateHistogram', interval: '1h' },
        { type: 'terms', field: 'parkingLotId' },
        { type: 'stats', field: 'occupied', avg: false, max: true },
      ],
    };
    expect((await query({ body })).json()).toEqual([
      { timestamp: '2024-03-01T08:00:00.000Z', 'P1 max': 3, 'P2 max': 1 },
      { timestamp: '2024-03-01T09:00:00.000Z', 'P1 max': 5 },
    ]);
  });
});

describe('single object (shape 2)', () => {
  test('names stats by polygon then stat, with every stat asked for', async () => {
    // z1: 10, 4, 1 (e1, e2, e5); z2: 6, 2 (e2, e4). e6's 100 belongs to org-b.
    const body = {
      aggregations: [
        { type: 'nested', path: 'polygons' },
        { type: 'terms', field: 'polygons.id' },
        { type: 'stats', field: 'polygons.value', min: true, max: true, avg: true, sum: true, count: true },
      ],
    };
    expect((await query({ body })).body).toBe(
      '{"z1 min":1,"z1 max":10,"z1 avg":5,"z1 sum":15,"z1 count":3,"z2 min":2,"z2 max":6,"z2 avg":4,"z2 sum":8,"z2 count":2}',
    );
  });

  test('counts only the nested items that match nestedFilters', async () => {
    // Documents with a north crossing: e1, e2, e4; their north items: A, B, A. e2's south A is not counted.
    const body = {
      nestedFilters: [
        { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['north'] }] },
      ],
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
      ],
    };
    expect((await query({ body })).json()).toEqual({ A: 2, B: 1 });
  });

  test('counts parent documents again after reverseNested', async () => {
    // north: e1 car, e2 person, e4 truck; south: e2 person, e3 car.
    const body = {
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'reverseNested' },
        { type: 'terms', field: 'label' },
      ],
    };
    expect((await query({ body })).json()).toEqual({
      'north car': 1,
      'north person': 1,
      'north truck': 1,
      'south car': 1,
      'south person': 1,
    });
  });

  test('narrows with a filter aggregation, adding no name part', async () => {
    // Cars: e1 (L1), e3 (L2), e5 (L2).
    const body = {
      aggregations: [
        { type: 'filter', filter: { type: 'terms', field: 'label', values: ['car'] } },
        { type: 'terms', field: 'locationId' },
      ],
    };
    expect((await query({ body })).json()).toEqual({ L1: 1, L2: 2 });
  });

  test('names filters buckets, in request order', async () => {
    // people: e2 (c1); vehicles: e1 (c1), e3 (c2), e4 (c2), e5 (c1).
    const body = {
      aggregations: [
        {
          type: 'filters',
          filters: {
            people: { type: 'terms', field: 'label', values: ['person'] },
            vehicles: { type: 'terms', field: 'label', values: ['car', 'truck'] },
          },
        },
        { type: 'terms', field: 'trackingCameraId' },
      ],
    };
    expect((await query({ body })).body).toBe('{"people c1":1,"vehicles c1":2,"vehicles c2":2}');
  });

  test('applies numeric and terms filters on parking events', async () => {
    // duration >= 60: p2 (P1, 90), p3 (P2, 600); spot s1 as well leaves p3 only.
    const body = {
      source: 'parkingEvents',
      filters: [{ type: 'range', field: 'duration', from: 60 }],
      aggregations: [
        { type: 'terms', field: 'parkingLotId' },
        { type: 'stats', field: 'duration', sum: true },
      ],
    };
    expect((await query({ body })).json()).toEqual({ 'P1 avg': 90, 'P1 sum': 90, 'P2 avg': 600, 'P2 sum': 600 });
    const s1 = { ...body, filters: [...body.filters, { type: 'terms', field: 'spotId', values: ['s1'] }] };
    expect((await query({ body: s1 })).json()).toEqual({ 'P2 avg': 600, 'P2 sum': 600 });
  });

  test('treats ranges as half-open: from included, to excluded', async () => {
    // e1 at 08:00 is in, e2 at exactly 09:30 is out.
    const body = {
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T08:00:00Z', to: '2024-03-01T09:30:00Z' }],
      aggregations: [{ type: 'terms', field: 'label' }],
    };
    expect((await query({ body })).json()).toEqual({ car: 1 });
  });

  test('narrows to the locations asked for', async () => {
    const body = { locationIds: ['L2'], aggregations: [{ type: 'terms', field: 'label' }] };
    expect((await query({ body })).json()).toEqual({ car: 2 });
  });

  test('answers the deprecated crossedPaths.start, with a Deprecation header', async () => {
    // start is the inverse of end: items A,B,A,A,A (end) → B,A,B,B,B (start).
    const response = await query({
      body: {
        aggregations: [
          { type: 'nested', path: 'crossedPaths' },
          { type: 'terms', field: 'crossedPaths.start' },
        ],
      },
    });
    expect(response.json()).toEqual({ A: 1, B: 4 });
    expect(response.headers.deprecation).toMatch(/^@\d+$/);
  });

  test('answers an object as a one-row CSV', async () => {
    const response = await query({
      body: { aggregations: [{ type: 'terms', field: 'label' }] },
      headers: { accept: 'text/csv' },
    });
    expect(response.body).toBe('car,person,truck\r\n3,1,1\r\n');
  });
});

describe('tenancy and truncation', () => {
  test('shows another organization only its own documents', async () => {
    const response = await query({ body: { aggregations: [{ type: 'terms', field: 'label' }] }, org: ORG_B });
    expect(response.json()).toEqual({ car: 1 });
  });

  test('says when terms keys were cut at the cap, never silently', async () => {
    // Prepare: cap 2 → car and person kept (smallest keys), truck cut.
    const capped = createQueryReportHandler({
      engine: () => new OpenSearchEngine(client, { indexPrefix: prefix, limits: { termsCap: 2 } }),
    });
    const response = await invoke(capped, { body: { aggregations: [{ type: 'terms', field: 'label' }] } });
    expect(response.json()).toEqual({ car: 3, person: 1 });
    expect(response.headers['x-report-truncated']).toBe('true');
    const full = await query({ body: { aggregations: [{ type: 'terms', field: 'label' }] } });
    expect(full.headers['x-report-truncated']).toBeUndefined();
  });

  test('builds the deployed engine from the environment: endpoint, index prefix and terms cap', async () => {
    // Prepare: what the stack sets (lib/reporting.ts), pointed at the test node; cap 2 as above.
    const env = {
      OPENSEARCH_URL: process.env.OPENSEARCH_URL,
      OPENSEARCH_AUTH: 'none',
      OPENSEARCH_INDEX_PREFIX: prefix,
      REPORT_TERMS_CAP: '2',
    };
    const engine = openSearchStoreFromEnv(env).reports;
    // Act
    const response = await invoke(createQueryReportHandler({ engine: () => engine }), {
      body: { aggregations: [{ type: 'terms', field: 'label' }] },
    });
    // Assess
    expect(response.json()).toEqual({ car: 3, person: 1 });
    expect(response.headers['x-report-truncated']).toBe('true');
  });
});

describe('errors', () => {
  const problem = async (req: HttpRequest) => {
    const response = await query(req);
    expect(response.headers['content-type']).toBe('application/problem+json');
    return {
      status: response.status,
      headers: response.headers,
      body: response.json<{ type: string; status: number; detail: string; errors?: unknown[] }>(),
    };
  };

  test('answers 422 naming the limit when the engine refuses too many buckets', async () => {
    // One-minute buckets over two days: 2,880 buckets > the test node's search.max_buckets.
    const body = {
      source: 'movementEvents',
      filters: [{ ...firstDays, to: '2024-03-03T00:00:00Z' }],
      aggregations: [{ type: 'dateHistogram', interval: '1m' }],
    };
    const { status, body: p } = await problem({ body });
    expect(status).toBe(422);
    expect(p).toMatchObject({
      type: expect.stringMatching(/too-many-buckets$/),
      status: 422,
      maxBuckets: TEST_MAX_BUCKETS,
    });
    expect(p.detail).toContain('splitInterval');
    expect(p.detail).toContain(String(TEST_MAX_BUCKETS));
  });

  test('answers 400 listing every invalid part with its path', async () => {
    const body = {
      source: 'movementEvents',
      filters: [{ type: 'range', field: 'timestamp', from: '2024-03-02T00:00:00Z', to: '2024-03-01T00:00:00Z' }],
      aggregations: [{ type: 'stats', field: 'label' }],
      top: 5,
    };
    const { status, body: p } = await problem({ body });
    expect(status).toBe(400);
    expect(p.errors).toEqual([
      { path: '/top', message: expect.any(String) },
      { path: '/filters/0/from', message: expect.stringContaining('before to') },
      { path: '/aggregations/0/field', message: expect.stringContaining('number') },
    ]);
  });

  test('answers 400 for a body that is not JSON and for no body', async () => {
    expect((await problem({ rawBody: '{"aggregations": [' })).status).toBe(400);
    expect((await problem({})).status).toBe(400);
  });

  test('answers 415 for a body that is not declared as JSON', async () => {
    expect(
      (
        await problem({
          rawBody: 'aggregations=terms',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
    ).toBe(415);
  });

  test('answers 406 naming the allowed types for any other Accept', async () => {
    const { status, body: p } = await problem({
      body: { aggregations: [{ type: 'terms', field: 'label' }] },
      headers: { accept: 'application/xml' },
    });
    expect(status).toBe(406);
    expect(p.detail).toBe('Allowed values of Accept: application/json, text/csv.');
  });

  test('answers 413 for a body over 64 KiB', async () => {
    const body = {
      aggregations: [{ type: 'terms', field: 'label' }],
      locationIds: Array.from({ length: 400 }, (_, i) => `location-${i}-${'x'.repeat(160)}`),
    };
    expect((await problem({ body })).status).toBe(413);
  });

  test('answers 401 when the token carries no organization', async () => {
    const { status, headers } = await problem({
      body: { aggregations: [{ type: 'terms', field: 'label' }] },
      org: null,
    });
    expect(status).toBe(401);
    expect(headers['www-authenticate']).toBe('Bearer');
  });

  test('answers 401 when the organization claim is not a UUID, whatever API Gateway made of the claim', async () => {
    // The JWT authorizer passes every claim as a string: JSON null, numbers, booleans and arrays too.
    for (const org of ['null', '42', 'true', `[${ORG_B} ${ORG_B}]`, 'org-a', `${ORG_B} `]) {
      const {
        status,
        headers,
        body: p,
      } = await problem({ body: { aggregations: [{ type: 'terms', field: 'label' }] }, org });
      expect({ org, status, auth: headers['www-authenticate'], detail: p.detail }).toEqual({
        org,
        status: 401,
        auth: 'Bearer',
        detail: "The token's organization claim (custom:organizationId) must be a UUID.",
      });
    }
  });

  test('answers 503 with Retry-After when the engine cannot be reached', async () => {
    const down = new Client({ node: 'http://127.0.0.1:9', maxRetries: 0, requestTimeout: 2000 });
    const unreachable = createQueryReportHandler({ engine: () => new OpenSearchEngine(down, { indexPrefix: prefix }) });
    const response = await invoke(unreachable, { body: { aggregations: [{ type: 'terms', field: 'label' }] } });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toMatchObject({ status: 503, type: expect.stringMatching(/engine-unavailable$/) });
  });
});
