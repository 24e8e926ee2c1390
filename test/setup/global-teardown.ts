import { tearDownDynamoDbLocal } from './dynamodb-local';
import { OPENSEARCH_NODE_KEY, startedNode } from './global-setup';

/** Jest global teardown of the `integration` project: stops the node global setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  await tearDownDynamoDbLocal(); // started by global setup for the locations and occupancy tests
  const node = startedNode();
  if (!node) return;
  await node.stop();
  delete (globalThis as Record<symbol, unknown>)[OPENSEARCH_NODE_KEY];
  delete process.env.OPENSEARCH_URL;
}
