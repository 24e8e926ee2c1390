import { existsSync } from 'node:fs';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { Command, InvalidArgumentError, Option } from 'commander';
import { eraseOrganization, type OrganizationErasureOutcome } from '#shared/erasure/erase-organization';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import type { ItemTable } from '#shared/locations/item-table';
import { isOrganizationId } from '#shared/organization';
import { COLLECTIONS } from '#shared/documents/fields';
import { createDocumentClient } from '#commons/clients/dynamo-client';
import { openDocumentStore } from './cli/document-store';
import { cliOptions, type DataDirFlags, type DynamoCliFlags, type OpenSearchCliFlags } from './cli/options';
import { parseCommand, runAsProcess } from './cli/run';
import type { CliOutput } from './import-locations';
import { deleteAppClient } from './ingest-client';
import { dataPaths, LOCAL_TABLE_NAME } from './local/config';
import { FileItemTable } from './local/file-table';

interface EraseFlags extends DataDirFlags, OpenSearchCliFlags, DynamoCliFlags {
  readonly org: string;
  readonly yes?: boolean;
  readonly userPoolId?: string;
}

/** Exit code of a run without `--yes`: it deleted nothing, which a script must not take for success. */
export const DRY_RUN_EXIT = 2;

const organization = (v: string): string => {
  if (!isOrganizationId(v)) throw new InvalidArgumentError('must be a UUID');
  return v.toLowerCase();
};

/**
 * `npm run erase-organization -- --org <uuid> --yes`: deletes one organization's documents (every
 * collection and month), locations, sensor groups, occupancy entries, machine clients and
 * idempotency records. The documents are in the data folder's DuckDB or the cluster
 * `--opensearch-url`/`--domain` names; the items in the data folder's table or the DynamoDB table
 * `--table` (at `--dynamodb-endpoint`). With `--user-pool-id`, the machine clients' Cognito app
 * clients are deleted too; without, they are listed (they get no token once their items are gone).
 * Without `--yes`, prints what it would delete, deletes nothing and exits with {@link DRY_RUN_EXIT}.
 */
export async function eraseOrganizationCli(
  argv: readonly string[],
  out: CliOutput = console,
  env = process.env,
): Promise<number> {
  const program = new Command('erase-organization')
    .description(
      'Delete every document and table item of one organization (its documents, locations, sensor groups, occupancy entries, machine clients). Without --yes, only show what would be deleted.',
    )
    .requiredOption('--org <uuid>', 'the organization to erase', organization)
    .option('--yes', 'delete; without it nothing is deleted')
    .addOption(cliOptions.dataDir())
    .addOption(cliOptions.opensearchUrl())
    .addOption(cliOptions.domain())
    .addOption(cliOptions.region(env.AWS_REGION))
    .addOption(cliOptions.indexPrefix())
    .addOption(
      cliOptions.table(
        env.TABLE_NAME,
        "DynamoDB table (the stack output TableName; env TABLE_NAME); the data folder's table when neither this nor an endpoint is given",
      ),
    )
    .addOption(cliOptions.dynamodbEndpoint(env.DYNAMODB_ENDPOINT))
    .addOption(
      new Option(
        '--user-pool-id <id>',
        "the stack's user pool (output UserPoolId; env USER_POOL_ID): delete the machine clients' app clients too",
      ).default(env.USER_POOL_ID),
    )
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) })
    .showHelpAfterError();
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<EraseFlags>();
  const dryRun = o.yes !== true;
  const paths = dataPaths(o.dataDir);
  const store = await openDocumentStore(o, paths.duckdb);
  let table: OpenedTable | undefined;
  const cognito = o.userPoolId ? new CognitoIdentityProviderClient(o.region ? { region: o.region } : {}) : undefined;
  try {
    table = openTable(o, paths.locations);
    out.log(`organization ${o.org}: documents in ${store.description}, items in ${table.description}`);
    const outcome = await eraseOrganization(
      {
        table: table.table,
        documents: (organizationId, dry) => store.eraseOrganization({ organizationId, dryRun: dry }),
        ...(cognito && o.userPoolId
          ? { removeClient: (c) => deleteAppClient(cognito, o.userPoolId!, c.clientId) }
          : {}),
      },
      o.org,
      { dryRun },
    );
    report(outcome, { dryRun, appClientsDeleted: cognito !== undefined }, out);
    return dryRun ? DRY_RUN_EXIT : 0;
  } finally {
    cognito?.destroy();
    await table?.close();
    await store.close();
  }
}

interface OpenedTable {
  readonly table: ItemTable;
  readonly description: string;
  close(): Promise<void>;
}

/** The DynamoDB table the flags name, else the data folder's table, which must exist (as its DuckDB file). */
function openTable(flags: DynamoCliFlags, localFile: string): OpenedTable {
  if (flags.table === undefined && flags.dynamodbEndpoint === undefined) {
    if (!existsSync(localFile))
      throw new Error(`no data folder table at ${localFile}: give --data-dir, or --table/--dynamodb-endpoint`);
    const table = FileItemTable.open(localFile);
    return { table, description: localFile, close: async () => table.close() };
  }
  const name = flags.table ?? LOCAL_TABLE_NAME;
  const client = createDocumentClient({
    ...(flags.dynamodbEndpoint ? { endpoint: flags.dynamodbEndpoint } : {}),
    ...(flags.region ? { region: flags.region } : {}),
  });
  return {
    table: new DynamoItemTable(client, name),
    description: `DynamoDB table ${name}${flags.dynamodbEndpoint ? ` at ${flags.dynamodbEndpoint}` : ''}`,
    close: async () => client.destroy(),
  };
}

function report(
  outcome: OrganizationErasureOutcome,
  how: { dryRun: boolean; appClientsDeleted: boolean },
  out: CliOutput,
): void {
  const verb = how.dryRun ? 'would delete' : 'deleted';
  const { items } = outcome;
  out.log(`${verb} documents: ${COLLECTIONS.map((c) => `${outcome.documents[c]} ${c}`).join(', ')}`);
  out.log(
    `${verb} items: ${items.location} locations, ${items.sensorGroup} sensor groups, ${items.occupancy} occupancy entries, ${items.machineClient} machine clients, ${items.idempotency} idempotency records, ${items.locationChange} change log entries, ${items.deletedLocation} deletion records`,
  );
  for (const c of outcome.machineClients) out.log(`${verb} machine client ${c.clientId} (${c.name})`);
  if (outcome.machineClients.length > 0 && !how.appClientsDeleted) {
    out.log(
      `their Cognito app clients remain (no --user-pool-id) and get no token without their items; delete each with: aws cognito-idp delete-user-pool-client --user-pool-id <UserPoolId> --client-id <client id>`,
    );
  }
  if (how.dryRun) out.log('nothing was deleted: run again with --yes to delete');
}

if (require.main === module) runAsProcess('erase-organization', (argv) => eraseOrganizationCli(argv));
