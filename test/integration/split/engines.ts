import { parseDocument, type DocumentInput } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import type { ReportEngine } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { deleteIndices, indexDocuments, testClient, uniquePrefix, type TestDocument } from '../support/opensearch';

/**
 * Every engine the split tests run on, behind one face: load a set of movement events, get an engine
 * over exactly those, drop them again. OpenSearch indexes under a fresh prefix; DuckDB opens a fresh
 * in-memory database with the test node's bucket limit, so that both refuse the same reports.
 */
export interface EngineHarness {
  readonly name: string;
  load(docs: readonly DocumentInput<'movementEvents'>[]): Promise<LoadedEngine>;
}

export interface LoadedEngine {
  readonly engine: ReportEngine;
  drop(): Promise<void>;
}

const openSearch: EngineHarness = {
  name: 'OpenSearch',
  async load(docs) {
    const client = testClient();
    const prefix = uniquePrefix('split');
    await indexDocuments(client, prefix, { movementEvents: docs as unknown as TestDocument[] });
    return {
      engine: new OpenSearchEngine(client, { indexPrefix: prefix }),
      drop: async () => {
        await deleteIndices(client, prefix);
        await client.close();
      },
    };
  },
};

const duckDb: EngineHarness = {
  name: 'DuckDB',
  async load(docs) {
    const instance = await openDuckDb(':memory:');
    if (docs.length > 0)
      await ingestDocuments(
        instance,
        'movementEvents',
        docs.map((d) => parseDocument('movementEvents', d)),
      );
    return {
      engine: new DuckDbEngine(instance, { maxBuckets: TEST_MAX_BUCKETS }),
      drop: async () => instance.closeSync(),
    };
  },
};

/** The engines available (DuckDB joined once shared/stores/duckdb/report/execute.ts exported one). */
export const ENGINES: readonly EngineHarness[] = [openSearch, duckDb];
