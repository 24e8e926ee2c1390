/**
 * Imports locations and their sensor groups from a JSON file into the data folder's table (what
 * `npm start` serves), or a DynamoDB table, locally or in AWS:
 *
 *   npm run import-locations -- --file locations.json [--table lrs] [--dynamodb-endpoint http://127.0.0.1:8000]
 *   npm run import-locations -- --file locations.json --api http://localhost:3000 --token $TOKEN   (an admin's; while
 * npm start runs)
 *
 * The whole file is validated first (the same zod schemas as the table's data, then the checks across
 * values); a bad file writes nothing. A re-run of a good file changes nothing.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { ValidationError } from '#shared/errors';
import { applyImport, type ImportResult, validateImportFile } from '#shared/locations/import';
import { ApiImportError, importThroughApi } from './import/api-import';
import { cliOptions } from './cli/options';
import { parseCommand, runAsProcess } from './cli/run';
import { dataPaths } from './local/config';
import { openLocationStore } from './local/stores';

export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

interface Options {
  file: string;
  dataDir: string;
  table?: string;
  dynamodbEndpoint?: string;
  endpoint?: string;
  region?: string;
  actor?: string;
  createTable?: boolean;
  dryRun?: boolean;
  reuseDeletedIds?: boolean;
  api?: string;
  token?: string;
}

/** Runs the CLI on `argv` (as process.argv); resolves to the exit code. */
export async function importLocationsCli(
  argv: readonly string[],
  out: CliOutput = console,
  env = process.env,
): Promise<number> {
  const program = new Command('import-locations')
    .description('Import locations and sensor groups from a JSON file ({ "locations": [...] }).')
    .requiredOption('-f, --file <path>', 'JSON file to import')
    .addOption(cliOptions.dataDir(env.DATA_DIR ?? '.data'))
    .addOption(
      cliOptions.table(
        env.TABLE_NAME,
        "DynamoDB table (env TABLE_NAME); the data folder's table when neither this nor an endpoint is given",
      ),
    )
    .addOption(cliOptions.dynamodbEndpoint(env.DYNAMODB_ENDPOINT))
    // The name the README documented before --dynamodb-endpoint, the flag the other CLIs share.
    .addOption(new Option('--endpoint <url>').hideHelp())
    .addOption(cliOptions.region(env.AWS_REGION))
    .option('--actor <id>', 'written as createdBy/updatedBy of what this import creates or changes')
    .option('--create-table', 'create the DynamoDB table first if it does not exist (local endpoints)')
    .option('--dry-run', 'validate the file and print what would be imported, without writing')
    .addOption(
      cliOptions
        .api(
          "import through the administration API of a running service at this base URL (npm start's, or the stack output ApiUrl) instead of writing a table",
        )
        .conflicts(['table', 'dynamodbEndpoint']),
    )
    .addOption(
      cliOptions.token(
        'LRS_TOKEN',
        "with --api: an admin's token (npm run token -- --org <uuid> --role admin, locally; env LRS_TOKEN)",
      ),
    )
    .option(
      '--reuse-deleted-ids',
      "create locations with the ids of deleted ones (their documents then count as the new location's); refused otherwise",
    )
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) });
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const options = program.opts<Options>();

  let entries: ReturnType<typeof validateImportFile>;
  try {
    entries = validateImportFile(JSON.parse(readFileSync(options.file, 'utf8')));
  } catch (e) {
    if (e instanceof ValidationError) {
      out.error(`${options.file} is invalid; nothing was written:`);
      for (const error of e.errors) out.error(`  ${error.path || '/'}: ${error.message}`);
    } else out.error(`${options.file}: ${(e as Error).message}; nothing was written`);
    return 1;
  }
  if (options.dryRun) {
    for (const e of entries)
      out.log(`would import ${e.input.organizationId}/${e.id}${e.generatedId ? ' (generated id)' : ''}`);
    return 0;
  }

  if (options.api) {
    if (!options.token) {
      out.error("import-locations: --api needs --token (an admin's token; env LRS_TOKEN)");
      return 1;
    }
    try {
      report(
        out,
        await importThroughApi(entries, {
          api: options.api,
          token: options.token,
          reuseDeletedIds: options.reuseDeletedIds ?? false,
        }),
      );
      return 0;
    } catch (e) {
      if (!(e instanceof ApiImportError)) {
        out.error(`import failed: ${(e as Error).message} (a re-run completes it)`);
        return 1;
      }
      out.error(
        `import stopped at ${e.locationId} (${e.written} written before it; a re-run after the fix completes it): ${e.status} ${e.problem.detail ?? ''}`,
      );
      for (const error of e.problem.errors ?? []) out.error(`  ${error.path}: ${error.message}`);
      return 1;
    }
  }

  let locations: Awaited<ReturnType<typeof openLocationStore>>;
  try {
    locations = await openLocationStore({
      ...(options.table ? { table: options.table } : {}),
      ...((options.dynamodbEndpoint ?? options.endpoint)
        ? { dynamodbEndpoint: options.dynamodbEndpoint ?? options.endpoint }
        : {}),
      ...(options.region ? { region: options.region } : {}),
      createTable: options.createTable ?? false,
      localFile: dataPaths(options.dataDir).locations,
    });
  } catch (e) {
    out.error(`import failed: ${(e as Error).message}; nothing was written`);
    return 1;
  }
  try {
    report(
      out,
      await applyImport(locations.store, entries, {
        now: new Date(),
        actor: options.actor ?? null,
        reuseDeletedIds: options.reuseDeletedIds ?? false,
      }),
    );
    return 0;
  } catch (e) {
    if (e instanceof ValidationError) {
      out.error(`${options.file} names deleted locations; nothing was written:`);
      for (const error of e.errors) out.error(`  ${error.path}: ${error.message}`);
    } else out.error(`import failed: ${(e as Error).message} (a re-run completes it)`);
    return 1;
  } finally {
    await locations.close();
  }
}

function report(out: CliOutput, results: readonly ImportResult[]): void {
  for (const r of results)
    out.log(
      `${r.outcome.padEnd(9)} ${r.organizationId}/${r.id} (sensor groups: ${r.groupsWritten} written, ${r.groupsDeleted} deleted)`,
    );
  const count = (o: string) => results.filter((r) => r.outcome === o).length;
  const recreated = count('recreated');
  out.log(
    `${results.length} locations: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged${recreated > 0 ? `, ${recreated} re-created over deleted ids` : ''}`,
  );
}

if (require.main === module) runAsProcess('import-locations', importLocationsCli);
