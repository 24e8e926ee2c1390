import { DEFAULT_LIMITS, type ReportEngine } from '#shared/report/engines/engine';
import { lazy } from './lazy';

/**
 * The OpenSearch engine of this process, built once on first use from the environment:
 * OPENSEARCH_URL (endpoint), OPENSEARCH_AUTH (`sigv4` in AWS, `none` locally; default: sigv4 for an
 * https endpoint when AWS_REGION is set), OPENSEARCH_INDEX_PREFIX, REPORT_TERMS_CAP,
 * OPENSEARCH_REQUEST_CACHE. The OpenSearch client and the SDK credential chain are loaded then.
 */
const openSearchEngine = lazy(async (): Promise<ReportEngine> => {
  const [{ createOpenSearchClient }, { OpenSearchEngine }] = await Promise.all([
    import('./opensearch-client'),
    import('#shared/report/engines/opensearch/execute'),
  ]);
  return new OpenSearchEngine(createOpenSearchClient(process.env), {
    indexPrefix: process.env.OPENSEARCH_INDEX_PREFIX ?? '',
    limits: { termsCap: Number(process.env.REPORT_TERMS_CAP ?? DEFAULT_LIMITS.termsCap) },
    ...(process.env.OPENSEARCH_REQUEST_CACHE ? { requestCache: process.env.OPENSEARCH_REQUEST_CACHE === 'true' } : {}),
  });
});

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
