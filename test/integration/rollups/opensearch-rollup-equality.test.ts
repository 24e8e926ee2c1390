import { parseDocument } from '#shared/documents/documents';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { indexDocuments } from '#shared/stores/opensearch/write';
import { rebuildRollups } from '#shared/stores/opensearch/rollups/rebuild';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { describeRollupEquality } from '../../fixtures/rollup-equality';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The rollups' proof of equality on OpenSearch (test/fixtures/rollup-equality.ts, shared with
 * DuckDB's test/unit/stores/duckdb/rollup-equality.test.ts), on the test node: documents
 * written as ingest writes them (marking their grains), rollup rows rebuilt at the grain.
 */
const client = testClient();
afterAll(() => client.close());

describeRollupEquality(
  'OpenSearch',
  async (grainMs) => {
    const prefix = uniquePrefix('rollup-equality');
    await ensureIndexTemplates(client, prefix, { replicas: 0 });
    const options = { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS };
    return {
      ingest: async (collection, docs) => {
        const written = await indexDocuments(
          client,
          collection,
          docs.map((d, i) => parseDocument(collection, d, `/${i}`)),
          { indexPrefix: prefix, refresh: true },
        );
        if (written.failures.length > 0)
          throw new Error(`OpenSearch refused documents: ${JSON.stringify(written.failures.slice(0, 3))}`);
      },
      // Every dirty grain at once, in ranges of up to 40 days: the sparse year would otherwise be ~1,700 ranges of a
      // few requests each.
      rebuild: async () => {
        while (
          (await rebuildRollups(client, prefix, { grainMs, maxGrains: 10_000, mergeGapMs: 40 * 86_400_000 })).more
        );
      },
      rollups: new OpenSearchEngine(client, { ...options, rollups: true, rollupGrainMs: grainMs }),
      raw: new OpenSearchEngine(client, options),
      close: () => deleteIndices(client, prefix),
    };
  },
  // 80: a root range filter on a number, allowed by a loosened matcher, fails at run 50 (hourly) and 62 (15 min).
  Number(process.env.ROLLUP_RUNS ?? 80),
);
