import type { DuckDBInstance } from '@duckdb/node-api';

/**
 * Writes are serialized per database: row ids are handed out from max(row_id). Deletions
 * (../delete-rows.ts) and the rollups' rebuild (../rollups/rebuild.ts) take the same turn.
 */
const writeLocks = new WeakMap<DuckDBInstance, Promise<unknown>>();

export function serialized<T>(instance: DuckDBInstance, work: () => Promise<T>): Promise<T> {
  const previous = writeLocks.get(instance) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(work);
  writeLocks.set(instance, run);
  return run;
}
