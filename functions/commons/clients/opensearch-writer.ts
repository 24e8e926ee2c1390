import type { DocumentWriter } from '#shared/stores/write';
import { OpenSearchDocumentWriter } from '#shared/stores/opensearch/write';
import { createOpenSearchClient } from './opensearch-client';
import { ENV } from '../env';

/**
 * The OpenSearch document writer from the environment (OPENSEARCH_URL, OPENSEARCH_AUTH,
 * OPENSEARCH_INDEX_PREFIX): one module with the client and the bulk writer, loaded as one chunk on
 * first use (./document-writer).
 */
export function openSearchWriterFromEnv(env: NodeJS.ProcessEnv): DocumentWriter {
  return new OpenSearchDocumentWriter(createOpenSearchClient(env), { indexPrefix: env[ENV.openSearchIndexPrefix] ?? '' });
}
