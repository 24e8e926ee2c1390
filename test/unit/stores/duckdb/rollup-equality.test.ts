import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { rebuildRollups } from '#shared/stores/duckdb/rollups/rebuild';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { describeRollupEquality } from '../../../fixtures/rollup-equality';

/**
 * The rollups' proof of equality on DuckDB (test/fixtures/rollup-equality.ts, shared with
 * OpenSearch's test/integration/rollups/opensearch-rollup-equality.test.ts), in an in-memory database.
 */
describeRollupEquality(
  'DuckDB',
  async (grainMs) => {
    const db = await openDuckDb(':memory:', { rollupGrainMs: grainMs });
    return {
      ingest: (collection, docs) =>
        ingestDocuments(
          db,
          collection,
          docs.map((d, i) => parseDocument(collection, d, `/${i}`)),
        ).then(() => undefined),
      rebuild: () => rebuildRollups(db).then(() => undefined),
      rollups: new DuckDbEngine(db, { rollups: true }),
      raw: new DuckDbEngine(db),
      close: async () => db.closeSync(),
    };
  },
  Number(process.env.ROLLUP_RUNS ?? 80),
);
