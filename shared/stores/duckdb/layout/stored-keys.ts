import duckdb from '@duckdb/node-bindings';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Collection } from '../../../documents/fields';
import { ident, KEY, TABLES } from './schema';

/**
 * The `_key`s (schema.ts) a root table holds, kept in the process so that a write learns which of a
 * batch's keys may be stored at a cost that grows with the batch, not with the table: looking a
 * batch's keys up in the table itself reads its whole `_key` column, and DuckDB uses an ART index
 * only for IN lists of constants, whose planning costs more per key than the scan it saves below a
 * few million rows (measured in bench/README.md, "Duplicate detection at scale"), while the index
 * would hold most of the instance's memory limit at 10M rows.
 *
 * A superset of the stored keys: the keys of deleted rows stay (a write finds them and reads the
 * table, which no longer has them: a new document), so only writes need to tell it (`add`, after
 * their commit). Read from the table in the first write's transaction; 8 bytes a key, sorted, with
 * the keys added since in a Set, merged in when it grows past a quarter of the sorted ones.
 */
export class StoredKeys {
  #sorted: BigInt64Array;
  #recent = new Set<bigint>();

  constructor(sorted: BigInt64Array) {
    this.#sorted = sorted;
  }

  has(key: bigint): boolean {
    if (this.#recent.has(key)) return true;
    const sorted = this.#sorted;
    let [lo, hi] = [0, sorted.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((sorted[mid] as bigint) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && sorted[lo] === key;
  }

  add(keys: Iterable<bigint>): void {
    for (const key of keys) this.#recent.add(key);
    if (this.#recent.size <= Math.max(MIN_RECENT, this.#sorted.length / 4)) return;
    const merged = new BigInt64Array(this.#sorted.length + this.#recent.size);
    merged.set(this.#sorted);
    let i = this.#sorted.length;
    for (const key of this.#recent) merged[i++] = key;
    this.#sorted = merged.sort();
    this.#recent = new Set();
  }
}

const MIN_RECENT = 65_536;

const loaded = new WeakMap<DuckDBInstance, Map<Collection, StoredKeys>>();

/**
 * The stored keys of a collection, read through `connection` on first use. Every write of keys to
 * the instance's root tables must go through ../write.ts (which adds them after its commit), in the
 * instance's write turn (`serialized`).
 */
export async function storedKeys(
  instance: DuckDBInstance,
  connection: DuckDBConnection,
  collection: Collection,
): Promise<StoredKeys> {
  const byCollection = loaded.get(instance) ?? loaded.set(instance, new Map()).get(instance)!;
  let keys = byCollection.get(collection);
  if (!keys) {
    keys = new StoredKeys(await readKeys(connection, collection));
    byCollection.set(collection, keys);
  }
  return keys;
}

async function readKeys(connection: DuckDBConnection, collection: Collection): Promise<BigInt64Array> {
  const [key, table] = [ident(KEY), ident(TABLES[collection].root)];
  const count = Number((await connection.runAndReadAll(`SELECT count(${key}) FROM ${table}`)).getRowsJS()[0]?.[0] ?? 0);
  const keys = new BigInt64Array(count);
  const result = await connection.run(`SELECT ${key} FROM ${table} WHERE ${key} IS NOT NULL`);
  let n = 0;
  // The column's bytes as they are (no NULLs, BIGINT): a JS bigint per key would cost seconds at 10M.
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const data = duckdb.vector_get_data(duckdb.data_chunk_get_vector(chunk.chunk, 0), chunk.rowCount * 8);
    keys.set(new BigInt64Array(data.buffer, data.byteOffset, chunk.rowCount), n);
    n += chunk.rowCount;
  }
  return keys.sort();
}
