import { Command } from 'commander';
import {
  cliOptions,
  wholeNumber,
  type DataDirFlags,
  type DynamoCliFlags,
  type OpenSearchCliFlags,
} from './cli/options';
import { progressBar } from './cli/progress';
import { parseCommand, runAsProcess } from './cli/run';
import { dataPaths, LOCAL_ORGANIZATION_ID } from './local/config';
import { openLocationStore } from './local/stores';
import { seed } from './seed/seed';
import { SITES } from './seed/generate';
import { openDocumentTarget } from './seed/targets';

interface SeedFlags extends DataDirFlags, OpenSearchCliFlags, DynamoCliFlags {
  readonly days: number;
  readonly locations: number;
  readonly eventsPerDay: number;
  readonly org: string;
}

/**
 * `npm run seed -- --days 30 --locations 3`: synthetic locations, sensor groups and documents up to
 * now. Documents go to the data folder's DuckDB, or to OpenSearch (`--opensearch-url`, `--domain`);
 * locations to the data folder's table, or to a DynamoDB table (`--table`, `--dynamodb-endpoint`).
 */
export async function seedCli(argv: readonly string[]): Promise<number> {
  const program = new Command('seed')
    .description('Seed synthetic locations, sensor groups and documents up to now.')
    .option('--days <n>', 'days of history up to now', wholeNumber(1, 3660), 30)
    .option(
      '--locations <n>',
      `locations, in different time zones (1-${SITES.length})`,
      wholeNumber(1, SITES.length),
      3,
    )
    .option('--events-per-day <n>', 'movement events per location and day', wholeNumber(1, 1_000_000), 1500)
    .option('--org <uuid>', 'organization that owns the data', LOCAL_ORGANIZATION_ID)
    .addOption(cliOptions.dataDir())
    .addOption(cliOptions.opensearchUrl())
    .addOption(cliOptions.domain())
    .addOption(cliOptions.region())
    .addOption(cliOptions.indexPrefix())
    .addOption(cliOptions.table())
    .addOption(cliOptions.dynamodbEndpoint())
    .showHelpAfterError();
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<SeedFlags>();

  const paths = dataPaths(o.dataDir);
  // Documents first: the data folder's DuckDB refuses a second process (a running npm start) before anything is
  // written.
  const target = await openDocumentTarget(o, paths);
  const locations = await openLocationStore({ ...o, localFile: paths.locations }).catch(async (e: unknown) => {
    await target.close();
    throw e;
  });
  const bar = progressBar('seeding {bar} {percentage}% | {value}/{total} documents | {eta}s left');
  try {
    const summary = await seed(
      target,
      locations.store,
      { organizationId: o.org, days: o.days, locations: o.locations, eventsPerDay: o.eventsPerDay, now: Date.now() },
      (done, total) => bar.update(done, total),
    );
    bar.stop();
    const [d, dup] = [summary.documents, summary.duplicates];
    console.log(
      `${target.description}: ${d.movementEvents} movement events, ${d.parkingEvents} parking events, ${d.parkingLotStats} lot stats written`,
    );
    const again = dup.movementEvents + dup.parkingEvents + dup.parkingLotStats;
    // Seeding is idempotent (bin/seed/generate.ts): the hours an earlier seed wrote come back as duplicates.
    if (again > 0)
      console.log(
        `${again} documents were there already (an earlier seed of the same hours) and were not written again`,
      );
    console.log(`${locations.description}: ${summary.locations} locations`);
    for (const f of summary.failures) console.error(`document ${f.position}: ${f.reason}`);
    return summary.failures.length > 0 ? 2 : 0;
  } finally {
    bar.stop();
    await target.close();
    await locations.close();
  }
}

if (require.main === module) runAsProcess('seed', seedCli);
