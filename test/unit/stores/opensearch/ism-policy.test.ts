import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { ensureIsmPolicy, ismPolicyId } from '#shared/stores/opensearch/layout/ism';

/**
 * The ISM API as the plugin answers it (https://docs.opensearch.org/latest/im-plugin/ism/api/): the
 * test node is the integ-test distribution, which has no ISM plugin (and Maven Central does not
 * carry it), so this stands in for the three endpoints the installation uses, with their seq_no
 * and if_seq_no semantics, and records every request.
 */
async function ismDomain() {
  const requests: string[] = [];
  let stored: { seqNo: number; policy: Record<string, unknown> } | undefined;
  let seq = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname.startsWith('/_plugins/_ism/policies/')) {
        if (req.method === 'GET')
          return stored
            ? reply(200, {
                _id: 'x',
                _version: 1,
                _seq_no: stored.seqNo,
                _primary_term: 1,
                policy: { policy_id: 'x', last_updated_time: 1, ...stored.policy },
              })
            : reply(404, { error: 'not found' });
        if (req.method === 'PUT') {
          const ifSeqNo = url.searchParams.get('if_seq_no');
          if ((stored && ifSeqNo !== String(stored.seqNo)) || (!stored && ifSeqNo !== null))
            return reply(409, { error: 'version_conflict_engine_exception' });
          stored = { seqNo: ++seq, policy: (JSON.parse(raw) as { policy: Record<string, unknown> }).policy };
          return reply(stored.seqNo === 1 ? 201 : 200, { _id: 'x', _seq_no: stored.seqNo, _primary_term: 1 });
        }
      }
      // One enrolled index per pattern, as on a domain that had the policy before: `add` reports it
      // as failed (already managed), `change_policy` moves it; a pattern with `broken` fails for real.
      const call = /^\/_plugins\/_ism\/(add|change_policy)\/(.+)$/.exec(url.pathname);
      if (call) {
        const index = call[2]!.replace('*', '2024.01');
        if (index.includes('broken'))
          return reply(200, {
            updated_indices: 0,
            failures: true,
            failed_indices: [{ index_name: index, index_uuid: 'u', reason: 'Failed to update index policy' }],
          });
        if (call[1] === 'change_policy') return reply(200, { updated_indices: 1, failures: false, failed_indices: [] });
        return reply(200, {
          updated_indices: 0,
          failures: true,
          failed_indices: [
            {
              index_name: index,
              index_uuid: 'u',
              reason: 'This index already has a policy, use the update policy API to update index policies',
            },
          ],
        });
      }
      reply(400, { error: 'unexpected' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new Client({ node: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  return {
    client,
    requests,
    stored: () => stored,
    close: async () => {
      await client.close();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('installing the retention ISM policy', () => {
  it('fails when ISM reports an index it could not enrol (a 200 with failed_indices), not for one already enrolled', async () => {
    const [ok, broken] = [await ismDomain(), await ismDomain()];
    await expect(ensureIsmPolicy(ok.client, 'p-', 25)).resolves.toMatchObject({ outcome: 'created' });
    await expect(ensureIsmPolicy(broken.client, 'broken-', 25)).rejects.toThrow(
      'ISM add failed for broken-movement-events-2024.01 (Failed to update index policy)',
    );
    await Promise.all([ok.close(), broken.close()]);
  });

  it('creates the policy once, then changes nothing when run again (seq_no unchanged, no PUT)', async () => {
    const domain = await ismDomain();
    const first = await ensureIsmPolicy(domain.client, 'p-', 25);
    const second = await ensureIsmPolicy(domain.client, 'p-', 25);
    await domain.close();
    expect(first).toEqual({ outcome: 'created', seqNo: 1 });
    expect(second).toEqual({ outcome: 'unchanged', seqNo: 1 });
    expect(domain.requests.filter((r) => r.startsWith('PUT'))).toEqual(['PUT /_plugins/_ism/policies/p-retention']);
    expect(domain.requests.filter((r) => r.startsWith('POST')).sort()).toEqual(
      ['movement-events', 'parking-events', 'parking-lot-stats']
        .flatMap((b) => [`POST /_plugins/_ism/add/p-${b}-*`, `POST /_plugins/_ism/add/p-${b}-*`])
        .sort(),
    );
    expect(domain.stored()?.policy).toMatchObject({
      default_state: 'kept',
      states: [
        { name: 'kept', transitions: [{ state_name: 'expired', conditions: { min_index_age: '837d' } }] },
        { name: 'expired', actions: [{ delete: {} }] },
      ],
      ism_template: [
        { index_patterns: ['p-movement-events-*', 'p-parking-lot-stats-*', 'p-parking-events-*'], priority: 100 },
      ],
    });
  });

  it('updates a policy of another retention with if_seq_no and if_primary_term', async () => {
    const domain = await ismDomain();
    await ensureIsmPolicy(domain.client, 'p-', 25);
    const changed = await ensureIsmPolicy(domain.client, 'p-', 13);
    await domain.close();
    expect(changed).toEqual({ outcome: 'updated', seqNo: 2 });
    expect(domain.requests.filter((r) => r.startsWith('PUT'))).toEqual([
      'PUT /_plugins/_ism/policies/p-retention',
      'PUT /_plugins/_ism/policies/p-retention?if_seq_no=1&if_primary_term=1',
    ]);
    // Enrolled indices keep the version they were enrolled with until change_policy moves them.
    expect(domain.requests.filter((r) => r.includes('change_policy')).sort()).toEqual(
      ['movement-events', 'parking-events', 'parking-lot-stats']
        .map((b) => `POST /_plugins/_ism/change_policy/p-${b}-*`)
        .sort(),
    );
    expect(ismPolicyId('p-')).toBe('p-retention');
  });
});
