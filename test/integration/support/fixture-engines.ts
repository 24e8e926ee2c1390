import type { DuckDBInstance } from '@duckdb/node-api';
import type { Client } from '@opensearch-project/opensearch';
import { parseDocument, type ReportDocument } from '#shared/documents/documents';
import { DEFAULT_LIMITS, type EngineLimits, type ReportEngine } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { indexDocuments } from '#shared/stores/opensearch/write';
import { COLLECTIONS, type Collection } from '#shared/documents/fields';
import { FIXTURE_DOCUMENTS } from '../../fixtures/documents';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';

/**
 * The hand-made documents of test/fixtures/documents.ts (and any `extra`) in both engines: indexed
 * into the test OpenSearch node under `prefix` and ingested into a new in-memory DuckDB, the same
 * parsed documents.
 */
export async function loadFixtureEngines(
  client: Client,
  prefix: string,
  extra: Partial<FixtureDocuments> = {},
): Promise<DuckDBInstance> {
  await ensureIndexTemplates(client, prefix, { replicas: 0 });
  const duckdb = await openDuckDb(':memory:');
  for (const collection of COLLECTIONS) {
    const docs = documentsOf(collection, extra[collection] ?? []);
    const indexed = await indexDocuments(client, collection, docs, { indexPrefix: prefix, refresh: true });
    if (indexed.failures.length > 0)
      throw new Error(`OpenSearch refused fixtures: ${JSON.stringify(indexed.failures)}`);
    await ingestDocuments(duckdb, collection, docs);
  }
  return duckdb;
}

type FixtureDocuments = typeof FIXTURE_DOCUMENTS;

function documentsOf<C extends Collection>(collection: C, extra: FixtureDocuments[C]): ReportDocument<C>[] {
  return [...FIXTURE_DOCUMENTS[collection], ...extra].map((doc, i) => parseDocument(collection, doc, `/${i}`));
}

/**
 * Both engines over the fixtures, with the same limits (the bucket limit is the test node's); and
 * each reading its rollups where the matcher allows (once the engine's rebuild ran).
 */
export function fixtureEngines(
  client: Client,
  prefix: string,
  duckdb: DuckDBInstance,
  limits: EngineLimits = DEFAULT_LIMITS,
): { opensearch: ReportEngine; duckdb: ReportEngine; opensearchRollups: ReportEngine; duckdbRollups: ReportEngine } {
  const options = { indexPrefix: prefix, limits, maxBuckets: TEST_MAX_BUCKETS };
  return {
    opensearch: new OpenSearchEngine(client, options),
    duckdb: new DuckDbEngine(duckdb, { limits, maxBuckets: TEST_MAX_BUCKETS }),
    opensearchRollups: new OpenSearchEngine(client, { ...options, rollups: true }),
    duckdbRollups: new DuckDbEngine(duckdb, { limits, maxBuckets: TEST_MAX_BUCKETS, rollups: true }),
  };
}
