import middy from '@middy/core';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { logger } from '#commons/powertools/logger';
import { observability } from '#commons/powertools/observability';

/** What the stack passes to the custom resource (CloudFormation hands every value over as a string). */
interface IndexSetupProperties {
  readonly Endpoint: string;
  readonly IndexPrefix?: string;
  readonly Shards?: string;
  readonly Replicas?: string;
  /** Changes whenever the templates do, so that CloudFormation calls us again. */
  readonly TemplatesHash?: string;
  /** The retention (months, 0 = off) whose ISM safety-net policy to install; none: ISM is left alone. */
  readonly RetentionMonths?: string;
}

/** The answer the CDK custom resource provider framework expects. */
interface ProviderResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SetupIndicesOptions {
  /** @default 6 */
  readonly attempts?: number;
  /** Wait before retry n is n × this. @default 5000 */
  readonly retryDelayMs?: number;
}

/**
 * Custom resource (CDK provider framework): creates or updates the index templates of every
 * collection through the project's index module. Deleting the resource keeps templates and data;
 * they go with the domain. A freshly created domain can refuse connections for a little while after
 * CloudFormation sees it active, hence the retries.
 */
export function createSetupIndicesHandler(options: SetupIndicesOptions = {}) {
  const attempts = options.attempts ?? 6;
  const delay = options.retryDelayMs ?? 5_000;
  return async (event: CloudFormationCustomResourceEvent): Promise<ProviderResponse> => {
    const props = event.ResourceProperties as unknown as IndexSetupProperties;
    const prefix = props.IndexPrefix ?? '';
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const settings = { shards: Number(props.Shards ?? 1), replicas: Number(props.Replicas ?? 1) };
    logger.info('ensuring index templates', { requestType: event.RequestType, prefix, ...settings });
    // Loaded on use, not at import: the OpenSearch client and the SDK credential chain are most of
    // this bundle's start cost (bench/bundles.ts), and a Delete never needs them.
    const [{ createOpenSearchClient }, { ensureIndexTemplates, ensureIsmPolicy, ensureRollupIndices }] =
      await Promise.all([import('#commons/clients/opensearch-client'), import('#shared/stores/opensearch/store')]);
    // Signed with this function's role (SigV4, service es), like every function of the service.
    const client = createOpenSearchClient({ ...process.env, OPENSEARCH_URL: props.Endpoint, OPENSEARCH_AUTH: 'sigv4' });
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureIndexTemplates(client, prefix, settings);
        // Before any report reads it: see ensureRollupIndices.
        await ensureRollupIndices(client, prefix);
        if (props.RetentionMonths !== undefined)
          await installIsm(() => ensureIsmPolicy(client, prefix, Number(props.RetentionMonths)));
        break;
      } catch (error) {
        if (attempt >= attempts) throw error;
        logger.warn('index setup failed, retrying', { attempt, error: error as Error });
        await sleep(delay * attempt);
      }
    }
    return { PhysicalResourceId: `index-templates:${prefix || '(none)'}`, Data: { IndexPrefix: prefix } };
  };
}

/**
 * Installs the ISM policy; a cluster without the ISM plugin (every Amazon OpenSearch Service domain
 * has it; the integ-test distribution the tests run does not) is logged and passed over, as the
 * retention function works without it.
 */
async function installIsm(install: () => Promise<{ outcome: string; seqNo?: number }>): Promise<void> {
  try {
    logger.info('retention ISM policy', await install());
  } catch (e) {
    const body = (e as { meta?: { statusCode?: number; body?: unknown } }).meta;
    if (body?.statusCode === 400 && /no handler found for uri/.test(JSON.stringify(body.body))) {
      logger.warn('this cluster has no Index State Management plugin: no retention safety net');
      return;
    }
    throw e;
  }
}

export const handler = middy(createSetupIndicesHandler()).use(observability());
