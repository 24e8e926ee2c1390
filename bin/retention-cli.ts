import { Command } from 'commander';
import { COLLECTIONS } from '#shared/documents/fields';
import {
  DEFAULT_RETENTION_MONTHS,
  firstKeptMonth,
  formatMonth,
  MAX_RETENTION_MONTHS,
} from '#shared/documents/retention';
import { openDocumentStore } from './cli/document-store';
import { cliOptions, wholeNumber, type DataDirFlags, type OpenSearchCliFlags } from './cli/options';
import { parseCommand, runAsProcess } from './cli/run';
import { dataPaths } from './local/config';

interface RetentionFlags extends DataDirFlags, OpenSearchCliFlags {
  readonly months: number;
  readonly dryRun?: boolean;
}

export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

/**
 * `npm run retention -- --months 25 [--dry-run]`: deletes the documents of the months older than the
 * retention (the current month and `--months` before it are kept), as the stack's daily job does in
 * AWS: from the data folder's DuckDB, or from the monthly indices of the cluster `--opensearch-url` or
 * `--domain` names.
 */
export async function retentionCli(argv: readonly string[], out: CliOutput = console, now = Date.now): Promise<number> {
  const program = new Command('retention')
    .description(
      'Delete the documents of the months older than the retention (the current month and --months before it are kept).',
    )
    .option(
      '--months <n>',
      `months kept besides the current one (1-${MAX_RETENTION_MONTHS})`,
      wholeNumber(1, MAX_RETENTION_MONTHS),
      DEFAULT_RETENTION_MONTHS,
    )
    .option('--dry-run', 'print what would be deleted, delete nothing')
    .addOption(cliOptions.dataDir())
    .addOption(cliOptions.opensearchUrl())
    .addOption(cliOptions.domain())
    .addOption(cliOptions.region())
    .addOption(cliOptions.indexPrefix())
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) })
    .showHelpAfterError();
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<RetentionFlags>();
  const run = { months: o.months, nowMs: now(), dryRun: o.dryRun ?? false };
  const verb = run.dryRun ? 'would delete' : 'deleted';
  const store = await openDocumentStore(o, dataPaths(o.dataDir).duckdb);
  try {
    out.log(`${store.description}: keeping ${formatMonth(firstKeptMonth(run.nowMs, run.months)!)} and later`);
    const outcome = await store.applyRetention(run);
    if (outcome.kind === 'indices') {
      for (const i of outcome.expired) out.log(`${verb} ${i.index}`);
      out.log(`${outcome.expired.length} indices ${verb}, ${outcome.kept.length} kept`);
    } else {
      out.log(`${verb} ${COLLECTIONS.map((c) => `${outcome.deleted[c]} ${c}`).join(', ')}`);
    }
    return 0;
  } finally {
    await store.close();
  }
}

if (require.main === module) runAsProcess('retention', retentionCli);
