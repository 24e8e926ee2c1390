import { createHash } from 'node:crypto';
import type { Client } from '@opensearch-project/opensearch';
import { COLLECTIONS } from '../../../documents/fields';
import { indexPattern } from './indices';

/**
 * The Index State Management policy that backs up the retention function: it deletes a monthly index
 * some time after the index was *created*. The function (../retention.ts) decides by the month in the
 * name, which is what retention means; ISM cannot, and a backfill creates an old month's index today.
 * So the policy waits two months longer than the retention and only matters when the function has
 * not run for that long. Attached to new indices by its `ism_template`, to existing ones by `add`.
 * https://docs.opensearch.org/latest/im-plugin/ism/api/
 */
export const ismPolicyId = (prefix: string): string => `${prefix}retention`;

/** Days after creation the safety net deletes an index: the retention plus two months, at 31 days a month. */
export const safetyNetDays = (months: number): number => (months + 2) * 31;

export function ismPolicy(prefix: string, months: number): Record<string, unknown> {
  const body = {
    default_state: 'kept',
    states: [
      {
        name: 'kept',
        actions: [],
        transitions: [{ state_name: 'expired', conditions: { min_index_age: `${safetyNetDays(months)}d` } }],
      },
      { name: 'expired', actions: [{ delete: {} }], transitions: [] },
    ],
    ism_template: [{ index_patterns: COLLECTIONS.map((c) => indexPattern(prefix, c)), priority: 100 }],
  };
  // ISM returns a policy with fields of its own added (ids, times, retry defaults of each action), so
  // the policy is compared by a digest of what we send, kept in its description.
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);
  return {
    description: `Deletes monthly report indices ${safetyNetDays(months)} days after their creation: the safety net of the retention function (${months} months). lrs:${digest}`,
    ...body,
  };
}

export interface IsmInstallation {
  /** `created`, `updated`, `unchanged`, `removed` (retention off, policy deleted) or `absent` (off, none there). */
  readonly outcome: 'created' | 'updated' | 'unchanged' | 'removed' | 'absent';
  /** The policy's `_seq_no` after the installation (undefined when there is none). */
  readonly seqNo?: number;
}

interface StoredPolicy {
  readonly _seq_no: number;
  readonly _primary_term: number;
  readonly policy: { readonly description?: string };
}

const POLICIES = '/_plugins/_ism/policies';

/**
 * Puts the retention policy in place, idempotently: GET it, PUT it only when its description (and so
 * its digest) differs, with `if_seq_no`/`if_primary_term` so that a concurrent change is refused
 * rather than overwritten, then `add` it to the existing monthly indices (ISM leaves an index that
 * has a policy as it is). With a retention of 0 the policy is removed from the indices and deleted.
 */
export async function ensureIsmPolicy(client: Client, prefix: string, months: number): Promise<IsmInstallation> {
  const id = encodeURIComponent(ismPolicyId(prefix));
  const stored = await getPolicy(client, id);
  if (months === 0) {
    if (!stored) return { outcome: 'absent' };
    for (const c of COLLECTIONS)
      await client.transport.request({ method: 'POST', path: `/_plugins/_ism/remove/${indexPattern(prefix, c)}` });
    await client.transport.request({ method: 'DELETE', path: `${POLICIES}/${id}` });
    return { outcome: 'removed' };
  }
  const policy = ismPolicy(prefix, months);
  let seqNo = stored?._seq_no;
  let outcome: IsmInstallation['outcome'] = 'unchanged';
  if (stored?.policy.description !== policy.description) {
    const querystring = stored ? { if_seq_no: stored._seq_no, if_primary_term: stored._primary_term } : {};
    const { body } = await client.transport.request({
      method: 'PUT',
      path: `${POLICIES}/${id}`,
      querystring,
      body: { policy },
    });
    seqNo = (body as { _seq_no: number })._seq_no;
    outcome = stored ? 'updated' : 'created';
  }
  for (const c of COLLECTIONS) {
    const pattern = indexPattern(prefix, c);
    // An index enrolled earlier keeps running the policy version it was enrolled with: an update
    // reaches it only through change_policy (same states, so it applies at the index's next run).
    if (outcome === 'updated') await managedIndexCall(client, 'change_policy', pattern, prefix);
    await managedIndexCall(client, 'add', pattern, prefix);
  }
  return { outcome, ...(seqNo === undefined ? {} : { seqNo }) };
}

/** What ISM's add and change_policy answer: 200 even when some indices failed, listed with a reason. */
interface ManagedIndexAnswer {
  readonly failures?: boolean;
  readonly failed_indices?: readonly { readonly index_name: string; readonly reason: string }[];
}

/**
 * `add` or `change_policy` for the indices of one pattern. No index yet (404) is fine: the first one
 * gets the policy from the ism_template; so is `add` meeting an index that already has a policy.
 * Any other failed index is an error: ISM reports it in a 200 body, not in the status.
 */
async function managedIndexCall(
  client: Client,
  call: 'add' | 'change_policy',
  pattern: string,
  prefix: string,
): Promise<void> {
  let answer: ManagedIndexAnswer;
  try {
    answer = (
      await client.transport.request({
        method: 'POST',
        path: `/_plugins/_ism/${call}/${pattern}`,
        body: { policy_id: ismPolicyId(prefix) },
      })
    ).body as ManagedIndexAnswer;
  } catch (e) {
    if (statusOf(e) === 404) return;
    throw e;
  }
  const failed = (answer.failed_indices ?? []).filter((f) => !(call === 'add' && ALREADY_MANAGED.test(f.reason)));
  if (failed.length > 0)
    throw new Error(`ISM ${call} failed for ${failed.map((f) => `${f.index_name} (${f.reason})`).join(', ')}`);
}

/** The reason ISM gives for an index that has a policy already (index-management 2.19). */
const ALREADY_MANAGED = /already has a policy/i;

async function getPolicy(client: Client, id: string): Promise<StoredPolicy | undefined> {
  try {
    const { body } = await client.transport.request({ method: 'GET', path: `${POLICIES}/${id}` });
    return body as StoredPolicy;
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}

const statusOf = (e: unknown): number | undefined => (e as { meta?: { statusCode?: number } }).meta?.statusCode;
