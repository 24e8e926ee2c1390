import { gzipSync } from 'node:zlib';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { Client } from '@opensearch-project/opensearch';
import { MAX_DECODED_BYTES, MAX_LINES, MAX_SENT_BYTES } from '#shared/ingest/limits';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import type { Location } from '#shared/locations/model';
import type { DocumentWriter } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { DuckDbDocumentWriter } from '#shared/stores/duckdb/write';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { OpenSearchDocumentWriter } from '#shared/stores/opensearch/write';
import { answerReport } from '#shared/report/query-report';
import { INGEST_SCOPE } from '#commons/http/identity';
import { createIngestHandler } from '../../../functions/ingest';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { createTestTable, type TestTable } from '../locations/table';
import { ORG_A, ORG_B } from '../report/fixtures';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * POST /ingest/{collection} through the real handler, on both engines, with the organizations'
 * locations in DynamoDB Local: ORG_A has L1 and L2, ORG_B has L9. Every count below is worked out
 * from the lines each test sends.
 */
interface Store {
  readonly name: string;
  readonly writer: DocumentWriter;
  readonly engine: ReportEngine;
  drop(): Promise<void>;
}

const STORES: readonly { name: string; open(): Promise<Store> }[] = [
  {
    name: 'OpenSearch',
    async open() {
      const client: Client = testClient();
      const prefix = uniquePrefix('ingest-api');
      await ensureIndexTemplates(client, prefix, { replicas: 0 });
      return {
        name: 'OpenSearch',
        // Searchable when the call returns, so that a report right after sees the batch.
        writer: new OpenSearchDocumentWriter(client, { indexPrefix: prefix, refresh: 'wait_for' }),
        engine: new OpenSearchEngine(client, { indexPrefix: prefix }),
        drop: async () => {
          await deleteIndices(client, prefix);
          await client.close();
        },
      };
    },
  },
  {
    name: 'DuckDB',
    async open() {
      const db: DuckDBInstance = await openDuckDb(':memory:');
      return {
        name: 'DuckDB',
        writer: new DuckDbDocumentWriter(db),
        engine: new DuckDbEngine(db),
        drop: async () => db.closeSync(),
      };
    },
  },
];

const location = (organizationId: string, id: string): Location => ({
  id,
  name: id,
  organizationId,
  type: 'mall',
  timezone: 'UTC',
  createdBy: null,
  updatedBy: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
});

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable('ingest');
  for (const l of [location(ORG_A, 'L1'), location(ORG_A, 'L2'), location(ORG_B, 'L9')])
    await table.store.putLocation(l);
});
afterAll(() => table.drop());

const ndjson = (...lines: unknown[]) =>
  `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;
const movement = (minute: number, label: string, extra: Record<string, unknown> = {}) => ({
  locationId: 'L1',
  timestamp: new Date(Date.UTC(2024, 2, 1, 8, minute)).toISOString(),
  label,
  ...extra,
});

describe.each(STORES)('on $name', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(() => store.drop());

  const ingest = (req: Omit<HttpRequest, 'path'> & { collection?: string }) =>
    invoke(
      createIngestHandler({
        writer: () => store.writer,
        store: () => table.store,
        table: () => new DynamoItemTable(table.client, table.name),
      }),
      {
        path: `/ingest/${req.collection ?? 'movementEvents'}`,
        pathParameters: { collection: req.collection ?? 'movementEvents' },
        scopes: [INGEST_SCOPE],
        ...req,
        headers: { 'content-type': 'application/x-ndjson', ...(req.headers ?? {}) },
      },
    );
  /** Movement events by label for the caller's organization. */
  const labels = async (organizationId = ORG_A) =>
    JSON.parse(
      (
        await answerReport(
          { aggregations: [{ type: 'terms', field: 'label' }] },
          { organizationId },
          store.engine,
          'application/json',
        )
      ).body,
    ) as Record<string, number>;

  test("writes a batch for the token's organization, and the same batch again changes no count", async () => {
    // Prepare: organizationId left out, given as the token's, and an id
    const body = ndjson(
      movement(0, 'car'),
      movement(1, 'car', { organizationId: ORG_A, locationId: 'L2' }),
      movement(2, 'bus', { id: 'dev-1' }),
    );
    // Act
    const first = await ingest({ rawBody: body });
    const again = await ingest({ rawBody: body });
    // Assess
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    expect(again.json()).toEqual({ accepted: 0, duplicates: 3, rejected: [] });
    expect(await labels()).toEqual({ car: 2, bus: 1 });
  });

  test('refuses, line by line and with every reason, what is not a document of the organization, and writes the rest', async () => {
    // Prepare: line 3 is blank (skipped, still counted)
    await ingest({ rawBody: ndjson(movement(0, 'car', { id: 'dev-1' })) });
    const body = [
      JSON.stringify(movement(1, 'car')), // 1: written
      JSON.stringify(movement(2, 'car', { organizationId: ORG_B })), // 2: another organization
      '',
      JSON.stringify(movement(3, 'car', { locationId: 'L9' })), // 4: ORG_B's location
      '{"label": "car"', // 5: not JSON
      JSON.stringify(movement(5, 'car', { colour: 'red', label: 7 })), // 6: two schema errors
      JSON.stringify(movement(6, 'truck', { id: 'dev-1' })), // 7: dev-1 was a car: a conflict
      JSON.stringify(movement(7, 'bus')), // 8: written
      JSON.stringify(movement(7, 'bus')), // 9: line 8 again in the same batch: a duplicate
    ].join('\r\n');
    // Act
    const response = await ingest({ rawBody: body });
    // Assess
    expect(response.status).toBe(200);
    const result = response.json<{
      accepted: number;
      duplicates: number;
      rejected: { line: number; errors: { path: string; message: string }[] }[];
    }>();
    expect({ accepted: result.accepted, duplicates: result.duplicates }).toEqual({ accepted: 2, duplicates: 1 });
    expect(result.rejected.map((r) => [r.line, r.errors.map((e) => e.path)])).toEqual([
      [2, ['/organizationId']],
      [4, ['/locationId']],
      [5, ['']],
      [6, ['/label', '/colour']],
      [7, ['/id']],
    ]);
    expect(result.rejected[2]?.errors[0]?.message).toMatch(/^not JSON/);
    expect(result.rejected[4]?.errors[0]?.message).toMatch(/^conflict/);
    expect(await labels()).toEqual({ car: 2, bus: 1 });
  });

  test('keeps organizations apart: the same reading of two organizations is two documents', async () => {
    // Act
    const a = await ingest({ rawBody: ndjson(movement(0, 'car', { id: 'x' })) });
    const b = await ingest({ rawBody: ndjson(movement(0, 'car', { id: 'x', locationId: 'L9' })), org: ORG_B });
    // Assess
    expect([a.json(), b.json()]).toEqual([
      { accepted: 1, duplicates: 0, rejected: [] },
      { accepted: 1, duplicates: 0, rejected: [] },
    ]);
    expect([await labels(ORG_A), await labels(ORG_B)]).toEqual([{ car: 1 }, { car: 1 }]);
  });

  test('reads a gzip body, which API Gateway hands over base64-encoded', async () => {
    // Act
    const response = await ingest({
      binaryBody: gzipSync(ndjson(movement(0, 'car'), movement(1, 'truck'))),
      headers: { 'content-encoding': 'gzip' },
    });
    // Assess
    expect(response.json()).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    expect(await labels()).toEqual({ car: 1, truck: 1 });
  });

  test('writes parking events to their own collection', async () => {
    // Act
    const response = await ingest({
      collection: 'parkingEvents',
      rawBody: ndjson({ locationId: 'L2', timestamp: '2024-03-01T10:00:00Z', duration: 60, spotId: 's1' }),
    });
    const stats = await answerReport(
      { source: 'parkingEvents', aggregations: [{ type: 'stats', field: 'duration', sum: true }] },
      { organizationId: ORG_A },
      store.engine,
      'application/json',
    );
    // Assess
    expect(response.json()).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect(JSON.parse(stats.body)).toEqual({ avg: 60, sum: 60 });
  });
});

describe('before any line is read', () => {
  let db: DuckDBInstance;
  beforeAll(async () => {
    db = await openDuckDb(':memory:');
  });
  afterAll(() => db.closeSync());
  const ingest = (req: HttpRequest & { collection?: string }) =>
    invoke(
      createIngestHandler({
        writer: () => new DuckDbDocumentWriter(db),
        store: () => table.store,
        table: () => new DynamoItemTable(table.client, table.name),
      }),
      {
        path: `/ingest/${req.collection ?? 'movementEvents'}`,
        pathParameters: { collection: req.collection ?? 'movementEvents' },
        scopes: [INGEST_SCOPE],
        ...req,
        headers: { 'content-type': 'application/x-ndjson', ...(req.headers ?? {}) },
      },
    );
  const problem = (response: Awaited<ReturnType<typeof ingest>>) => ({
    status: response.status,
    ...response.json<{ type: string; detail: string }>(),
  });

  test('403 for a token without the ingest scope, naming it; 401 without an organization; 404 for another collection', async () => {
    const body = ndjson(movement(0, 'car'));
    const noScope = await ingest({ rawBody: body, scopes: [] });
    expect(noScope.status).toBe(403);
    expect(noScope.headers['www-authenticate']).toBe(`Bearer error="insufficient_scope", scope="${INGEST_SCOPE}"`);
    expect((await ingest({ rawBody: body, org: null })).status).toBe(401);
    const unknown = await ingest({ rawBody: body, collection: 'cars' });
    expect(unknown.status).toBe(404);
    expect(problem(unknown).detail).toContain('/ingest/movementEvents, /ingest/parkingLotStats, /ingest/parkingEvents');
  });

  test('403 for an ingest token that reads', async () => {
    const response = await invoke(createListLocationsHandler({ store: () => table.store }), {
      method: 'GET',
      path: '/locations',
      scopes: [INGEST_SCOPE],
    });
    expect(response.status).toBe(403);
  });

  test('415 for another media type or content coding, naming what is allowed', async () => {
    const json = await ingest({ rawBody: ndjson(movement(0, 'car')), headers: { 'content-type': 'application/json' } });
    expect([json.status, json.headers.accept]).toEqual([415, 'application/x-ndjson']);
    const br = await ingest({ rawBody: ndjson(movement(0, 'car')), headers: { 'content-encoding': 'br' } });
    expect([br.status, br.headers['accept-encoding']]).toEqual([415, 'gzip']);
  });

  test(`413 over ${MAX_LINES} lines, over ${MAX_SENT_BYTES} bytes as sent, over ${MAX_DECODED_BYTES} bytes decoded, each saying which`, async () => {
    const line = JSON.stringify(movement(0, 'car'));
    const lines = await ingest({ rawBody: `${line}\n`.repeat(MAX_LINES + 1) });
    expect(problem(lines)).toMatchObject({ status: 413, detail: expect.stringContaining('at most 10,000 documents') });
    const sent = await ingest({ rawBody: ' '.repeat(MAX_SENT_BYTES + 1) });
    expect(problem(sent)).toMatchObject({ status: 413, detail: expect.stringContaining('as sent') });
    // 64 MiB of blanks in about 64 KiB: gunzip stops at the bound
    const bomb = await ingest({
      binaryBody: gzipSync(Buffer.alloc(64 * 1024 * 1024, ' ')),
      headers: { 'content-encoding': 'gzip' },
    });
    expect(problem(bomb)).toMatchObject({ status: 413, detail: expect.stringContaining('once decoded') });
  });

  test('400 for a corrupt gzip stream, text that is not UTF-8, or no body', async () => {
    expect(
      (await ingest({ binaryBody: Buffer.from('not gzip'), headers: { 'content-encoding': 'gzip' } })).status,
    ).toBe(400);
    expect((await ingest({ binaryBody: Buffer.from([0x7b, 0xff, 0x7d, 0x0a]) })).status).toBe(400);
    expect((await ingest({})).status).toBe(400);
  });

  test('writes nothing for a batch of lines that are all refused, and answers 200 saying so', async () => {
    const response = await ingest({ rawBody: ndjson('[]', 'null') });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      accepted: 0,
      duplicates: 0,
      rejected: [
        { line: 1, errors: [expect.anything()] },
        { line: 2, errors: [expect.anything()] },
      ],
    });
  });
});
