import type { Client } from '@opensearch-project/opensearch';
import { parseDocument } from '#shared/documents/documents';
import { documentIdentity } from '#shared/documents/identity';
import { EngineUnavailableError } from '#shared/errors';
import { indexNameFor } from '#shared/stores/opensearch/layout/indices';
import { dirtyIndexName } from '#shared/stores/opensearch/layout/rollup-indices';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { writeDocuments } from '#shared/stores/opensearch/write';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * An ingest batch whose shard has no active copy (a node died with it, a primary not yet promoted) is
 * answered 503 with Retry-After once `_bulk`'s wait for the primary (WRITE_WAIT, 10 s) is over, saying
 * why, not left to the client's 25 s timeout ("did not answer in time") nor, when the rollups'
 * bookkeeping index is the one unavailable, a 500 (issue 36: "500 /problems#internal after 29 s").
 * A shard that cannot be assigned is made on the real node by requiring a node that does not exist.
 */
let client: Client;
let prefix: string;

const car = (timestamp: string) => {
  const document = parseDocument('movementEvents', {
    organizationId: 'org-1',
    locationId: 'L1',
    label: 'car',
    timestamp,
  });
  return { document, identity: documentIdentity('movementEvents', document) };
};

/** An index whose only shard can never be assigned: red, as a month whose node died without a replica. */
const createRed = (index: string) =>
  client.indices.create({
    index,
    wait_for_active_shards: '0',
    body: { settings: { number_of_replicas: 0, 'index.routing.allocation.require._name': 'no-such-node' } },
  });

beforeAll(async () => {
  client = testClient();
  prefix = uniquePrefix('unavailable-ingest');
  await ensureIndexTemplates(client, prefix, { replicas: 0 });
});
afterAll(async () => {
  await deleteIndices(client, prefix);
  await client.close();
});

test('a batch for a red month: 503 with Retry-After naming the unavailable shard, the rest of the batch written', async () => {
  await createRed(indexNameFor(prefix, 'movementEvents', Date.UTC(2024, 4, 1)));
  const write = writeDocuments(client, 'movementEvents', [car('2024-04-30T10:00:00Z'), car('2024-05-02T10:00:00Z')], {
    indexPrefix: prefix,
    refresh: true,
  });
  const error = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineUnavailableError);
  expect([(error as EngineUnavailableError).status, (error as EngineUnavailableError).headers]).toEqual([
    503,
    { 'Retry-After': '5' },
  ]);
  expect((error as Error).message).toMatch(/busy and wrote part of the batch/);
  expect(((error as Error).cause as Error).message).toMatch(/: 503 unavailable_shards_exception: /);
  // April's car was written: the same batch sent again writes only May's.
  const { body } = await client.count({ index: indexNameFor(prefix, 'movementEvents', Date.UTC(2024, 3, 1)) });
  expect(body.count).toBe(1);
});

test("the rollups' bookkeeping index red: 503 with Retry-After and the cause, not a 500", async () => {
  await client.indices.delete({ index: dirtyIndexName(prefix), ignore_unavailable: true });
  await createRed(dirtyIndexName(prefix));
  const error = await writeDocuments(client, 'movementEvents', [car('2024-03-30T10:00:00Z')], {
    indexPrefix: prefix,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineUnavailableError);
  expect((error as Error).message).toMatch(/could not record the batch for the rollups/);
  expect(String(((error as Error).cause as Error).message)).toMatch(/unavailable_shards_exception/);
});
