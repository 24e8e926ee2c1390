import { setUpDynamoDbLocal } from './dynamodb-local';
import {
  startOpenSearch,
  TEST_MAX_BUCKETS,
  waitForOpenSearch,
  type OpenSearchNode,
} from '../../bin/dev/opensearch-node';

/**
 * Where the node started by global setup is kept for global teardown. Jest runs both in its parent
 * process with the same `globalThis` (but possibly separate module registries, hence `Symbol.for`).
 */
export const OPENSEARCH_NODE_KEY = Symbol.for('lrs.test.opensearchNode');

type NodeSlot = Record<typeof OPENSEARCH_NODE_KEY, OpenSearchNode | undefined>;

/** The node started by {@link globalSetup}, if any (undefined when `OPENSEARCH_URL` was given). */
export function startedNode(): OpenSearchNode | undefined {
  return (globalThis as unknown as NodeSlot)[OPENSEARCH_NODE_KEY];
}

/**
 * Jest global setup of the `integration` project: starts a real OpenSearch node with
 * `search.max_buckets` = {@link TEST_MAX_BUCKETS} and publishes its URL as `process.env.OPENSEARCH_URL`
 * (set in jest's parent process, hence inherited by the test workers). If `OPENSEARCH_URL` is already
 * set, that node is used instead (it should have the same bucket limit) and we only wait for it.
 * `OPENSEARCH_PLUGINS_DIR` adds the plugins unpacked in that folder to the node it starts (the ISM test).
 */
export default async function globalSetup(): Promise<void> {
  // DynamoDB Local for the locations and occupancy tests: DYNAMODB_ENDPOINT (see ./dynamodb-local.ts).
  await setUpDynamoDbLocal();
  const external = process.env.OPENSEARCH_URL;
  if (external) {
    await waitForOpenSearch(external);
    await warnOnBucketLimit(external);
    await publishPlugins(external);
    return;
  }
  const pluginsDir = process.env.OPENSEARCH_PLUGINS_DIR || undefined;
  const node = await startOpenSearch({ maxBuckets: TEST_MAX_BUCKETS, pluginsDir });
  (globalThis as unknown as NodeSlot)[OPENSEARCH_NODE_KEY] = node;
  process.env.OPENSEARCH_URL = node.url;
  console.log(`\nOpenSearch started at ${node.url} in ${(node.startupMs / 1000).toFixed(1)} s`);
  await publishPlugins(node.url);
}

/**
 * Publishes the node's plugins as `LRS_OPENSEARCH_PLUGINS` (comma-separated names) for the tests that
 * need one the integ-test distribution lacks (index-management): they are skipped, saying so, without it.
 */
async function publishPlugins(url: string): Promise<void> {
  const res = await fetch(`${url}/_cat/plugins?format=json`);
  const plugins = (await res.json()) as { component: string }[];
  process.env.LRS_OPENSEARCH_PLUGINS = [...new Set(plugins.map((p) => p.component))].join(',');
}

/** Tests that provoke too_many_buckets rely on the low limit; say so early if the given node differs. */
async function warnOnBucketLimit(url: string): Promise<void> {
  const res = await fetch(`${url}/_cluster/settings?include_defaults=true&flat_settings=true`);
  const body = (await res.json()) as Record<string, Record<string, string> | undefined>;
  const value = ['transient', 'persistent', 'defaults']
    .map((scope) => body[scope]?.['search.max_buckets'])
    .find((v) => v !== undefined);
  if (Number(value) !== TEST_MAX_BUCKETS) {
    console.warn(`OPENSEARCH_URL=${url} has search.max_buckets=${value}; tests expect ${TEST_MAX_BUCKETS}`);
  }
}
