import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { EngineUnavailableError } from '#shared/errors';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import type { ItemTable } from '#shared/locations/item-table';
import type { Location } from '#shared/locations/model';
import { TableLocationStore } from '#shared/locations/table-store';
import type { DocumentWriter } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { DuckDbDocumentWriter } from '#shared/stores/duckdb/write';
import { answerReport } from '#shared/report/query-report';
import { INGEST_SCOPE } from '#commons/http/identity';
import { FileItemTable } from '../../../bin/local/file-table';
import { createIngestHandler } from '../../../functions/ingest';
import { createTestTable } from '../locations/table';
import { ORG_A, ORG_B } from '../report/fixtures';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';

/**
 * `Idempotency-Key` on POST /ingest/{collection}: Powertools' idempotency utility over the service's
 * table, the same logic on DynamoDB Local (as in AWS) and on the local server's embedded table.
 */
const TABLES: readonly { name: string; open(): Promise<{ table: ItemTable; drop(): Promise<void> }> }[] = [
  {
    name: 'DynamoDB Local',
    async open() {
      const t = await createTestTable('idempotency');
      return { table: new DynamoItemTable(t.client, t.name), drop: t.drop };
    },
  },
  {
    name: 'the embedded table',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'lrs-idempotency-'));
      const table = FileItemTable.open(join(dir, 'table.jsonl'));
      return {
        table,
        drop: async () => {
          table.close();
          rmSync(dir, { recursive: true, force: true });
        },
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

const line = (minute: number, label: string, locationId = 'L1') =>
  JSON.stringify({ locationId, timestamp: new Date(Date.UTC(2024, 2, 1, 8, minute)).toISOString(), label });
const BATCH = `${line(0, 'car')}\n${line(1, 'bus')}\n`;

describe.each(TABLES)('on $name', ({ open }) => {
  let table: ItemTable;
  let drop: () => Promise<void>;
  let db: DuckDBInstance;
  let writer: DocumentWriter;
  beforeEach(async () => {
    ({ table, drop } = await open());
    const store = new TableLocationStore(table);
    for (const l of [location(ORG_A, 'L1'), location(ORG_B, 'L9')]) await store.putLocation(l);
    db = await openDuckDb(':memory:');
    writer = new DuckDbDocumentWriter(db);
  });
  afterEach(async () => {
    db.closeSync();
    await drop();
  });

  const ingest = (req: HttpRequest, key: string | undefined = 'k-1') =>
    invoke(
      createIngestHandler({ writer: () => writer, store: () => new TableLocationStore(table), table: () => table }),
      {
        path: '/ingest/movementEvents',
        pathParameters: { collection: 'movementEvents' },
        scopes: [INGEST_SCOPE],
        ...req,
        headers: {
          'content-type': 'application/x-ndjson',
          ...(key === undefined ? {} : { 'idempotency-key': key }),
          ...(req.headers ?? {}),
        },
      },
    );
  /** Movement events of the organization, summed over labels. */
  const count = async (organizationId = ORG_A) => {
    const byLabel = JSON.parse(
      (
        await answerReport(
          { aggregations: [{ type: 'terms', field: 'label' }] },
          { organizationId },
          new DuckDbEngine(db),
          'application/json',
        )
      ).body,
    ) as Record<string, number>;
    return Object.values(byLabel).reduce((a, b) => a + b, 0);
  };

  test('answers the same key and body again with the first answer, marked replayed, and writes nothing more', async () => {
    // Act
    const first = await ingest({ rawBody: BATCH });
    const again = await ingest({ rawBody: BATCH });
    // Assess: without the key, the second would answer 0 accepted, 2 duplicates
    expect([first.status, first.json(), first.headers['idempotent-replayed']]).toEqual([
      200,
      { accepted: 2, duplicates: 0, rejected: [] },
      undefined,
    ]);
    expect([again.status, again.json(), again.headers['idempotent-replayed']]).toEqual([
      200,
      { accepted: 2, duplicates: 0, rejected: [] },
      'true',
    ]);
    expect(await count()).toBe(2);
  });

  test('answers 422 for the same key with another body, and writes none of it', async () => {
    await ingest({ rawBody: BATCH });
    const other = await ingest({ rawBody: `${line(5, 'truck')}\n` });
    expect([other.status, other.json<{ type: string }>().type]).toEqual([
      422,
      expect.stringMatching(/idempotency-key-reused$/),
    ]);
    expect(await count()).toBe(2);
  });

  test('answers 409 with Retry-After while the first request with the key is still running, then the first answer', async () => {
    // Prepare: a writer that holds the first request until released
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const direct = writer;
    writer = { write: async (c, docs) => (await held, direct.write(c, docs)) };
    // Act
    const first = ingest({ rawBody: BATCH });
    await new Promise((r) => setTimeout(r, 200));
    const during = await ingest({ rawBody: BATCH });
    release();
    const firstAnswer = await first;
    const after = await ingest({ rawBody: BATCH });
    // Assess
    expect([during.status, during.headers['retry-after']]).toEqual([409, '1']);
    expect([firstAnswer.status, after.status, after.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(await count()).toBe(2);
  });

  test("keeps keys apart by organization: another organization's same key runs its own request", async () => {
    await ingest({ rawBody: BATCH });
    const b = await ingest({ rawBody: `${line(0, 'car', 'L9')}\n`, org: ORG_B });
    expect([b.status, b.json(), b.headers['idempotent-replayed']]).toEqual([
      200,
      { accepted: 1, duplicates: 0, rejected: [] },
      undefined,
    ]);
    expect([await count(ORG_A), await count(ORG_B)]).toEqual([2, 1]);
  });

  test('releases the key when the request fails, so the same request may be sent again', async () => {
    // Prepare: the engine is busy once
    const direct = writer;
    let calls = 0;
    writer = {
      write: async (c, docs) =>
        calls++ === 0 ? Promise.reject(new EngineUnavailableError('busy')) : direct.write(c, docs),
    };
    // Act
    const failed = await ingest({ rawBody: BATCH });
    const retried = await ingest({ rawBody: BATCH });
    // Assess
    expect([failed.status, failed.headers['retry-after']]).toEqual([503, '5']);
    expect([retried.status, retried.json(), retried.headers['idempotent-replayed']]).toEqual([
      200,
      { accepted: 2, duplicates: 0, rejected: [] },
      undefined,
    ]);
  });

  test('answers 400 naming the header for a key that is empty, too long or not visible ASCII', async () => {
    for (const key of ['', 'x'.repeat(256), 'schlüssel', 'a b']) {
      const response = await ingest({ rawBody: BATCH }, key);
      expect([key, response.status, response.json<{ errors: { path: string }[] }>().errors[0]?.path]).toEqual([
        key,
        400,
        '/headers/idempotency-key',
      ]);
    }
    // quoted as the IETF draft writes it, or bare: the same key
    expect((await ingest({ rawBody: BATCH }, '"abc"')).headers['idempotent-replayed']).toBeUndefined();
    expect((await ingest({ rawBody: BATCH }, 'abc')).headers['idempotent-replayed']).toBe('true');
  });
});
