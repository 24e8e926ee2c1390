import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { COLLECTIONS, nestedPathsOf, type Collection } from '../../documents/fields';
import type { DeletedDocuments, OrganizationErasure } from '../store';
import { ident, nestedTable, PARENT_ID, ROW_ID, TABLES } from './layout/schema';
import { serialized } from './layout/write-lock';
import { markDeleting } from './rollups/marks';

/**
 * Deletes every document of one organization (and its items) from every collection, in one
 * transaction, with its rows of the scopes tables (schema.ts): no item refers to them any more, and
 * the organization's next document is numbered afresh. With `dryRun`, counts and changes nothing.
 */
export function deleteOrganizationRows(instance: DuckDBInstance, run: OrganizationErasure): Promise<DeletedDocuments> {
  const byOrganization = { sql: `${ident('organizationId')} = $1`, params: [run.organizationId] };
  return deleteDocuments(instance, () => byOrganization, {
    dryRun: run.dryRun ?? false,
    also: async (connection) => {
      for (const collection of COLLECTIONS) {
        const scopes = TABLES[collection].scopes;
        if (scopes)
          await connection.run(`DELETE FROM ${ident(scopes)} WHERE ${byOrganization.sql}`, [...byOrganization.params]);
      }
    },
  });
}

/** A condition on a collection's root table, as SQL with `$1`... parameters. */
export interface RowCondition {
  readonly sql: string;
  readonly params: readonly DuckDBValue[];
}

/**
 * Deletes the documents matching `where(collection)` from every collection, with their nested items
 * (the child tables, layout/schema.ts), in one transaction taken in turn with the writes (./write.ts): all
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
          deleted[collection] = condition
            ? await deleteFrom(connection, collection, condition, options.dryRun ?? false)
            : 0;
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

async function deleteFrom(
  connection: DuckDBConnection,
  collection: Collection,
  condition: RowCondition,
  dryRun: boolean,
): Promise<number> {
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
    await connection.run(
      `DELETE FROM ${ident(nestedTable(collection, path))} WHERE ${ident(PARENT_ID)} IN (SELECT ${ident(ROW_ID)} FROM ${root} WHERE ${condition.sql})`,
      params,
    );
  }
  return (await connection.run(`DELETE FROM ${root} WHERE ${condition.sql}`, params)).rowsChanged;
}
