/**
 * Smoke test of the integration harness (test/setup/global-setup.ts): the node it started (or the
 * one given as OPENSEARCH_URL) is the expected version and has the low bucket limit other tests use
 * to provoke a real too_many_buckets_exception.
 */
import { Client } from '@opensearch-project/opensearch';
import { OPENSEARCH_VERSION, TEST_MAX_BUCKETS } from '../../bin/dev/opensearch-node';

const client = new Client({ node: process.env.OPENSEARCH_URL });

afterAll(() => client.close());

test('OPENSEARCH_URL points at the expected OpenSearch version', async () => {
  const { body } = await client.info();
  expect(body.version.distribution).toBe('opensearch');
  expect(body.version.number).toBe(OPENSEARCH_VERSION);
});

test(`search.max_buckets is ${TEST_MAX_BUCKETS}`, async () => {
  const { body } = await client.cluster.getSettings({ include_defaults: true, filter_path: '**.max_buckets' });
  const value =
    body.transient?.search?.max_buckets ?? body.persistent?.search?.max_buckets ?? body.defaults?.search?.max_buckets;
  expect(Number(value)).toBe(TEST_MAX_BUCKETS);
});

test('an aggregation with more buckets than the limit fails with too_many_buckets_exception', async () => {
  const index = `harness-buckets-${process.pid}-${Date.now()}`;
  await client.indices.create({
    index,
    body: {
      settings: { number_of_shards: 1, number_of_replicas: 0 },
      mappings: { properties: { k: { type: 'keyword' } } },
    },
  });
  try {
    const docs = Array.from({ length: TEST_MAX_BUCKETS + 1 }, (_, i) => [
      { index: { _index: index } },
      { k: `key-${i}` },
    ]);
    await client.bulk({ body: docs.flat(), refresh: true });
    // Not inlined: the client's v3 typings (TermsAggregationFields) lack `field`, so an object
    // literal fails the excess-property check although OpenSearch requires the field.
    const aggs = { keys: { terms: { field: 'k', size: TEST_MAX_BUCKETS + 1 } } };
    const search = client.search({ index, body: { size: 0, aggs } });
    await expect(search).rejects.toMatchObject({
      meta: { body: { error: { caused_by: { type: 'too_many_buckets_exception' } } } },
    });
  } finally {
    await client.indices.delete({ index });
  }
});
