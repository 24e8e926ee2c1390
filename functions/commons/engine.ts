import { Client } from '@opensearch-project/opensearch';
import { DEFAULT_LIMITS, type ReportEngine } from '#shared/report/engines/engine';
import { OpenSearchEngine } from '#shared/report/engines/opensearch/execute';

/**
 * The report engine of this process, built once on first use from the environment:
 * OPENSEARCH_URL (endpoint), OPENSEARCH_INDEX_PREFIX, REPORT_TERMS_CAP, OPENSEARCH_REQUEST_CACHE.
 */
let engine: ReportEngine | undefined;

/**
 * Puts a ready engine in place of the one built from the environment: the local server provides its
 * embedded DuckDB engine this way, which keeps DuckDB out of the Lambda bundles.
 */
export function provideReportEngine(provided: ReportEngine): void {
  engine = provided;
}

export function reportEngine(): ReportEngine {
  engine ??= new OpenSearchEngine(openSearchClient(), {
    indexPrefix: process.env.OPENSEARCH_INDEX_PREFIX ?? '',
    limits: { termsCap: Number(process.env.REPORT_TERMS_CAP ?? DEFAULT_LIMITS.termsCap) },
    ...(process.env.OPENSEARCH_REQUEST_CACHE ? { requestCache: process.env.OPENSEARCH_REQUEST_CACHE === 'true' } : {}),
  });
  return engine;
}

function openSearchClient(): Client {
  const node = process.env.OPENSEARCH_URL;
  if (!node) throw new Error('OPENSEARCH_URL is not set');
  return new Client({ node, requestTimeout: 25_000, maxRetries: 1 });
}
