import { parseDocument } from '#shared/report/documents';
import { DuckDbEngine } from '#shared/report/engines/duckdb/execute';
import { openDuckDb } from '#shared/report/engines/duckdb/open';
import { rebuildRollups } from '#shared/report/engines/duckdb/rollup/maintain';
import { ingestDocuments } from '#shared/report/engines/duckdb/storage/ingest';
import { describeRollupEquality } from '../../../../fixtures/rollup-equality';

/**
 * The rollups' proof of equality on DuckDB (test/fixtures/rollup-equality.ts, shared with
 * OpenSearch's test/integration/rollups/opensearch-rollup-equality.test.ts), in an in-memory database.
 */
describeRollupEquality(
  'DuckDB',
  async (grainMs) => {
    const db = await openDuckDb(':memory:', { rollupGrainMs: grainMs });
    return {
      ingest: (collection, docs) => ingestDocuments(db, collection, docs.map((d, i) => parseDocument(collection, d, `/${i}`))).then(() => undefined),
      rebuild: () => rebuildRollups(db).then(() => undefined),
      rollups: new DuckDbEngine(db, { rollups: true }),
      raw: new DuckDbEngine(db),
      close: async () => db.closeSync(),
    };
  },
  Number(process.env.ROLLUP_RUNS ?? 80),
);
