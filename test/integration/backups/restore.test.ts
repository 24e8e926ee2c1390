import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { indexNameFor } from '#shared/stores/opensearch/layout/indices';
import {
  ensureRepository,
  listSnapshots,
  restoreIndices,
  runDailySnapshot,
  serviceIndexPatterns,
  takeSnapshot,
} from '#shared/backups/snapshots';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';
import { movementEvents, parkingEvents } from '../report/fixtures';

/**
 * The restore runbook (docs/runbooks.md#restore-opensearch) on the real node, with the module the
 * scheduled snapshot function runs: register a file-system repository (under the node's path.repo,
 * set by bin/dev/opensearch-node.ts), take the daily snapshot, lose an index, restore it, and the
 * reports answer exactly as before. Counts by hand from test/integration/report/fixtures.ts.
 */
const client = testClient();
const prefix = uniquePrefix('restore');
const repository = { name: prefix.slice(0, -1), type: 'fs' as const, settings: { location: prefix.slice(0, -1) } };
const handler = createQueryReportHandler({ engine: () => new OpenSearchEngine(client, { indexPrefix: prefix }) });
const report = async (body: object) => {
  const response = await invoke(handler, { body });
  expect(response.status).toBe(200);
  return response.json();
};

const march = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-04T00:00:00Z' };
const labelsPerDay = {
  filters: [march],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
  ],
};
const parkingPerLot = {
  source: 'parkingEvents',
  filters: [march],
  aggregations: [{ type: 'terms', field: 'parkingLotId' }],
};
// org-a's movement events of March 2024 (e6 is org-b's), and its parking events by lot.
const LABELS_PER_DAY = [
  { timestamp: '2024-03-01T00:00:00.000Z', car: 2, person: 1 },
  { timestamp: '2024-03-02T00:00:00.000Z', truck: 1 },
  { timestamp: '2024-03-03T00:00:00.000Z', car: 1 },
];
const PARKING_PER_LOT = { P1: 2, P2: 1 };
const lostIndex = indexNameFor(prefix, 'movementEvents', Date.parse('2024-03-01T00:00:00Z'));

beforeAll(async () => {
  const nodes = (await client.nodes.info({ metric: ['settings'], filter_path: 'nodes.*.settings.path.repo' })).body as {
    nodes?: Record<string, unknown>;
  };
  if (!nodes.nodes)
    throw new Error(
      'The test node has no path.repo: start it with bin/dev/opensearch-node.ts (it sets one) or give yours one.',
    );
  await indexDocuments(client, prefix, { movementEvents, parkingEvents });
});

afterAll(async () => {
  for (const s of await listSnapshots(client, repository.name).catch(() => []))
    await client.snapshot.delete({ repository: repository.name, snapshot: s.name });
  await client.snapshot.deleteRepository({ repository: repository.name }).catch(() => undefined);
  await deleteIndices(client, prefix);
});

describe('restoring a lost index from the daily snapshot', () => {
  test('the reports answer as the fixtures say before anything happens', async () => {
    expect(await report(labelsPerDay)).toEqual(LABELS_PER_DAY);
    expect(await report(parkingPerLot)).toEqual(PARKING_PER_LOT);
  });

  test('registers the repository once: a second run changes nothing', async () => {
    expect(await ensureRepository(client, repository)).toBe('created');
    expect(await ensureRepository(client, repository)).toBe('unchanged');
  });

  test('takes the daily snapshot of the service indices, prunes the expired daily one, keeps an operator snapshot', async () => {
    // Prepare: a daily snapshot 9 days old (past the 7 kept) and one an operator took by hand.
    const indices = serviceIndexPatterns(prefix);
    await takeSnapshot(client, repository.name, 'daily-2024-06-01', { indices, waitForCompletion: true });
    await takeSnapshot(client, repository.name, 'before-upgrade', { indices, waitForCompletion: true });
    // Act
    const result = await runDailySnapshot(client, {
      repository,
      indices,
      keepDays: 7,
      now: new Date('2024-06-10T03:00:00Z'),
      waitForCompletion: true,
    });
    // Assess
    expect(result).toEqual({
      repository: 'unchanged',
      snapshot: 'daily-2024-06-10',
      taken: 'taken',
      pruned: ['daily-2024-06-01'],
    });
    const snapshots = await listSnapshots(client, repository.name);
    expect(snapshots.map((s) => [s.name, s.state])).toEqual([
      ['before-upgrade', 'SUCCESS'],
      ['daily-2024-06-10', 'SUCCESS'],
    ]);
    // Both collections' months, nothing else on the node (other test files' indices have other prefixes).
    expect([...snapshots[1]!.indices].sort()).toEqual(
      [lostIndex, indexNameFor(prefix, 'parkingEvents', Date.parse('2024-03-01T00:00:00Z'))].sort(),
    );
  });

  test('a second run the same day takes nothing new', async () => {
    const again = await runDailySnapshot(client, {
      repository,
      indices: serviceIndexPatterns(prefix),
      keepDays: 7,
      now: new Date('2024-06-10T15:00:00Z'),
    });
    expect(again).toMatchObject({ taken: 'exists', pruned: [] });
  });

  test('after the March movement index is deleted, its days are empty and the parking report unchanged', async () => {
    await client.indices.delete({ index: lostIndex });
    expect(await report(labelsPerDay)).toEqual(LABELS_PER_DAY.map(({ timestamp }) => ({ timestamp })));
    expect(await report(parkingPerLot)).toEqual(PARKING_PER_LOT);
  });

  test('restoring that index from the snapshot brings the report back exactly', async () => {
    const restored = await restoreIndices(client, repository.name, 'daily-2024-06-10', { indices: [lostIndex] });
    expect(restored).toEqual({ indices: [lostIndex], failedShards: 0 });
    await client.cluster.health({ index: lostIndex, wait_for_status: 'green', timeout: '30s' });
    expect(await report(labelsPerDay)).toEqual(LABELS_PER_DAY);
    expect(await report(parkingPerLot)).toEqual(PARKING_PER_LOT);
  });

  test('restores under another name next to a live index, for comparing before swapping', async () => {
    const restored = await restoreIndices(client, repository.name, 'daily-2024-06-10', {
      indices: [lostIndex],
      rename: { pattern: '(.+)', replacement: 'restored-$1' },
    });
    expect(restored.indices).toEqual([`restored-${lostIndex}`]);
    const count = await client.count({ index: `restored-${lostIndex}` });
    expect((count.body as { count: number }).count).toBe(6);
    await client.indices.delete({ index: `restored-${lostIndex}` });
  });
});
