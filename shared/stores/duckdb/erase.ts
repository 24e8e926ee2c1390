import type { DuckDBInstance } from '@duckdb/node-api';
import { COLLECTIONS } from '../../documents/fields';
import type { DeletedDocuments } from '../store';
import { deleteDocuments } from './delete-rows';
import { ident, TABLES } from './layout/schema';

/**
 * Deletes every document of one organization (and its items) from every collection, in one
 * transaction, with its rows of the scopes tables (schema.ts): no item refers to them any more, and
 * the organization's next document is numbered afresh. With `dryRun`, counts and changes nothing.
 */
export function deleteOrganizationRows(instance: DuckDBInstance, run: { readonly organizationId: string; readonly dryRun?: boolean }): Promise<DeletedDocuments> {
  const byOrganization = { sql: `${ident('organizationId')} = $1`, params: [run.organizationId] };
  return deleteDocuments(instance, () => byOrganization, {
    dryRun: run.dryRun ?? false,
    also: async (connection) => {
      for (const collection of COLLECTIONS) {
        const scopes = TABLES[collection].scopes;
        if (scopes) await connection.run(`DELETE FROM ${ident(scopes)} WHERE ${byOrganization.sql}`, [...byOrganization.params]);
      }
    },
  });
}
