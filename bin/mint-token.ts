/**
 * Prints a development JWT for one organization, signed with the local development key
 * (`.data/dev-key.json`, created on first use), for the local server:
 *
 *   npm run token -- --org 6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f
 *   npm run token -- --org 6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f --role admin     (may manage locations and gateways)
 *   npm run token -- --org 6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f --locations berlin-mall,nyc-store   (sees those two
 * only)
 *   npm run token -- --org 6f1c2b4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f --scope ingest   (a gateway's: may only ingest)
 *   curl -H "Authorization: Bearer $(npm run -s token -- --org <uuid>)" localhost:3000/locations
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadOrCreateDevKey } from './local/auth/dev-key';
import { isOrganizationId } from '#shared/organization';
import { DEFAULT_TOKEN_TTL_SECONDS, mintDevToken } from './local/auth/tokens';
import {
  groupsClaim,
  INGEST_SCOPE,
  locationsClaim,
  MAX_GRANTED_LOCATIONS,
  organizationClaim,
  ROLE_GROUPS,
} from '#commons/http/identity';
import { LOCATION_ID } from '#shared/locations/model';
import { cliOptions } from './cli/options';
import { parseCommand, runAsProcess } from './cli/run';
import { dataPaths } from './local/config';

/** `a,b` → the ids, each a location id (the form the handlers accept in a grant), at least one. */
export function parseLocationIds(text: string): string[] {
  const ids = [
    ...new Set(
      text
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
  if (ids.length === 0) throw new InvalidArgumentError('must name at least one location id (a,b)');
  const bad = ids.find((id) => !LOCATION_ID.test(id));
  if (bad !== undefined) throw new InvalidArgumentError(`'${bad}' is not a location id (letters, digits, . _ ~ -)`);
  if (ids.length > MAX_GRANTED_LOCATIONS)
    throw new InvalidArgumentError(`must name at most ${MAX_GRANTED_LOCATIONS} locations`);
  return ids;
}

/** `3600`, `90m`, `12h`, `7d` → seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  if (!match) throw new InvalidArgumentError('must be seconds or <n>s, <n>m, <n>h, <n>d');
  return Number(match[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
}

export async function mintTokenCli(argv: readonly string[]): Promise<number> {
  const program = new Command('token')
    .description('Print a development JWT for an organization (local server only).')
    .requiredOption('--org <uuid>', 'organization id', (v) => {
      // The form the handlers require of the claim (functions/commons/http/identity.ts): anything else is a 401.
      if (!isOrganizationId(v)) throw new InvalidArgumentError('must be a UUID');
      return v.toLowerCase();
    })
    .option('--sub <subject>', 'subject (user) of the token', 'local-developer')
    .addOption(
      new Option(
        '--scope <scope>',
        `'ingest': a machine client's token (scope ${INGEST_SCOPE}), which may only write documents; none: a user's`,
      )
        .choices(['ingest'])
        .conflicts(['role', 'locations']),
    )
    .addOption(
      new Option(
        '--role <role>',
        "a user's role: 'viewer' reads, 'admin' also manages locations and gateways (the group of that name, as Cognito lists it)",
      )
        .choices(['admin', 'viewer'])
        .default('viewer'),
    )
    .addOption(
      new Option(
        '--locations <ids>',
        'limit the token to these locations (comma-separated ids); default: every location of the organization',
      ).argParser(parseLocationIds),
    )
    .option('--ttl <duration>', 'lifetime, e.g. 3600, 90m, 12h', parseDuration, DEFAULT_TOKEN_TTL_SECONDS)
    .addOption(cliOptions.dataDir())
    .option(
      '--key <path>',
      'development key file (env DEV_KEY_FILE; default: dev-key.json in the data folder, as npm start uses)',
      process.env.DEV_KEY_FILE,
    );
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const options = program.opts<{
    org: string;
    sub: string;
    ttl: number;
    dataDir: string;
    key?: string;
    scope?: 'ingest';
    role: 'admin' | 'viewer';
    locations?: string[];
  }>();
  const key = await loadOrCreateDevKey(options.key ?? dataPaths(options.dataDir).devKey);
  const token = await mintDevToken(key, {
    organizationId: options.org,
    claimName: organizationClaim(),
    subject: options.sub,
    ttlSeconds: options.ttl,
    ...(options.scope
      ? { scopes: [INGEST_SCOPE] }
      : { groups: { claimName: groupsClaim(), names: [ROLE_GROUPS[options.role]] } }),
    ...(options.locations ? { locations: { claimName: locationsClaim(), ids: options.locations } } : {}),
  });
  process.stdout.write(`${token}\n`);
  return 0;
}

if (require.main === module) runAsProcess('token', mintTokenCli);
