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
 * The node URLs of OPENSEARCH_URL: one (an AWS domain's endpoint, a single node) or several, comma
 * separated (every node of a cluster you run: `npm start -- --opensearch-url a,b,c`).
 */
export function openSearchNodes(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
}

/**
 * Attempts after the first: one on a single URL (a connection reset); with several nodes, one on
 * each other node. The client's pool (opensearch-js 3, lib/Transport.js and lib/pool/ConnectionPool.js)
 * round-robins over the nodes it holds alive; a connection error, a timeout, or a 502/503/504 marks
 * that node dead (skipped until its resurrect timeout, 60 s doubling per failure, passes and a ping
 * answers) and retries the request on the next alive node while attempts remain. No sniffing: the
 * nodes named are the nodes used (an AWS domain's endpoint is a load balancer, sniffing there finds
 * addresses the caller cannot reach).
 */
export const retriesFor = (nodes: number): number => Math.max(1, nodes - 1);

/**
 * A client for the domain. In AWS every request is signed with SigV4 (service `es`) using the
 * function's role from the default credential chain (cached and refreshed by the provider).
 * Synchronous, for the CLIs and tests; the functions reach it through `store()` in ./store
 * (or `import()` it), so that the client is loaded on first use, not at start.
 */
export function createOpenSearchClient(env: NodeJS.ProcessEnv): Client {
  const nodes = openSearchNodes(env[ENV.openSearchUrl]);
  if (nodes.length === 0) throw new Error('OPENSEARCH_URL is not set');
  const region = env.AWS_REGION;
  const auth = openSearchAuthOf(env);
  const common = { nodes, requestTimeout: 25_000, maxRetries: retriesFor(nodes.length) };
  if (auth !== 'sigv4') return new Client(common);
  if (!region) throw new Error('OPENSEARCH_AUTH=sigv4 needs AWS_REGION');
  const credentials = defaultProvider();
  return new Client({ ...AwsSigv4Signer({ region, service: 'es', getCredentials: () => credentials() }), ...common });
}
