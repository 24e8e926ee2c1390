import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { EngineUnavailableError } from '#shared/errors';
import { documentIdentity } from '#shared/documents/identity';
import { parseDocument } from '#shared/documents/documents';
import { writeDocuments } from '#shared/stores/opensearch/write';
import { rollupIndexPaths } from '../../../../lib/rollups';
import { INGEST_REQUESTS } from '../../../../lib/service-function';

/**
 * OpenSearch pushes back on writes when its write thread pool queue is full: the whole `_bulk` is
 * answered 429, or single items are (`es_rejected_execution_exception`). A node here cannot be made
 * to do that on demand, so a loopback server answers as the node does, and the real client reads it.
 */
/**
 * The rollups' marks of the grains a batch wrote (docs/rollups.md): granted to the ingest role beside INGEST_REQUESTS
 * (lib/stack.ts).
 */
const MARKS = `PUT /${rollupIndexPaths('').dirty}/_bulk`;

const REJECTED = {
  type: 'es_rejected_execution_exception',
  reason:
    'rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=1, max_coordinating_and_primary_bytes=0]',
};

const doc = (label: string, id?: string) => {
  const document = parseDocument('movementEvents', {
    ...(id ? { id } : {}),
    organizationId: 'org',
    locationId: 'loc',
    timestamp: '2025-03-03T08:00:00Z',
    label,
  });
  return { document, identity: documentIdentity('movementEvents', document) };
};

let server: Server;
let client: Client;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url?.split('?')[0]}`);
    // The marks are answered as written; each test answers the documents' requests.
    req
      .resume()
      .on('end', () =>
        `${req.method} ${req.url?.split('?')[0]}` === MARKS
          ? json(res, 200, { took: 1, errors: false, items: [] })
          : answer(req, res),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new Client({ node: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxRetries: 0 });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => requests.splice(0));

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

test('a _bulk the node refuses whole (429) is a 503 to retry after 5 s, and nothing is taken as written', async () => {
  // Prepare
  answer = (_, res) => json(res, 429, { error: { root_cause: [REJECTED], ...REJECTED }, status: 429 });
  // Act
  const written = writeDocuments(client, 'movementEvents', [doc('car'), doc('bus')]);
  // Assess
  const error = await written.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EngineUnavailableError);
  expect((error as EngineUnavailableError).toProblem()).toMatchObject({ status: 503 });
  expect((error as EngineUnavailableError).headers).toEqual({ 'Retry-After': '5' });
  expect(requests).toEqual(['PUT /movement-events-2025.03/_bulk']);
});

test('a _bulk with items the node pushed back (429 per item) is a 503 to retry after 5 s, once the others are written', async () => {
  // Prepare: the first item is created, the second rejected
  answer = (_, res) =>
    json(res, 200, {
      took: 1,
      errors: true,
      items: [
        { create: { _index: 'movement-events-2025.03', _id: 'a', status: 201, result: 'created' } },
        { create: { _index: 'movement-events-2025.03', _id: 'b', status: 429, error: REJECTED } },
      ],
    });
  // Act
  const error = await writeDocuments(client, 'movementEvents', [doc('car'), doc('bus')]).catch((e: unknown) => e);
  // Assess: the answer a gateway gets says to send the same batch again (the car comes back a duplicate)
  expect(error).toBeInstanceOf(EngineUnavailableError);
  expect((error as EngineUnavailableError).headers).toEqual({ 'Retry-After': '5' });
  expect((error as EngineUnavailableError).detail).toMatch(/send the same batch again/);
  expect(requests).toEqual(['PUT /movement-events-2025.03/_bulk', MARKS]);
});

test('a document the node refuses for good (a mapping error) is refused, not retried', async () => {
  // Prepare
  answer = (_, res) =>
    json(res, 200, {
      took: 1,
      errors: true,
      items: [
        {
          create: {
            _index: 'movement-events-2025.03',
            _id: 'a',
            status: 400,
            error: { type: 'document_parsing_exception', reason: 'failed to parse field [label]' },
          },
        },
      ],
    });
  // Act
  const outcomes = await writeDocuments(client, 'movementEvents', [doc('car')]);
  // Assess
  expect(outcomes).toEqual([{ kind: 'refused', reason: 'document_parsing_exception: failed to parse field [label]' }]);
});

test('sends only the requests its role is granted in AWS (lib/service-function.ts INGEST_REQUESTS), by their methods', async () => {
  // Prepare: a document with an id, already stored: the writer looks it up over the indices (_search),
  // is refused it by the index (409 in _bulk) and reads the stored one (_mget) to call it a duplicate.
  const stored = doc('car', 'evt-1');
  answer = (req, res) => {
    if (req.url!.includes('/_search'))
      return json(res, 200, { hits: { hits: [{ _index: 'movement-events-2025.03', _id: stored.identity.id }] } });
    if (req.url!.includes('/_bulk'))
      return json(res, 200, {
        took: 1,
        errors: true,
        items: [
          {
            create: {
              _index: 'movement-events-2025.03',
              _id: stored.identity.id,
              status: 409,
              error: { type: 'version_conflict_engine_exception', reason: 'document already exists' },
            },
          },
        ],
      });
    return json(res, 200, {
      docs: [
        {
          _index: 'movement-events-2025.03',
          _id: stored.identity.id,
          found: true,
          _source: { organizationId: 'org', locationId: 'loc', timestamp: '2025-03-03T08:00:00.000Z', label: 'car' },
        },
      ],
    });
  };
  // Act
  const outcomes = await writeDocuments(client, 'movementEvents', [stored]);
  // Assess
  expect(outcomes).toEqual([{ kind: 'duplicate' }]);
  const granted = [
    ...Object.entries(INGEST_REQUESTS).map(([endpoint, method]) => `${method} /movement-events-*/${endpoint}`),
    MARKS,
  ];
  const sent = requests.map((r) => r.replace('-2025.03/', '-*/'));
  expect(sent).toEqual([
    'POST /movement-events-*/_search',
    'PUT /movement-events-*/_bulk',
    'POST /movement-events-*/_mget',
    MARKS,
  ]);
  expect(sent.filter((r) => !granted.includes(r))).toEqual([]);
});
