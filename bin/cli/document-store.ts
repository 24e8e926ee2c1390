import { existsSync } from 'node:fs';
import type { Store } from '#shared/stores/store';
import { duckDbStore, openDuckDb } from '#shared/stores/duckdb/store';
import { openSearchStoreFromEnv } from '#commons/clients/opensearch-store';
import { openSearchEnv, resolveOpenSearch } from './opensearch';
import type { OpenSearchCliFlags } from './options';

/**
 * The store a maintenance command (retention, erasure) works on: the cluster the flags name
 * (`--opensearch-url`, `--domain`), else the data folder's DuckDB file, which must exist: a
 * maintenance command never creates an empty one where a path was mistyped.
 */
export async function openDocumentStore(flags: OpenSearchCliFlags, duckdbPath: string): Promise<Store> {
  const connection = await resolveOpenSearch(flags);
  if (connection) return openSearchStoreFromEnv(openSearchEnv(connection, flags.indexPrefix));
  if (!existsSync(duckdbPath))
    throw new Error(`no data folder database at ${duckdbPath}: give --data-dir, or --opensearch-url/--domain`);
  return duckDbStore(await openDuckDb(duckdbPath), { description: `DuckDB ${duckdbPath}` });
}
