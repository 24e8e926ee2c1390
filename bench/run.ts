import { Command } from 'commander';
import { benchBundleSizesCli, benchBundlesCli } from './bundles';
import { benchClusterScale } from './cluster-scale';
import { benchCompression } from './compression';
import { benchDuckDb } from './duckdb';
import { benchExplorer } from './explorer';
import { benchFixedCost } from './fixed-cost';
import { benchHistoryLoop } from './history-loop';
import { benchHostile } from './hostile';
import { benchIngest, benchIngestIdentity } from './ingest';
import { benchLocalThroughput } from './local-throughput';
import { benchReportOverhead } from './report-overhead';
import { benchRollups } from './rollups';
import { benchRollupsOpenSearch } from './rollups-opensearch';
import { benchSplit } from './split';

/** `npm run bench [-- <name>]`: runs one benchmark, or all of them. Figures go to the README. */
const benches: Record<string, () => Promise<void>> = {
  'report-overhead': benchReportOverhead,
  split: benchSplit,
  duckdb: benchDuckDb,
  bundles: () => benchBundlesCli(31),
  hostile: benchHostile,
  'local-throughput': benchLocalThroughput,
  compression: benchCompression,
  ingest: benchIngest,
  'ingest-identity': benchIngestIdentity,
  // BENCH_ROLLUP_ENGINES=duckdb or =opensearch runs one engine's part.
  rollups: async () => {
    const engines = (process.env.BENCH_ROLLUP_ENGINES ?? 'duckdb,opensearch').split(',');
    if (engines.includes('duckdb')) await benchRollups();
    if (engines.includes('opensearch')) await benchRollupsOpenSearch();
  },
  explorer: benchExplorer,
  'history-loop': benchHistoryLoop,
  'fixed-cost': benchFixedCost,
  // Starts a 3-node cluster of its own (docs/scale.md).
  'cluster-scale': benchClusterScale,
};

/** Run only when named: they start clusters of their own. */
const NAMED_ONLY = new Set(['cluster-scale']);

const program = new Command()
  .name('bench')
  .argument('[name]', `one of: ${Object.keys(benches).join(', ')} (default: all)`)
  .option('--sizes-only', 'bundles: report the bundle sizes only, no timing (the CI check)')
  .action(async (name: string | undefined, options: { sizesOnly?: boolean }) => {
    if (name && !benches[name]) program.error(`unknown benchmark '${name}'; known: ${Object.keys(benches).join(', ')}`);
    if (options.sizesOnly) {
      if (name !== 'bundles')
        program.error('--sizes-only applies to the bundles benchmark: npm run bench -- bundles --sizes-only');
      return benchBundleSizesCli();
    }
    for (const [key, run] of Object.entries(benches)) if (name ? key === name : !NAMED_ONLY.has(key)) await run();
  });

program.parseAsync().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
