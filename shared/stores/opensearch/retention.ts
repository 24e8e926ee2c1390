import type { Client } from '@opensearch-project/opensearch';
import type { MonthlyIndex, RetentionOutcome, RetentionRun } from '../store';
import { COLLECTIONS, type Collection } from '../../documents/fields';
import { firstKeptMonth } from '../../documents/retention';
import { indexPattern, monthOfIndex } from './layout/indices';
import { markGrainsOfDocuments } from './rollups/backfill';
import { rollupIndexName } from './layout/rollup-indices';

/**
 * Deletes the monthly indices (`<prefix><collection>-YYYY.MM`) whose month, read from the name, is
 * older than the retention. Index names are listed with `_cat/indices/<pattern>` and deleted one by
 * one with `DELETE /<index>`, the two requests the retention function is granted (lib/retention.ts).
 * An index whose name is not a month of the collection is never touched.
 */
export async function deleteExpiredIndices(
  client: Client,
  prefix: string,
  run: RetentionRun,
): Promise<Extract<RetentionOutcome, { kind: 'indices' }>> {
  const first = firstKeptMonth(run.nowMs, run.months);
  const expired: MonthlyIndex[] = [];
  const kept: MonthlyIndex[] = [];
  for (const collection of COLLECTIONS) {
    for (const index of await listIndices(client, indexPattern(prefix, collection))) {
      const month = monthOfIndex(prefix, collection, index);
      if (month === undefined) continue;
      (first !== undefined && month < first ? expired : kept).push({ collection, index, month });
    }
  }
  if (!run.dryRun) {
    // A missing index (deleted meanwhile by another run or by the ISM safety net) is not an error.
    for (const { collection, index } of expired) {
      // The rollups' grains of the month, before and after (as erasure.ts): its rows go at the next rebuild.
      await markGrainsOfDocuments(client, prefix, collection, index, { match_all: {} });
      await client.indices.delete({ index, ignore_unavailable: true });
      await markGrainsOfMonth(client, prefix, collection, index);
    }
  }
  const order = (a: MonthlyIndex, b: MonthlyIndex) => (a.index < b.index ? -1 : a.index > b.index ? 1 : 0);
  return { kind: 'indices', expired: expired.sort(order), kept: kept.sort(order) };
}

/** Marks again the grains of the rollup rows of an index's month (the index is gone now). */
async function markGrainsOfMonth(client: Client, prefix: string, collection: Collection, index: string): Promise<void> {
  const month = monthOfIndex(prefix, collection, index) as number;
  const from = Date.UTC(Math.floor(month / 100), (month % 100) - 1, 1);
  const to = Date.UTC(Math.floor(month / 100), month % 100, 1);
  await markGrainsOfDocuments(client, prefix, collection, rollupIndexName(prefix, collection), {
    range: { timestamp: { gte: from, lt: to, format: 'epoch_millis' } },
  });
}

async function listIndices(client: Client, pattern: string): Promise<string[]> {
  const { body } = await client.cat.indices({ index: pattern, format: 'json', h: ['index'], expand_wildcards: 'all' });
  return (body as unknown as { index: string }[]).map((row) => row.index);
}
