import type { Client } from '@opensearch-project/opensearch';
import { ensureIsmPolicy, ismPolicyId } from '#shared/stores/opensearch/layout/ism';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The retention safety net on the real Index State Management plugin. The test node's integ-test
 * distribution has none and Maven Central does not serve it, so this runs only on a node that has
 * it (OPENSEARCH_PLUGINS_DIR or OPENSEARCH_URL, see docs/operations.md); elsewhere it is skipped,
 * saying so, and test/unit/stores/opensearch/ism-policy.test.ts covers the same requests against a stand-in.
 */
const hasIsm = (process.env.LRS_OPENSEARCH_PLUGINS ?? '').split(',').includes('opensearch-index-management');
const why = 'the node has no opensearch-index-management plugin (docs/operations.md, "Testing the ISM policy")';
if (!hasIsm) console.warn(`ISM tests skipped: ${why}.`);
const describeWithIsm = hasIsm
  ? describe
  : (name: string, fn: () => void) => describe.skip(`${name} (skipped: ${why})`, fn);

const client = testClient();
const prefix = uniquePrefix('ism');
const policyPath = `/_plugins/_ism/policies/${ismPolicyId(prefix)}`;

interface StoredPolicy {
  _seq_no: number;
  _version: number;
  policy: { last_updated_time: number; states: { transitions: { conditions: { min_index_age: string } }[] }[] };
}
interface Explained {
  total_managed_indices: number;
  [index: string]: unknown;
}

const getPolicy = async (c: Client) =>
  (await c.transport.request({ method: 'GET', path: policyPath })).body as StoredPolicy;
const explain = async () =>
  (await client.transport.request({ method: 'GET', path: `/_plugins/_ism/explain/${prefix}*` })).body as Explained;
const policyOf = (explained: Explained, index: string) =>
  (explained[`${prefix}${index}`] as { policy_id?: string | null } | undefined)?.policy_id;

/** The policy change pending on each managed index of the prefix, from the plugin's own config index. */
async function pendingChanges(): Promise<Record<string, string | undefined>> {
  await client.indices.refresh({ index: '.opendistro-ism-config' });
  const { body } = await client.search({
    index: '.opendistro-ism-config',
    body: { size: 100, query: { prefix: { 'managed_index.index': prefix } } },
  });
  const managed = (
    body.hits.hits as { _source: { managed_index: { index: string; change_policy?: { policy_id: string } | null } } }[]
  ).map((h) => h._source.managed_index);
  return Object.fromEntries(managed.map((m) => [m.index, m.change_policy?.policy_id]));
}

/** Waits for the plugin's coordinator, which enrols a new index shortly after its creation. */
async function policyOfSoon(index: string): Promise<string | null | undefined> {
  for (let i = 0; i < 60; i++) {
    const id = policyOf(await explain(), index);
    if (id) return id;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return policyOf(await explain(), index);
}

describeWithIsm('the retention ISM policy on the real plugin', () => {
  beforeAll(async () => {
    await ensureIndexTemplates(client, prefix, { shards: 1, replicas: 0 });
    // Indices that exist before the policy: only `add` enrols them.
    await client.indices.create({ index: `${prefix}movement-events-2024.03` });
    await client.indices.create({ index: `${prefix}parking-events-2024.04` });
  });
  afterAll(async () => {
    await client.transport.request({ method: 'DELETE', path: policyPath }).catch(() => undefined);
    await deleteIndices(client, prefix);
  });

  it('installs once and enrols the existing indices; a second run writes nothing', async () => {
    const first = await ensureIsmPolicy(client, prefix, 25);
    const stored = await getPolicy(client);
    const second = await ensureIsmPolicy(client, prefix, 25);
    const after = await getPolicy(client);

    expect(first).toEqual({ outcome: 'created', seqNo: stored._seq_no });
    expect(second).toEqual({ outcome: 'unchanged', seqNo: stored._seq_no });
    expect([after._seq_no, after._version, after.policy.last_updated_time]).toEqual([
      stored._seq_no,
      1,
      stored.policy.last_updated_time,
    ]);
    expect(stored.policy.states[0]?.transitions[0]?.conditions.min_index_age).toBe('837d'); // (25 + 2) × 31
    const explained = await explain();
    expect(explained.total_managed_indices).toBe(2);
    expect([policyOf(explained, 'movement-events-2024.03'), policyOf(explained, 'parking-events-2024.04')]).toEqual([
      ismPolicyId(prefix),
      ismPolicyId(prefix),
    ]);
  });

  it('enrols a monthly index created after the installation through its ism_template', async () => {
    await client.indices.create({ index: `${prefix}parking-lot-stats-2024.05` });
    expect(await policyOfSoon('parking-lot-stats-2024.05')).toBe(ismPolicyId(prefix));
  });

  it('updates the policy for a new retention, and a write based on a stale seq_no is refused', async () => {
    const before = await getPolicy(client);
    const changed = await ensureIsmPolicy(client, prefix, 13);
    const after = await getPolicy(client);
    expect(changed).toEqual({ outcome: 'updated', seqNo: after._seq_no });
    // (13 + 2) × 31
    expect([after._version, after.policy.states[0]?.transitions[0]?.conditions.min_index_age]).toEqual([2, '465d']);
    // The indices enrolled with version 1 keep running it until change_policy moves them; the plugin
    // records the pending change on each managed index and applies it at the index's next run.
    expect(await pendingChanges()).toEqual({
      [`${prefix}movement-events-2024.03`]: ismPolicyId(prefix),
      [`${prefix}parking-events-2024.04`]: ismPolicyId(prefix),
      [`${prefix}parking-lot-stats-2024.05`]: ismPolicyId(prefix),
    });

    const stale = client.transport.request({
      method: 'PUT',
      path: policyPath,
      querystring: { if_seq_no: before._seq_no, if_primary_term: 1 },
      body: {
        policy: { description: 'stale', default_state: 'a', states: [{ name: 'a', actions: [], transitions: [] }] },
      },
    });
    await expect(stale).rejects.toMatchObject({ meta: { statusCode: 409 } });
    expect((await getPolicy(client))._version).toBe(2);
  });

  it('a retention of 0 takes the policy off every index and deletes it; run again, finds none', async () => {
    expect(await ensureIsmPolicy(client, prefix, 0)).toEqual({ outcome: 'removed' });
    expect((await explain()).total_managed_indices).toBe(0);
    await expect(getPolicy(client)).rejects.toMatchObject({ meta: { statusCode: 404 } });
    expect(await ensureIsmPolicy(client, prefix, 0)).toEqual({ outcome: 'absent' });
  });
});
