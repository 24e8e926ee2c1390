import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { DEFAULT_LIMITS, type ReportEngine } from '#shared/report/engines/engine';
import { OpenSearchEngine } from '#shared/report/engines/opensearch/execute';

/**
 * The report engine of this process, built once on first use from the environment:
 * OPENSEARCH_URL (endpoint), OPENSEARCH_AUTH (`sigv4` in AWS, `none` locally; default: sigv4 for an
 * https endpoint when AWS_REGION is set), OPENSEARCH_INDEX_PREFIX, REPORT_TERMS_CAP,
 * OPENSEARCH_REQUEST_CACHE.
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
  engine ??= new OpenSearchEngine(createOpenSearchClient(process.env), {
    indexPrefix: process.env.OPENSEARCH_INDEX_PREFIX ?? '',
    limits: { termsCap: Number(process.env.REPORT_TERMS_CAP ?? DEFAULT_LIMITS.termsCap) },
    ...(process.env.OPENSEARCH_REQUEST_CACHE ? { requestCache: process.env.OPENSEARCH_REQUEST_CACHE === 'true' } : {}),
  });
  return engine;
}

/** `sigv4` for an AWS domain, `none` for a local node: OPENSEARCH_AUTH, else https + AWS_REGION means AWS. */
export function openSearchAuthOf(env: NodeJS.ProcessEnv): 'sigv4' | 'none' {
  if (env.OPENSEARCH_AUTH === 'sigv4' || env.OPENSEARCH_AUTH === 'none') return env.OPENSEARCH_AUTH;
  return env.OPENSEARCH_URL?.startsWith('https://') && env.AWS_REGION ? 'sigv4' : 'none';
}

/**
 * A client for the domain. In AWS every request is signed with SigV4 (service `es`) using the
 * function's role from the default credential chain (cached and refreshed by the provider).
 */
export function createOpenSearchClient(env: NodeJS.ProcessEnv): Client {
  const node = env.OPENSEARCH_URL;
  if (!node) throw new Error('OPENSEARCH_URL is not set');
  const region = env.AWS_REGION;
  const auth = openSearchAuthOf(env);
  const common = { node, requestTimeout: 25_000, maxRetries: 1 };
  if (auth !== 'sigv4') return new Client(common);
  if (!region) throw new Error('OPENSEARCH_AUTH=sigv4 needs AWS_REGION');
  const credentials = defaultProvider();
  return new Client({ ...AwsSigv4Signer({ region, service: 'es', getCredentials: () => credentials() }), ...common });
}
