import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { ENV } from '../env';

/** `sigv4` for an AWS domain, `none` for a local node: OPENSEARCH_AUTH, else https + AWS_REGION means AWS. */
export function openSearchAuthOf(env: NodeJS.ProcessEnv): 'sigv4' | 'none' {
  const auth = env[ENV.openSearchAuth];
  if (auth === 'sigv4' || auth === 'none') return auth;
  return env[ENV.openSearchUrl]?.startsWith('https://') && env.AWS_REGION ? 'sigv4' : 'none';
}

/**
 * A client for the domain. In AWS every request is signed with SigV4 (service `es`) using the
 * function's role from the default credential chain (cached and refreshed by the provider).
 * Synchronous, for the CLIs and tests; the functions reach it through `reportEngine()` in ./engine
 * (or `import()` it), so that the client is loaded on first use, not at start.
 */
export function createOpenSearchClient(env: NodeJS.ProcessEnv): Client {
  const node = env[ENV.openSearchUrl];
  if (!node) throw new Error('OPENSEARCH_URL is not set');
  const region = env.AWS_REGION;
  const auth = openSearchAuthOf(env);
  const common = { node, requestTimeout: 25_000, maxRetries: 1 };
  if (auth !== 'sigv4') return new Client(common);
  if (!region) throw new Error('OPENSEARCH_AUTH=sigv4 needs AWS_REGION');
  const credentials = defaultProvider();
  return new Client({ ...AwsSigv4Signer({ region, service: 'es', getCredentials: () => credentials() }), ...common });
}
