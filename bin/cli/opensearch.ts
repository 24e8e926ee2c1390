import {
  DescribeDomainCommand,
  OpenSearchClient,
  ResourceNotFoundException,
  type DomainStatus,
} from '@aws-sdk/client-opensearch';
import type { Client } from '@opensearch-project/opensearch';
import { ensureIndexTemplates, ensureRollupIndices, settingsForCluster } from '#shared/stores/opensearch/store';
import { createOpenSearchClient, openSearchAuthOf } from '#commons/clients/opensearch-client';
import { ENV } from '#commons/env';
import type { OpenSearchCliFlags } from './options';

/** Where an OpenSearch cluster answers, and how requests to it are signed. */
export interface OpenSearchConnection {
  /**
   * e.g. `http://localhost:9200`, several nodes comma-separated (`http://a:9200,http://b:9200`), or `https://<domain
   * endpoint>`
   */
  readonly url: string;
  /** `sigv4` for an Amazon OpenSearch Service domain (service `es`), `none` for a cluster you run. */
  readonly auth: 'sigv4' | 'none';
  readonly region?: string;
}

/**
 * The cluster the flags name: `--opensearch-url` as given (signed as the functions decide: an https
 * URL with a region is, unless OPENSEARCH_AUTH=none), or `--domain` resolved with DescribeDomain to its endpoint;
 * undefined when neither.
 */
export async function resolveOpenSearch(
  flags: Omit<OpenSearchCliFlags, 'indexPrefix'>,
): Promise<OpenSearchConnection | undefined> {
  if (flags.opensearchUrl) {
    const auth = openSearchAuthOf({
      [ENV.openSearchUrl]: flags.opensearchUrl,
      [ENV.openSearchAuth]: process.env[ENV.openSearchAuth],
      AWS_REGION: flags.region,
    });
    return { url: flags.opensearchUrl, auth, ...(flags.region ? { region: flags.region } : {}) };
  }
  if (!flags.domain) return undefined;
  if (!flags.region) throw new Error('--domain needs a region: --region or AWS_REGION');
  return { url: `https://${await domainEndpoint(flags.domain, flags.region)}`, auth: 'sigv4', region: flags.region };
}

/**
 * The domain's endpoint (host name, no scheme), from the control plane: the public endpoint, else the
 * VPC one, else the dual-stack one. DescribeDomain:
 * https://docs.aws.amazon.com/opensearch-service/latest/APIReference/API_DescribeDomain.html
 */
export async function domainEndpoint(domain: string, region: string): Promise<string> {
  const client = new OpenSearchClient({ region });
  let status: DomainStatus | undefined;
  try {
    ({ DomainStatus: status } = await client.send(new DescribeDomainCommand({ DomainName: domain })));
  } catch (e) {
    if (e instanceof ResourceNotFoundException)
      throw new Error(`no OpenSearch Service domain named '${domain}' in ${region}`, { cause: e });
    throw new Error(`DescribeDomain ${domain} in ${region} failed: ${(e as Error).message}`, { cause: e });
  } finally {
    client.destroy();
  }
  const endpoint = status?.Endpoint ?? status?.Endpoints?.vpc ?? status?.EndpointV2 ?? status?.Endpoints?.vpcv2;
  if (endpoint) return endpoint;
  if (status?.Deleted) throw new Error(`the OpenSearch Service domain '${domain}' is being deleted`);
  throw new Error(
    `the OpenSearch Service domain '${domain}' has no endpoint yet (still being created?); try again when DescribeDomain shows one`,
  );
}

/**
 * The environment the functions' OpenSearch client reads (functions/commons/clients/opensearch-client.ts) for a
 * connection.
 */
export function openSearchEnv(connection: OpenSearchConnection, indexPrefix: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    [ENV.openSearchUrl]: connection.url,
    [ENV.openSearchAuth]: connection.auth,
    [ENV.openSearchIndexPrefix]: indexPrefix,
    ...(connection.region ? { AWS_REGION: connection.region } : {}),
  };
}

/**
 * A cluster you run gets the service's index templates before anything is written (the seed, the
 * ingest CLI, npm start), with the replicas its data nodes call for now (and existing indices
 * raised to them): the stack's custom resource does this for an AWS domain, whose templates are left
 * alone here.
 */
export async function prepareCluster(
  client: Client,
  connection: OpenSearchConnection,
  indexPrefix: string,
): Promise<void> {
  if (connection.auth === 'none') {
    await ensureIndexTemplates(client, indexPrefix, await settingsForCluster(client));
    await ensureRollupIndices(client, indexPrefix);
  }
}

/** Runs `work` with a client of the connection's, closed afterwards. */
export async function withClient<T>(
  connection: OpenSearchConnection,
  indexPrefix: string,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const client = createOpenSearchClient(openSearchEnv(connection, indexPrefix));
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
