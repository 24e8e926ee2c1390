import type { DocumentWriter, ReportEngine, Store } from '#shared/stores/store';
import { lazy } from './lazy';

/**
 * The OpenSearch store of this process, built once on first use from the environment
 * (./opensearch-store: OPENSEARCH_URL, OPENSEARCH_AUTH, ...). The OpenSearch client, the query
 * compiler and the SDK credential chain are loaded then.
 */
const openSearchStore = lazy(
  async (): Promise<Store> => (await import('./opensearch-store')).openSearchStoreFromEnv(process.env),
);

let provided: Promise<Store> | undefined;

/**
 * Puts a ready store in place of the one built from the environment: the local server provides its
 * embedded DuckDB store this way (the one process that holds the file), which keeps DuckDB out of
 * the Lambda bundles; tests provide theirs.
 */
export function provideStore(store: Store): void {
  provided = Promise.resolve(store);
}

/** The document store of this process: the provided one, else OpenSearch from the environment (built once). */
export function store(): Promise<Store> {
  return provided ?? openSearchStore();
}

/** The store's reports (the handlers' default engine). */
export const reportEngine = async (): Promise<ReportEngine> => (await store()).reports;

/** The store's writer (the ingest handler's default). */
export const documentWriter = async (): Promise<DocumentWriter> => (await store()).writer;
