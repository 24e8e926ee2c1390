import type { ReportEngine } from '#shared/stores/store';
import { lazy } from './lazy';

/**
 * The OpenSearch engine of this process, built once on first use from the environment
 * (./opensearch-engine: OPENSEARCH_URL, OPENSEARCH_AUTH, ...). The OpenSearch client, the query
 * compiler and the SDK credential chain are loaded then.
 */
const openSearchEngine = lazy(async (): Promise<ReportEngine> => (await import('./opensearch-engine')).openSearchEngineFromEnv(process.env));

let provided: Promise<ReportEngine> | undefined;

/**
 * Puts a ready engine in place of the one built from the environment: the local server provides its
 * embedded DuckDB engine this way, which keeps DuckDB out of the Lambda bundles.
 */
export function provideReportEngine(engine: ReportEngine): void {
  provided = Promise.resolve(engine);
}

/** The report engine of this process: the provided one, else OpenSearch from the environment (built once). */
export function reportEngine(): Promise<ReportEngine> {
  return provided ?? openSearchEngine();
}
