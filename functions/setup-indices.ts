import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { ensureIndexTemplates } from '#shared/report/engines/opensearch/indices';
import { logger } from '#commons/logger';

/** What the stack passes to the custom resource (CloudFormation hands every value over as a string). */
interface IndexSetupProperties {
  readonly Endpoint: string;
  readonly IndexPrefix?: string;
  readonly Shards?: string;
  readonly Replicas?: string;
  /** Changes whenever the templates do, so that CloudFormation calls us again. */
  readonly TemplatesHash?: string;
}

/** The answer the CDK custom resource provider framework expects. */
interface ProviderResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

const credentials = defaultProvider();

function signedClient(endpoint: string): Client {
  return new Client({
    ...AwsSigv4Signer({ region: process.env.AWS_REGION ?? 'us-east-1', service: 'es', getCredentials: credentials }),
    node: endpoint,
    requestTimeout: 30_000,
    maxRetries: 3,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A freshly created domain can refuse connections for a little while after CloudFormation sees it active. */
async function withRetries(action: () => Promise<void>, attempts = 6): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (attempt >= attempts) throw error;
      logger.warn('index setup failed, retrying', { attempt, error: error as Error });
      await sleep(5_000 * attempt);
    }
  }
}

/**
 * Custom resource (CDK provider framework): creates or updates the index templates of every
 * collection through the project's index module. Deleting the resource keeps templates and data;
 * they go with the domain.
 */
export async function handler(event: CloudFormationCustomResourceEvent): Promise<ProviderResponse> {
  const props = event.ResourceProperties as unknown as IndexSetupProperties;
  const prefix = props.IndexPrefix ?? '';
  const physicalId = `index-templates:${prefix || '(none)'}`;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const settings = { shards: Number(props.Shards ?? 1), replicas: Number(props.Replicas ?? 1) };
  logger.info('ensuring index templates', { requestType: event.RequestType, prefix, ...settings });
  const client = signedClient(props.Endpoint);
  await withRetries(() => ensureIndexTemplates(client, prefix, settings));
  return { PhysicalResourceId: physicalId, Data: { IndexPrefix: prefix } };
}
