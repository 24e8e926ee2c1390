import { Command } from 'commander';
import { benchBundlesCli } from './bundles';
import { benchDuckDb } from './duckdb';
import { benchHostile } from './hostile';
import { benchReportOverhead } from './report-overhead';
import { benchSplit } from './split';

/** `npm run bench [-- <name>]`: runs one benchmark, or all of them. Figures go to the README. */
const benches: Record<string, () => Promise<void>> = {
  'report-overhead': benchReportOverhead,
  split: benchSplit,
  duckdb: benchDuckDb,
  bundles: () => benchBundlesCli(31),
  hostile: benchHostile,
};

const program = new Command()
  .name('bench')
  .argument('[name]', `one of: ${Object.keys(benches).join(', ')} (default: all)`)
  .action(async (name?: string) => {
    if (name && !benches[name]) program.error(`unknown benchmark '${name}'; known: ${Object.keys(benches).join(', ')}`);
    for (const [key, run] of Object.entries(benches)) if (!name || key === name) await run();
  });

program.parseAsync().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
