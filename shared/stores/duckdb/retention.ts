import type { DuckDBInstance } from '@duckdb/node-api';
import { firstKeptMonth } from '../../documents/retention';
import type { DeletedDocuments } from '../store';
import { deleteDocuments } from './erase';
import { ident, SHARD } from './layout/schema';

/**
 * The retention of ../../documents/retention.ts on the DuckDB tables: deletes the documents (and their
 * items) of every month older than the retention, by the month each row is filed under (`_shard`,
 * the month of its monthly OpenSearch index), in one transaction. 0 months deletes nothing.
 */
export async function deleteExpiredMonths(
  instance: DuckDBInstance,
  run: { readonly months: number; readonly nowMs: number; readonly dryRun?: boolean },
): Promise<DeletedDocuments> {
  const first = firstKeptMonth(run.nowMs, run.months);
  return deleteDocuments(
    instance,
    () => (first === undefined ? undefined : { sql: `${ident(SHARD)} < $1`, params: [first] }),
    { dryRun: run.dryRun ?? false },
  );
}
