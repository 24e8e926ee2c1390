import type { Client } from '@opensearch-project/opensearch';
import { dirtyIndexName } from '../layout/rollup-indices';

const LEASE_ID = 'lease:rebuild';

const statusOf = (e: unknown): number | undefined => (e as { meta?: { statusCode?: number } }).meta?.statusCode;

/**
 * The rebuild's lease in the bookkeeping index: one document created with `op_type: create` (only
 * one writer can), holding its expiry in `grain`. A lease past its expiry (a run that crashed) is
 * taken over, deleted only if unchanged since read. Undefined: another run holds it.
 */
export async function takeLease(
  client: Client,
  prefix: string,
  ttlMs: number,
  now: () => number = Date.now,
): Promise<{ release(): Promise<void> } | undefined> {
  const index = dirtyIndexName(prefix);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await client.index({ index, id: LEASE_ID, op_type: 'create', body: { kind: 'lease', grain: now() + ttlMs } });
      return {
        release: () =>
          client.delete({ index, id: LEASE_ID }).then(
            () => undefined,
            () => undefined,
          ),
      };
    } catch (e) {
      if (statusOf(e) !== 409) throw e;
    }
    const { body } = await client.get({ index, id: LEASE_ID }, { ignore: [404] });
    const held = body as { found?: boolean; _source?: { grain: number }; _seq_no?: number; _primary_term?: number };
    if (held.found && (held._source?.grain ?? 0) > now()) return undefined;
    if (held.found)
      await client.delete(
        { index, id: LEASE_ID, if_seq_no: held._seq_no, if_primary_term: held._primary_term },
        { ignore: [404, 409] },
      );
  }
  return undefined;
}
