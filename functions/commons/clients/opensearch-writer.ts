import type { DocumentWriter } from '#shared/report/engines/document-writer';
import { OpenSearchDocumentWriter } from '#shared/report/engines/opensearch/ingest';
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
