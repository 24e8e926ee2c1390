import { existsSync } from 'node:fs';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { Client } from '@opensearch-project/opensearch';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { createOpenSearchClient } from '#commons/clients/opensearch-client';
import { openSearchEnv, resolveOpenSearch } from './opensearch';
import type { OpenSearchCliFlags } from './options';

/** The documents a maintenance command (retention, erasure) works on: an OpenSearch cluster or the data folder's DuckDB. */
export type DocumentStore =
  | { readonly kind: 'opensearch'; readonly client: Client; readonly indexPrefix: string; readonly description: string; close(): Promise<void> }
  | { readonly kind: 'duckdb'; readonly instance: DuckDBInstance; readonly description: string; close(): Promise<void> };

/**
 * The cluster the flags name (`--opensearch-url`, `--domain`), else the data folder's DuckDB file,
 * which must exist: a maintenance command never creates an empty one where a path was mistyped.
 */
export async function openDocumentStore(flags: OpenSearchCliFlags, duckdbPath: string): Promise<DocumentStore> {
  const connection = await resolveOpenSearch(flags);
  if (connection) {
    const client = createOpenSearchClient(openSearchEnv(connection, flags.indexPrefix));
    return { kind: 'opensearch', client, indexPrefix: flags.indexPrefix, description: `OpenSearch ${connection.url} (prefix '${flags.indexPrefix}')`, close: () => client.close() };
  }
  if (!existsSync(duckdbPath)) throw new Error(`no data folder database at ${duckdbPath}: give --data-dir, or --opensearch-url/--domain`);
  const instance = await openDuckDb(duckdbPath);
  return { kind: 'duckdb', instance, description: `DuckDB ${duckdbPath}`, close: async () => instance.closeSync() };
}
