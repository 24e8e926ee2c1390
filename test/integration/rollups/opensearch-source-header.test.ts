import type { Client } from '@opensearch-project/opensearch';
import { parseDocument } from '#shared/documents/documents';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { indexDocuments } from '#shared/stores/opensearch/write';
import { rebuildRollups } from '#shared/stores/opensearch/rollups/rebuild';
import { createQueryReportHandler } from '../../../functions/query-report';
import { DEFAULT_EVENT_ORGANIZATION, invoke } from '../../../bin/dev/lambda-events';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The query Lambda's answer on OpenSearch says which rows answered it (docs/rollups.md, "Which path
 * answered"): raw with the engine's reason before the first rebuild, rollup with the window after it,
 * raw with the matcher's reason for a report rollups cannot answer, nothing with rollups off; the
 * body the same bytes throughout. Three cars on 5 March 2024.
 */
const car = (timestamp: string) =>
  parseDocument('movementEvents', {
    organizationId: DEFAULT_EVENT_ORGANIZATION,
    locationId: 'L1',
    label: 'car',
    timestamp,
  });
const report = (
  aggregations: unknown[] = [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
  ],
) => ({
  source: 'movementEvents',
  filters: [{ type: 'range', field: 'timestamp', from: '2024-03-05T00:00:00Z', to: '2024-03-06T00:00:00Z' }],
  aggregations,
});

let client: Client;
let prefix: string;

beforeAll(async () => {
  client = testClient();
  prefix = uniquePrefix('rollup-header');
  await ensureIndexTemplates(client, prefix, { replicas: 0 });
  await indexDocuments(
    client,
    'movementEvents',
    [car('2024-03-05T10:01:00Z'), car('2024-03-05T10:02:00Z'), car('2024-03-05T17:40:00Z')],
    { indexPrefix: prefix, refresh: true },
  );
});
afterAll(async () => {
  await deleteIndices(client, prefix);
  await client.close();
});

const ask = (rollups: boolean, body: unknown = report()) =>
  invoke(createQueryReportHandler({ engine: () => new OpenSearchEngine(client, { indexPrefix: prefix, rollups }) }), {
    body,
  });

test('Server-Timing on the Lambda’s answer: not built yet, then from the rollups, the same bytes as without them', async () => {
  // Act
  const before = await ask(true);
  await rebuildRollups(client, prefix);
  const after = await ask(true);
  const off = await ask(false);
  // Assess
  expect([before.status, before.headers['server-timing']]).toEqual([
    200,
    'source;desc="raw", raw-reason;desc="the rollups of movementEvents are not built yet"',
  ]);
  expect([after.status, after.headers['server-timing']]).toEqual([
    200,
    'source;desc="rollup", rollup-window;desc="2024-03-05T00:00:00.000Z/2024-03-06T00:00:00.000Z"',
  ]);
  expect(off.headers['server-timing']).toBeUndefined();
  expect(JSON.parse(after.body)).toEqual([{ timestamp: '2024-03-05T00:00:00.000Z', car: 3 }]);
  expect([before.body, after.body]).toEqual([off.body, off.body]);
});

test('Server-Timing on the Lambda’s answer: the matcher’s reason for a report rollups cannot answer', async () => {
  const answer = await ask(true, report([{ type: 'dateHistogram', interval: '5m' }]));
  expect([answer.status, answer.headers['server-timing']]).toEqual([
    200,
    'source;desc="raw", raw-reason;desc="a 5m interval is not a multiple of the grain"',
  ]);
});
