import { mkdirSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import { createDocumentClient } from '#commons/clients/dynamo-client';
import { dataPaths, LOCAL_ORGANIZATION_ID, LOCAL_TABLE_NAME } from './local/config';
import { startLocalDynamo } from './local/stores';
import { seed } from './seed/seed';
import { SITES } from './seed/generate';
import { duckDbTarget, openSearchTarget, type DocumentTarget } from './seed/targets';

const positiveInt = (max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
  return n;
};

/**
 * `npm run seed -- --days 30 --locations 3`: synthetic locations, sensor groups and documents up to
 * now, into the local data folder (DuckDB + dynalite) or, with --opensearch-url, into OpenSearch
 * (locations then go to the DynamoDB table named by --table, at DYNAMODB_ENDPOINT or in AWS).
 */
export async function seedCli(argv: readonly string[]): Promise<number> {
  const program = new Command('seed')
    .description('Seed synthetic locations and documents')
    .option('--days <n>', 'days of history up to now', positiveInt(3660), 30)
    .option('--locations <n>', `locations, in different time zones (1-${SITES.length})`, positiveInt(SITES.length), 3)
    .option('--events-per-day <n>', 'movement events per location and day', positiveInt(1_000_000), 1500)
    .option('--org <uuid>', 'organization that owns the data', LOCAL_ORGANIZATION_ID)
    .option('--data-dir <path>', 'local data folder (DuckDB and dynalite)', process.env.DATA_DIR ?? '.data')
    .option('--opensearch-url <url>', 'write documents to this OpenSearch instead of DuckDB')
    .option('--index-prefix <prefix>', 'OpenSearch index prefix', process.env.OPENSEARCH_INDEX_PREFIX ?? '')
    .option('--table <name>', 'DynamoDB table for locations (with --opensearch-url)', process.env.TABLE_NAME)
    .exitOverride()
    .showHelpAfterError();
  program.parse(argv);
  const o = program.opts<{ days: number; locations: number; eventsPerDay: number; org: string; dataDir: string; opensearchUrl?: string; indexPrefix: string; table?: string }>();

  const paths = dataPaths(o.dataDir);
  let target: DocumentTarget;
  let store: DynamoLocationStore;
  let closeStore: () => Promise<void>;
  if (o.opensearchUrl) {
    if (!o.table) program.error('--table (or TABLE_NAME) is required with --opensearch-url');
    target = await openSearchTarget(o.opensearchUrl, o.indexPrefix);
    const client = createDocumentClient(process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {});
    store = new DynamoLocationStore(client, o.table as string);
    closeStore = async () => client.destroy();
  } else {
    mkdirSync(paths.root, { recursive: true });
    const dynamo = await startLocalDynamo(paths.dynamo, LOCAL_TABLE_NAME);
    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    target = await duckDbTarget(paths.duckdb);
    store = new DynamoLocationStore(client, LOCAL_TABLE_NAME);
    closeStore = async () => {
      client.destroy();
      await dynamo.close();
    };
  }
  const bar = new SingleBar({ format: 'seeding {bar} {percentage}% | {value}/{total} documents | {eta}s left', noTTYOutput: false }, Presets.shades_classic);
  bar.start(1, 0);
  try {
    const summary = await seed(target, store, { organizationId: o.org, days: o.days, locations: o.locations, eventsPerDay: o.eventsPerDay, now: Date.now() }, (done, total) => {
      bar.setTotal(total);
      bar.update(done);
    });
    bar.stop();
    const d = summary.documents;
    console.log(`${target.description}: ${summary.locations} locations, ${d.movementEvents} movement events, ${d.parkingEvents} parking events, ${d.parkingLotStats} lot stats`);
    for (const f of summary.failures) console.error(`document ${f.position}: ${f.reason}`);
    return summary.failures.length > 0 ? 2 : 0;
  } finally {
    bar.stop();
    await target.close();
    await closeStore();
  }
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  seedCli(process.argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      if ((e as { code?: string }).code?.startsWith('commander.')) process.exit((e as { exitCode?: number }).exitCode ?? 1);
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
