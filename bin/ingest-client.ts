/**
 * Registers, lists and revokes machine clients: the gateways and backfill jobs that send documents to
 * `POST /ingest/{collection}` with a client-credentials token of the stack's user pool.
 *
 *   npm run ingest-client -- create --org <uuid> --name <name>   (prints the client id and secret, once)
 *   npm run ingest-client -- list [--org <uuid>]
 *   npm run ingest-client -- revoke <client id>
 *
 * with `--user-pool-id` (env USER_POOL_ID) and `--table` (env TABLE_NAME) from the stack's outputs.
 * `create` makes a Cognito app client with the client-credentials grant and the scope lrs/ingest
 * and writes the client → organization item the token trigger reads; `revoke` marks the item revoked
 * (new tokens are refused at once, tokens already issued by the ingest route's authorizer within its
 * cache time) and deletes the app client.
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import type { ItemTable } from '#shared/locations/item-table';
import {
  findMachineClient,
  listMachineClients,
  type MachineClient,
  registerMachineClient,
  revokeMachineClient,
} from '#shared/ingest/machine-clients';
import { isOrganizationId } from '#shared/organization';
import { cognitoIssuer } from '#commons/clients/cognito-issuer';
import { createDocumentClient } from '#commons/clients/dynamo-client';
import { INGEST_SCOPE } from '#commons/http/identity';
import type { CliOutput } from './import-locations';
import { cliOptions } from './cli/options';
import { parseCommand, runAsProcess } from './cli/run';

interface Flags {
  userPoolId?: string;
  table?: string;
  dynamodbEndpoint?: string;
  region?: string;
}

type Chosen = {
  readonly run: (flags: Flags, table: ItemTable, cognito: CognitoIdentityProviderClient) => Promise<number>;
};

const organization = (v: string): string => {
  if (!isOrganizationId(v)) throw new InvalidArgumentError('must be a UUID');
  return v.toLowerCase();
};

const clientName = (v: string): string => {
  // Cognito's pattern for ClientName.
  if (!/^[\w\s+=,.@-]{1,128}$/.test(v))
    throw new InvalidArgumentError('must be 1 to 128 letters, digits, spaces or + = , . @ - _');
  return v;
};

/** Runs the CLI on `argv` (as process.argv); resolves to the exit code. */
export async function ingestClientCli(
  argv: readonly string[],
  out: CliOutput = console,
  env = process.env,
  now: () => Date = () => new Date(),
): Promise<number> {
  let chosen: Chosen | undefined;
  const program = new Command('ingest-client')
    .description('Register, list and revoke the machine clients that may send documents to POST /ingest/{collection}.')
    .addOption(
      new Option('--user-pool-id <id>', "the stack's user pool (output UserPoolId; env USER_POOL_ID)").default(
        env.USER_POOL_ID,
      ),
    )
    .addOption(cliOptions.table(env.TABLE_NAME, "the stack's table (output TableName; env TABLE_NAME)"))
    .addOption(cliOptions.dynamodbEndpoint(env.DYNAMODB_ENDPOINT))
    .addOption(cliOptions.region(env.AWS_REGION))
    .configureOutput({ writeOut: (s) => out.log(s.trimEnd()), writeErr: (s) => out.error(s.trimEnd()) })
    // Subcommands take these settings when they are added, so before (parseCommand sets it on the program only).
    .exitOverride();
  program
    .command('create')
    .description(
      'Create an app client with the client-credentials grant and the ingest scope, for one organization; prints its id and secret once.',
    )
    .requiredOption('--org <uuid>', 'the organization its documents belong to', organization)
    .requiredOption('--name <name>', 'what to call it, e.g. the site of the gateway', clientName)
    .action((o: { org: string; name: string }) => {
      chosen = { run: (flags, table, cognito) => create(flags, table, cognito, o, out, now) };
    });
  program
    .command('list')
    .description('List the registered machine clients, revoked ones too.')
    .option('--org <uuid>', 'only those of this organization', organization)
    .action((o: { org?: string }) => {
      chosen = { run: (_, table) => list(table, o.org, out) };
    });
  program
    .command('revoke')
    .description('Revoke a machine client: its tokens are refused, its app client deleted.')
    .argument('<client-id>', 'the client id `create` printed')
    .action((clientId: string) => {
      chosen = { run: (flags, table, cognito) => revoke(flags, table, cognito, clientId, out, now) };
    });
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  if (!chosen) {
    out.error(program.helpInformation().trimEnd());
    return 1;
  }
  const flags = program.opts<Flags>();
  if (!flags.table) return fail(out, 'the table is needed: --table or TABLE_NAME (the stack output TableName)');
  const table = new DynamoItemTable(
    createDocumentClient({
      ...(flags.dynamodbEndpoint ? { endpoint: flags.dynamodbEndpoint } : {}),
      ...(flags.region ? { region: flags.region } : {}),
    }),
    flags.table,
  );
  const cognito = new CognitoIdentityProviderClient(flags.region ? { region: flags.region } : {});
  try {
    return await chosen.run(flags, table, cognito);
  } finally {
    cognito.destroy();
  }
}

async function create(
  flags: Flags,
  table: ItemTable,
  cognito: CognitoIdentityProviderClient,
  o: { org: string; name: string },
  out: CliOutput,
  now: () => Date,
): Promise<number> {
  if (!flags.userPoolId)
    return fail(out, 'the user pool is needed: --user-pool-id or USER_POOL_ID (the stack output UserPoolId)');
  // The same registration as POST /ingest-clients (without its item the client could get no token: nothing is left half
  // made).
  const client = await registerMachineClient(
    table,
    cognitoIssuer(cognito, flags.userPoolId, '(the stack output TokenUrl)'),
    { organizationId: o.org, name: o.name, now: now(), scope: INGEST_SCOPE },
  );
  out.log(`client id:     ${client.clientId}`);
  out.log(`client secret: ${client.clientSecret}`);
  out.log(`organization:  ${o.org}`);
  out.log(
    'The secret is shown this once: store it with the gateway now. Tokens: client credentials at the stack output TokenUrl, scope lrs/ingest.',
  );
  return 0;
}

async function list(table: ItemTable, org: string | undefined, out: CliOutput): Promise<number> {
  const clients = (await listMachineClients(table)).filter((c) => org === undefined || c.organizationId === org);
  const row = (c: MachineClient) =>
    [c.clientId, c.organizationId, c.createdAt, c.revokedAt ? `revoked ${c.revokedAt}` : 'active', c.name].join('\t');
  out.log(['client id', 'organization', 'created', 'state', 'name'].join('\t'));
  for (const c of clients) out.log(row(c));
  return 0;
}

async function revoke(
  flags: Flags,
  table: ItemTable,
  cognito: CognitoIdentityProviderClient,
  clientId: string,
  out: CliOutput,
  now: () => Date,
): Promise<number> {
  if (!flags.userPoolId)
    return fail(out, 'the user pool is needed: --user-pool-id or USER_POOL_ID (the stack output UserPoolId)');
  const client = await findMachineClient(table, clientId);
  if (!client) return fail(out, `${clientId} is not a registered machine client (see list)`);
  // The item first: from here on the trigger issues no token and the authorizer takes none (as DELETE
  // /ingest-clients/{clientId}).
  await revokeMachineClient(
    table,
    cognitoIssuer(cognito, flags.userPoolId, ''),
    client.organizationId,
    clientId,
    now(),
  );
  out.log(`revoked ${clientId} (${client.name}, organization ${client.organizationId})`);
  return 0;
}

/**
 * Deletes a machine client's Cognito app client; one already gone is no error (revoke and erase-organization run
 * again).
 */
export async function deleteAppClient(
  cognito: CognitoIdentityProviderClient,
  userPoolId: string,
  clientId: string,
): Promise<void> {
  await cognitoIssuer(cognito, userPoolId, '').remove(clientId);
}

function fail(out: CliOutput, message: string): number {
  out.error(`ingest-client: ${message}`);
  return 1;
}

if (require.main === module) runAsProcess('ingest-client', (argv) => ingestClientCli(argv));
