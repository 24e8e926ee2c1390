import type { Client } from '@opensearch-project/opensearch';
import type { Store } from '../store';
import { OpenSearchEngine, type OpenSearchEngineOptions } from './report/execute';
import { OpenSearchDocumentWriter } from './write';

export { compileSearch } from './report/compile';
export { OpenSearchEngine, type OpenSearchEngineOptions } from './report/execute';
export { INDEX_BASE, indexNameFor, replicasFor } from './layout/indices';
export { ensureIndexTemplates, indexTemplates, servicePatterns, settingsForCluster } from './layout/templates';
export { ensureIsmPolicy, ismPolicyId } from './layout/ism';
export { dirtyIndexName, rollupIndexName, rollupIndexNames } from './layout/rollup-indices';
export { ensureRollupIndices } from './rollups/marks';
export { toSource } from './write';

export interface OpenSearchStoreOptions extends OpenSearchEngineOptions {
  /** Where the documents are, for messages. @default `OpenSearch (prefix '<indexPrefix>')` */
  readonly description?: string;
}

/**
 * The OpenSearch store (the service's in AWS) over a client the caller made: reports, the writer,
 * erasure, retention and rollup upkeep on the indices of `indexPrefix`. The parts that only jobs
 * use are loaded when first called, so that a function that only reports (or only writes) does not
 * load them. The public entry of `shared/stores/opensearch/`: outside `shared/`, code imports this
 * file alone (the exports above are what the CDK app, the CLIs and the benchmarks need by name).
 */
export function openSearchStore(client: Client, options: OpenSearchStoreOptions = {}): Store {
  const prefix = options.indexPrefix ?? '';
  return {
    reports: new OpenSearchEngine(client, options),
    writer: new OpenSearchDocumentWriter(client, { indexPrefix: prefix }),
    eraseOrganization: async (run) => (await import('./erase')).deleteOrganizationDocuments(client, prefix, run),
    applyRetention: async (run) => (await import('./retention')).deleteExpiredIndices(client, prefix, run),
    rebuildRollups: async () =>
      (await import('./rollups/rebuild')).rebuildRollups(
        client,
        prefix,
        options.rollupGrainMs === undefined ? {} : { grainMs: options.rollupGrainMs },
      ),
    description: options.description ?? `OpenSearch (prefix '${prefix}')`,
    close: () => client.close(),
  };
}
