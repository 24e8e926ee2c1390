import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import type { DeletedDocuments } from '../store';
import { COLLECTIONS, nestedPathsOf, type Collection } from '../../documents/fields';
import { markDeleting } from './rollups/rebuild';
import { serialized } from './layout/write-lock';
import { ident, nestedTable, PARENT_ID, ROW_ID, TABLES } from './layout/schema';

/** A condition on a collection's root table, as SQL with `$1`... parameters. */
export interface RowCondition {
  readonly sql: string;
  readonly params: readonly DuckDBValue[];
}

/**
 * Deletes the documents matching `where(collection)` from every collection, with their nested items
 * (the child tables, schema.ts), in one transaction taken in turn with the writes (./write.ts): all
 * of it or, on any failure, nothing. A condition of undefined skips the collection. With `dryRun`,
 * counts what it would delete and changes nothing. `also` runs in the same transaction, last.
 */
export function deleteDocuments(
  instance: DuckDBInstance,
  where: (collection: Collection) => RowCondition | undefined,
  options: { readonly dryRun?: boolean; readonly also?: (connection: DuckDBConnection) => Promise<void> } = {},
): Promise<DeletedDocuments> {
  return serialized(instance, async () => {
    const connection = await instance.connect();
    try {
      await connection.run('BEGIN TRANSACTION');
      try {
        const deleted = {} as DeletedDocuments;
        for (const collection of COLLECTIONS) {
          const condition = where(collection);
          deleted[collection] = condition ? await deleteFrom(connection, collection, condition, options.dryRun ?? false) : 0;
        }
        if (!options.dryRun) await options.also?.(connection);
        await connection.run(options.dryRun ? 'ROLLBACK' : 'COMMIT');
        return deleted;
      } catch (e) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    } finally {
      connection.closeSync();
    }
  });
}

async function deleteFrom(connection: DuckDBConnection, collection: Collection, condition: RowCondition, dryRun: boolean): Promise<number> {
  const root = ident(TABLES[collection].root);
  const params = [...condition.params];
  if (dryRun) {
    const reader = await connection.runAndReadAll(`SELECT count(*) FROM ${root} WHERE ${condition.sql}`, params);
    return Number(reader.getRowsJS()[0]?.[0] ?? 0);
  }
  // The rollups' grains of the documents, before they go (their rebuild then reads what is left).
  await markDeleting(connection, collection, condition.sql, params);
  // Items first: they are found through their documents' row ids.
  for (const path of nestedPathsOf(collection)) {
    await connection.run(`DELETE FROM ${ident(nestedTable(collection, path))} WHERE ${ident(PARENT_ID)} IN (SELECT ${ident(ROW_ID)} FROM ${root} WHERE ${condition.sql})`, params);
  }
  return (await connection.run(`DELETE FROM ${root} WHERE ${condition.sql}`, params)).rowsChanged;
}
