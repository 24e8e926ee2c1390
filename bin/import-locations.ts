/**
 * Imports locations and their sensor groups from a JSON file into the table, locally or in AWS:
 *
 *   npm run import-locations -- --file locations.json [--table lrs] [--endpoint http://127.0.0.1:8000]
 *
 * The whole file is validated first (the same zod schemas as the table's data, then the checks across
 * values); a bad file writes nothing. A re-run of a good file changes nothing.
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Command } from 'commander';
import { ValidationError } from '#shared/errors';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { ensureTable } from '#shared/locations/table';
import { createDocumentClient } from '#commons/clients/dynamo-client';

export interface CliOutput {
  log(line: string): void;
  error(line: string): void;
}

interface Options {
  file: string;
  table?: string;
  endpoint?: string;
  region?: string;
  actor?: string;
  createTable?: boolean;
  dryRun?: boolean;
}

/** Runs the CLI on `argv` (as process.argv); resolves to the exit code. */
export async function importLocationsCli(argv: readonly string[], out: CliOutput = console, env = process.env): Promise<number> {
  const program = new Command('import-locations')
    .description('Import locations and sensor groups from a JSON file ({ "locations": [...] }).')
    .requiredOption('-f, --file <path>', 'JSON file to import')
    .option('-t, --table <name>', 'table name (default: $TABLE_NAME)')
    .option('-e, --endpoint <url>', 'local DynamoDB endpoint (default: $DYNAMODB_ENDPOINT; AWS when unset)')
    .option('-r, --region <region>', 'AWS region (default: $AWS_REGION)')
    .option('--actor <id>', 'written as createdBy/updatedBy of what this import creates or changes')
    .option('--create-table', 'create the table first if it does not exist (local endpoints)')
    .option('--dry-run', 'validate the file and print what would be imported, without writing')
    .exitOverride()
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) });
  let options: Options;
  try {
    options = program.parse([...argv]).opts<Options>();
  } catch (e) {
    return (e as { exitCode?: number }).exitCode ?? 2;
  }

  let entries;
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
    for (const e of entries) out.log(`would import ${e.input.organizationId}/${e.id}${e.generatedId ? ' (generated id)' : ''}`);
    return 0;
  }

  const table = options.table ?? env.TABLE_NAME;
  if (!table) {
    out.error('no table: pass --table or set TABLE_NAME');
    return 2;
  }
  const endpoint = options.endpoint ?? env.DYNAMODB_ENDPOINT;
  const connection = { ...(endpoint ? { endpoint } : {}), ...(options.region ? { region: options.region } : {}) };
  const client = createDocumentClient(connection);
  try {
    if (options.createTable) await ensureTable(client as unknown as DynamoDBClient, table);
    const results = await applyImport(new DynamoLocationStore(client, table), entries, { now: new Date(), actor: options.actor ?? null });
    for (const r of results) {
      out.log(`${r.outcome.padEnd(9)} ${r.organizationId}/${r.id} (sensor groups: ${r.groupsWritten} written, ${r.groupsDeleted} deleted)`);
    }
    const count = (o: string) => results.filter((r) => r.outcome === o).length;
    out.log(`${results.length} locations: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged`);
    return 0;
  } catch (e) {
    out.error(`import failed: ${(e as Error).message} (a re-run completes it)`);
    return 1;
  } finally {
    client.destroy();
  }
}

if (require.main === module) {
  void importLocationsCli(process.argv).then((code) => {
    process.exitCode = code;
  });
}
