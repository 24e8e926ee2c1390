import { DEFAULT_LIMITS, type Store } from '#shared/stores/store';
import { openSearchStore } from '#shared/stores/opensearch/store';
import { createOpenSearchClient } from './opensearch-client';
import { ENV } from '../env';

/**
 * The OpenSearch store from the environment: OPENSEARCH_URL (endpoint), OPENSEARCH_AUTH (`sigv4` in
 * AWS, `none` locally; default: sigv4 for an https endpoint when AWS_REGION is set),
 * OPENSEARCH_INDEX_PREFIX, REPORT_TERMS_CAP, OPENSEARCH_REQUEST_CACHE, OPENSEARCH_MAX_BUCKETS (the
 * domain's search.max_buckets, default 65,535, to refuse a report above it before searching),
 * REPORT_ROLLUPS (`on`: read rollups). One module with the client and the store, so that a bundle
 * loads both as one chunk on first use (./store).
 */
export function openSearchStoreFromEnv(env: NodeJS.ProcessEnv): Store {
  return openSearchStore(createOpenSearchClient(env), {
    indexPrefix: env[ENV.openSearchIndexPrefix] ?? '',
    limits: { termsCap: Number(env[ENV.reportTermsCap] ?? DEFAULT_LIMITS.termsCap) },
    ...(env[ENV.openSearchRequestCache] ? { requestCache: env[ENV.openSearchRequestCache] === 'true' } : {}),
    ...(env[ENV.openSearchMaxBuckets] ? { maxBuckets: Number(env[ENV.openSearchMaxBuckets]) } : {}),
    rollups: env[ENV.rollups] === 'on',
    description: `OpenSearch ${env[ENV.openSearchUrl] ?? ''} (prefix '${env[ENV.openSearchIndexPrefix] ?? ''}')`,
  });
}
