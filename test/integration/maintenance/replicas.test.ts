import { ensureIndexTemplates, raiseReplicas, settingsForCluster } from '#shared/stores/opensearch/layout/templates';
import { replicasFor } from '#shared/stores/opensearch/layout/indices';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * Replicas from one rule (replicasFor): the templates carry it, a cluster you run is asked for its
 * data nodes, and indices made before the cluster grew are raised to it, never lowered.
 */
const client = testClient();
const prefix = uniquePrefix('replicas');

afterAll(() => deleteIndices(client, prefix));

const replicasOf = async (index: string): Promise<string> => {
  const { body } = await client.indices.getSettings({
    index,
    name: 'index.number_of_replicas',
    flat_settings: true,
    expand_wildcards: ['open', 'closed'],
  });
  return (body[index] as { settings: Record<string, string> }).settings['index.number_of_replicas'] as string;
};

describe('replicas', () => {
  test('one replica wherever there is more than one data node, none on one', () => {
    expect([0, 1, 2, 3, 10].map(replicasFor)).toEqual([0, 0, 1, 1, 1]);
  });

  test("a cluster you run gets the replicas of its data nodes: the suite's single node, none", async () => {
    expect(await settingsForCluster(client)).toEqual({ shards: 1, replicas: 0 });
  });

  test('indices made with fewer are raised when the templates are put with more; more and closed ones too, never lowered', async () => {
    // Prepare: the templates of a single node, then a month of movement events, a closed month of
    // parking events, the rollup bookkeeping index, and one month someone gave two replicas by hand.
    await ensureIndexTemplates(client, prefix, { replicas: 0 });
    const [may, closed, dirty, two] = [
      `${prefix}movement-events-2024.05`,
      `${prefix}parking-events-2024.05`,
      `${prefix}rollup-dirty`,
      `${prefix}movement-events-2024.06`,
    ];
    for (const index of [may, closed, dirty, two]) await client.indices.create({ index, wait_for_active_shards: '1' });
    await client.indices.putSettings({ index: two, body: { 'index.number_of_replicas': 2 } });
    await client.indices.close({ index: closed });
    const other = `${prefix}not-ours`;
    await client.indices.create({ index: other, body: { settings: { number_of_replicas: 0 } } });

    // Act: the cluster grew (one replica now).
    await ensureIndexTemplates(client, prefix, { replicas: 1 });

    // Assess: ours at 1 (the closed month too), the two-replica month and the index not of the service untouched.
    expect(await Promise.all([may, closed, dirty, two, other].map(replicasOf))).toEqual(['1', '1', '1', '2', '0']);
    const { body: template } = await client.indices.getIndexTemplate({ name: `${prefix}movement-events` });
    expect(template.index_templates[0]?.index_template.template?.settings).toMatchObject({
      index: { number_of_replicas: '1' },
    });
    // Again: nothing left to raise.
    expect(await raiseReplicas(client, prefix, 1)).toEqual([]);
    // Templates put with fewer (a cluster seen with one node left) lower nothing.
    await ensureIndexTemplates(client, prefix, { replicas: 0 });
    expect(await replicasOf(may)).toBe('1');
  });
});
