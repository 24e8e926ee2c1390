// First: the environment the handlers' modules read when they load.
import './local/environment';
import { existsSync, mkdirSync } from 'node:fs';
import type { ScheduledEvent, Context } from 'aws-lambda';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadOrCreateDevKey, type DevKey } from './local/auth/dev-key';
import { mintDevToken } from './local/auth/tokens';
import { trustIssuer, type TrustedIssuer } from './local/auth/issuer';
import { openApiDocument } from '#shared/openapi/document';
import { problemTypeBaseError } from '#shared/problem-uri';
import { DEFAULT_LIMITS, type Store } from '#shared/stores/store';
import { duckDbStore, openDuckDb } from '#shared/stores/duckdb/store';
import { provideStore } from '#commons/clients/store';
import { provideLineChecker } from '#commons/clients/line-checker';
import { itemTable, provideItemTable } from '#commons/clients/dynamo';
import { provideClientIssuer } from '#commons/clients/client-issuer';
import { provideWebhookDelivery } from '#commons/clients/webhooks';
import { NO_QUEUE } from '#shared/webhooks/sink';
import { startWebhookDeliveries } from './local/webhook-deliveries';
import { type LocationRefreshEvent, provideRefreshTrigger } from '#commons/clients/refresh-trigger';
import { groupsClaim, INGEST_SCOPE, organizationClaim, ROLE_GROUPS } from '#commons/http/identity';
import { findMachineClient } from '#shared/ingest/machine-clients';
import { issueToken, localIssuer, TOKEN_PATH } from './local/machine-credentials';
import { ENV } from '#commons/env';
import {
  cliOptions,
  wholeNumber,
  type DataDirFlags,
  type DynamoCliFlags,
  type OpenSearchCliFlags,
} from './cli/options';
import {
  openSearchEnv,
  prepareCluster,
  resolveOpenSearch,
  withClient,
  type OpenSearchConnection,
} from './cli/opensearch';
import { progressBar } from './cli/progress';
import { describeFailure, parseCommand } from './cli/run';
import { dataPaths, LOCAL_ORGANIZATION_ID } from './local/config';
import { type LocalMachineClients, reservePort, startLocalServer } from './local/server';
import { CachedReportEngine, forgettingWriter } from './local/report-cache';
import { startRollupRebuilds } from './local/rollup-rebuilds';
import { appendOnlyWriter, startLineCheckers } from './local/line-checkers';
import { closingWriter } from './local/closing-writer';
import { openLocationStore, type OpenedLocationStore } from './local/stores';
import { buildExplorer } from '../web/build';
import { seed } from './seed/seed';
import { SITES } from './seed/generate';
import { startSimulation, type Simulation } from './local/simulate';
import { duckDbTarget, openSearchTarget } from './seed/targets';

/** The deployed schedule's period (spec: every 5 minutes), the default of --refresh-seconds. */
const REFRESH_SECONDS = 300;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface StartFlags extends DataDirFlags, OpenSearchCliFlags, DynamoCliFlags {
  readonly port: number;
  readonly refreshSeconds: number;
  readonly seed?: boolean;
  readonly reportCache: boolean;
  readonly rollups: boolean;
  /** Seconds between simulated rounds; true: the default. */
  readonly simulate?: number | true;
  readonly simulateEventsPerDay: number;
  readonly jwtIssuer?: string;
  readonly jwtClientId?: string;
  readonly jwtScope: string;
  /**
   * Webhook endpoints on this machine (`http://localhost`, loopback addresses): allowed unless `--no-webhook-loopback`.
   */
  readonly webhookLoopback: boolean;
}

const SIMULATE_EVERY_S = 5;

/** A second signal this soon after the first is the same one delivered twice, not a second Ctrl-C. */
const SAME_SIGNAL_MS = 500;

/** `npm start [-- flags]`: the flags, or an exit code when help was asked for or a flag is wrong. */
function parseFlags(argv: readonly string[]): StartFlags | number {
  const program = new Command('start')
    .description(
      'The whole service on one machine: the Lambda handlers behind a local API Gateway, with the report explorer at /. ' +
        "Reports run on the data folder's DuckDB, or on an OpenSearch cluster (--opensearch-url, --domain); locations live in the data " +
        'folder, or in a DynamoDB table (--dynamodb-endpoint, --table).',
    )
    .option(
      '--port <n>',
      'port on 127.0.0.1, 0 for any free one (env PORT)',
      wholeNumber(0, 65535),
      Number(process.env.PORT ?? 3000),
    )
    .addOption(cliOptions.dataDir())
    .addOption(cliOptions.opensearchUrl())
    .addOption(cliOptions.domain())
    .addOption(cliOptions.region())
    .addOption(cliOptions.indexPrefix())
    .addOption(cliOptions.dynamodbEndpoint())
    .addOption(
      cliOptions.table(
        undefined,
        'DynamoDB table of locations, sensor groups and occupancy (default with --dynamodb-endpoint: lrs-local)',
      ),
    )
    .option(
      '--seed',
      'seed 30 days for 3 locations when the organization has no location (default: only with the embedded stores)',
    )
    .option('--no-seed', 'never seed')
    .option(
      '--refresh-seconds <n>',
      `seconds between live occupancy refreshes (the stack refreshes every ${REFRESH_SECONDS}); a change to a location through the API refreshes it at once`,
      wholeNumber(1, 3600),
      REFRESH_SECONDS,
    )
    .option('--no-report-cache', 'run every report on DuckDB, even one asked before (see bin/local/report-cache.ts)')
    .option(
      '--no-rollups',
      'answer every report from the documents, never from the rollups (docs/rollups.md); the answers are the same bytes',
    )
    .option(
      '--simulate [seconds]',
      `stream events for the seeded locations through the ingest endpoint every few seconds (default ${SIMULATE_EVERY_S}), refreshing live occupancy after each round`,
      wholeNumber(1, 3600),
    )
    .option(
      '--simulate-events-per-day <n>',
      'with --simulate: movement events per location and day, spread over the day as the seed spreads them',
      wholeNumber(1, 100_000_000),
      20_000,
    )
    .addOption(
      new Option(
        '--jwt-issuer <url>',
        'also accept ID tokens of this OpenID Connect issuer (its discovery document and keys), and sign in to the explorer with it instead of the development token',
      ).argParser(issuerUrl),
    )
    .addOption(
      new Option(
        '--jwt-client-id <id>',
        "with --jwt-issuer: the explorer's client id at the issuer, the audience its tokens must carry",
      ),
    )
    .addOption(
      new Option('--jwt-scope <scopes>', 'with --jwt-issuer: the scopes the explorer asks for').default('openid'),
    )
    .option(
      '--no-webhook-loopback',
      'refuse webhook endpoints on this machine (http://localhost, 127.0.0.1, [::1]) as the stack does; by default they are allowed, so a receiver can run beside the server',
    );
  const flags = parseCommand(program, argv) ?? program.opts<StartFlags>();
  if (typeof flags === 'object' && Boolean(flags.jwtIssuer) !== Boolean(flags.jwtClientId)) {
    console.error('npm start: --jwt-issuer and --jwt-client-id go together.');
    return 2;
  }
  return flags;
}

/**
 * `npm start`: the whole service on http://localhost:3000 with embedded stores in ./.data (DuckDB
 * for reports, a file table for locations and the occupancy cache), or on an OpenSearch cluster and
 * a DynamoDB the user runs. Seeds 30 days for 3 locations on the first start, refreshes occupancy
 * every 5 minutes as the EventBridge rule does in AWS (`--refresh-seconds`), and a location at once
 * when the API changes it, and shuts down cleanly on Ctrl-C.
 */
async function main(argv: readonly string[]): Promise<void> {
  const flags = parseFlags(argv);
  if (typeof flags === 'number') process.exit(flags);
  // The handlers read it from the environment, as in Lambda; the served document must agree with them.
  const problemTypeBase = process.env[ENV.problemTypeBase] || undefined;
  const baseError = problemTypeBase && problemTypeBaseError(problemTypeBase);
  if (baseError) {
    console.error(`${ENV.problemTypeBase} ${baseError}`);
    process.exit(2);
  }
  // The port first: in use, it stops us now (one line, see describeFailure), not after the seeding.
  const port = flags.port === 0 ? undefined : await reservePort(flags.port);
  const paths = dataPaths(flags.dataDir);
  mkdirSync(paths.root, { recursive: true });
  const opensearch = await resolveOpenSearch(flags);
  const db = opensearch ? undefined : await openDuckDb(paths.duckdb, duckDbResourcesFromEnv());
  const locations = await openLocationStore({ ...flags, localFile: paths.locations });
  if (locations.table) provideItemTable(locations.table);
  // The handlers get the store above; code that reads the table's name and endpoint from the
  // environment, as in Lambda, finds the same table (and no stray endpoint of the shell's).
  delete process.env[ENV.tableName];
  delete process.env[ENV.dynamoDbEndpoint];
  if (locations.dynamo) {
    process.env[ENV.tableName] = locations.dynamo.tableName;
    if (locations.dynamo.endpoint) process.env[ENV.dynamoDbEndpoint] = locations.dynamo.endpoint;
  }

  if (opensearch)
    await withClient(opensearch, flags.indexPrefix, (client) => prepareCluster(client, opensearch, flags.indexPrefix));
  if (flags.seed ?? !(opensearch || locations.dynamo)) {
    await seedFirstStart(
      locations,
      opensearch
        ? { opensearch, indexPrefix: flags.indexPrefix }
        : { duckdb: paths.duckdb, db: db!, ...(existsSync(paths.legacyDynamo) ? { legacy: paths.legacyDynamo } : {}) },
    );
  }

  // The same cap as the Lambda functions' REPORT_TERMS_CAP (a low one shows the truncation flag).
  const documents: Store = opensearch
    ? (await import('#commons/clients/opensearch-store')).openSearchStoreFromEnv({
        ...openSearchEnv(opensearch, flags.indexPrefix),
        // As the stack sets it for the report functions; --no-rollups reads the documents only.
        [ENV.rollups]: flags.rollups ? 'on' : 'off',
      })
    : duckDbStore(db!, {
        limits: { termsCap: Number(process.env.REPORT_TERMS_CAP ?? DEFAULT_LIMITS.termsCap) },
        rollups: flags.rollups,
        description: `DuckDB ${paths.duckdb}`,
      });
  // OpenSearch keeps its own request cache, invalidated when its data changes; this DuckDB file is
  // ours alone, and our own writes make the cache forget what they change.
  const cache = !opensearch && flags.reportCache ? new CachedReportEngine(documents.reports) : undefined;
  // Benchmark only (bench/ingest.ts): the baseline duplicate detection is measured against; no flag, as a user never
  // wants it.
  const withoutIdentity = process.env.BENCH_INGEST_WITHOUT_IDENTITY === '1' && !opensearch;
  const writer = withoutIdentity ? appendOnlyWriter(db!) : documents.writer;
  // Closed first on the way out: a write begun is answered, a later one refused 503 (the client retries).
  const writes = closingWriter(cache ? forgettingWriter(writer, cache) : writer);
  provideStore({ ...documents, reports: cache ?? documents.reports, writer: writes });
  // The rollups' dirty grains, rebuilt in the background (on OpenSearch too, as the stack's rule does
  // every minute: one rebuild at a time per cluster and prefix, by its lease); with --no-rollups they
  // wait for a start with them.
  const rebuilds = flags.rollups
    ? startRollupRebuilds(documents, undefined, undefined, () => cache?.forgetUnaccelerated())
    : undefined;
  const checkers = startLineCheckers({ withoutIdentity });
  provideLineChecker(checkers.check);
  const { handler: refresh } = await import('../functions/refresh-occupancy');
  const invokeRefresh = refresh as unknown as (
    e: ScheduledEvent | LocationRefreshEvent,
    c: Context,
  ) => Promise<unknown>;
  const runRefresh = () =>
    invokeRefresh({ source: 'local.schedule' } as ScheduledEvent, {} as Context).catch((e: unknown) =>
      console.error('occupancy refresh failed:', e instanceof Error ? e.message : e),
    );
  // A change through the API refreshes the location at once, in-process (the stack invokes the refresh function).
  provideRefreshTrigger(async (organizationId, locationId) => {
    await invokeRefresh({ source: 'lrs.locations', locations: [{ organizationId, locationId }] }, {} as Context);
  });
  // The live handler's freshness rules follow the cadence (the deployed functions read no value: 5 minutes).
  if (flags.refreshSeconds === REFRESH_SECONDS) delete process.env[ENV.refreshSeconds];
  else process.env[ENV.refreshSeconds] = String(flags.refreshSeconds);
  await runRefresh();
  const timer = setInterval(runRefresh, flags.refreshSeconds * 1000);
  // Webhook deliveries: no queue here; a timer attempts the due ones with the code of the delivery function.
  const webhookPolicy = { allowHttpLoopback: flags.webhookLoopback };
  provideWebhookDelivery(NO_QUEUE, webhookPolicy);
  const deliveries = startWebhookDeliveries(itemTable, webhookPolicy);

  const devKey = await loadOrCreateDevKey(paths.devKey);
  // The page's token, and the banner's: the operator of this machine is the organization's admin.
  const mint = () =>
    mintDevToken(devKey, {
      organizationId: LOCAL_ORGANIZATION_ID,
      claimName: organizationClaim(),
      groups: { claimName: groupsClaim(), names: [ROLE_GROUPS.admin] },
    });
  const issuer = flags.jwtIssuer ? await trustIssuer(flags.jwtIssuer, flags.jwtClientId as string) : undefined;
  // With an issuer, the page signs people in with it; else it gets the development token.
  const explorer = issuer
    ? {
        files: buildExplorer(),
        signIn: {
          config: { issuer: issuer.issuer, clientId: issuer.clientId, scope: flags.jwtScope },
          origins: issuer.origins,
        },
      }
    : { files: buildExplorer(), token: mint };
  // FUNCTION_TIMEOUT_SECONDS: the handlers' timeout, 29 s as deployed; a report's deadline is 2 s less.
  const functionTimeoutMs = process.env.FUNCTION_TIMEOUT_SECONDS
    ? Number(process.env.FUNCTION_TIMEOUT_SECONDS) * 1000
    : undefined;
  await port?.release();
  const server = await startLocalServer({
    port: flags.port,
    devKey,
    ...(issuer ? { issuer } : {}),
    openApi: openApiDocument(problemTypeBase ? { problemTypeBase } : {}),
    explorer,
    log: (l) => process.env.LOG_REQUESTS && console.log(l),
    ...(functionTimeoutMs ? { functionTimeoutMs } : {}),
    machineClients: localMachineClients(devKey),
  });
  provideClientIssuer(localIssuer(`${server.url}${TOKEN_PATH}`));
  const token = await mint();
  const simulation = flags.simulate ? await simulate(server.url, devKey, locations, flags, runRefresh) : undefined;
  printBanner(
    server.url,
    token,
    issuer,
    `reports: ${opensearch ? `OpenSearch ${opensearch.url} (index prefix '${flags.indexPrefix}')` : `DuckDB ${paths.duckdb}`}; locations: ${locations.description}`,
  );

  let stoppingSince: number | undefined;
  const stop = async (signal: string) => {
    if (stoppingSince !== undefined) {
      // One Ctrl-C can arrive twice: the terminal signals the whole process group, and npm forwards
      // it to its script too where the shell runs node as its own (macOS's sh does).
      if (performance.now() - stoppingSince < SAME_SIGNAL_MS) return;
      console.log(`\n${signal} again: exiting now.`);
      process.exit(1);
    }
    stoppingSince = performance.now();
    console.log(`\n${signal}: stopping…`);
    // Never hang on the way out: a report the interrupt cannot reach must not hold the process.
    setTimeout(() => {
      console.error('could not stop cleanly within 10 s; exiting.');
      process.exit(1);
    }, 10_000).unref();
    clearInterval(timer);
    await deliveries.stop();
    await simulation?.stop();
    await rebuilds?.stop();
    // Running reports are interrupted and answer 503, running writes end and later ones answer 503
    // (the server waits for those answers, and answers 503 what is left after its grace); the store
    // then checkpoints DuckDB's log into the file after the writes under way, so the data folder is
    // whole when we exit.
    await Promise.all([documents.close(), writes.close(), server.close()]);
    await checkers.close();
    await locations.close();
    console.log('stopped cleanly.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * The token endpoint and the revocation check of machine clients, over the service's table
 * (./local/machine-credentials.ts).
 */
function localMachineClients(devKey: DevKey): LocalMachineClients {
  return {
    token: async (request) =>
      issueToken(await itemTable(), devKey, { organizationClaim: organizationClaim(), scope: INGEST_SCOPE }, request),
    mayIngest: async (clientId, organizationId) => {
      const client = await findMachineClient(await itemTable(), clientId);
      return client !== undefined && client.revokedAt === null && client.organizationId === organizationId;
    },
  };
}

/** DUCKDB_MEMORY_LIMIT (e.g. 1GB) and DUCKDB_THREADS override the engine's resource bounds (DuckDbResources). */
function duckDbResourcesFromEnv() {
  return {
    ...(process.env.DUCKDB_MEMORY_LIMIT ? { memoryLimit: process.env.DUCKDB_MEMORY_LIMIT } : {}),
    ...(process.env.DUCKDB_THREADS ? { threads: Number(process.env.DUCKDB_THREADS) } : {}),
  };
}

type SeedInto =
  | { readonly opensearch: OpenSearchConnection; readonly indexPrefix: string }
  | { readonly duckdb: string; readonly db: Awaited<ReturnType<typeof openDuckDb>>; readonly legacy?: string };

/**
 * Seeds 30 days for 3 locations when the local organization has no location yet. A data folder of a
 * version that kept locations in dynalite already holds the documents: only the locations are made.
 */
async function seedFirstStart(locations: OpenedLocationStore, into: SeedInto): Promise<void> {
  if ((await locations.store.listLocations(LOCAL_ORGANIZATION_ID)).length > 0) return;
  const options = { organizationId: LOCAL_ORGANIZATION_ID, days: 30, locations: 3, now: Date.now() };
  if ('legacy' in into && into.legacy) {
    await seed(undefined, locations.store, options);
    console.log(
      `Locations re-created in ${locations.description} (the dynalite folder ${into.legacy} is no longer used and may be deleted).`,
    );
    return;
  }
  // On a terminal the bar (stderr) gets a line of its own.
  process.stdout.write(`First start: seeding 30 days of data for 3 locations… ${process.stderr.isTTY ? '\n' : ''}`);
  const target =
    'opensearch' in into
      ? await openSearchTarget(into.opensearch, into.indexPrefix)
      : await duckDbTarget(into.duckdb, into.db);
  const bar = progressBar('{bar} {percentage}% | {value}/{total} documents');
  try {
    const summary = await seed(target, locations.store, options, (done, total) => bar.update(done, total));
    bar.stop();
    console.log(
      `${summary.documents.movementEvents} movement events, ${summary.documents.parkingEvents} parking events, ${summary.documents.parkingLotStats} lot stats.`,
    );
  } catch (e) {
    bar.stop();
    // An AppError's detail is for API clients ("An unexpected error occurred."); the operator needs its cause.
    const causes: string[] = [];
    for (let c: unknown = e; c instanceof Error && causes.length < 4; c = c.cause) causes.push(c.message);
    throw new Error(
      `seeding ${target.description} failed: ${causes.join(': ')}. Nothing marks the store as seeded until the end, so the next start seeds it again (the documents written so far count as duplicates).`,
      { cause: e },
    );
  } finally {
    bar.stop();
    await target.close();
  }
}

/**
 * `--simulate`: events for the organization's seeded locations through the server's own ingest
 * endpoint, with an ingest token it mints (a year long: the key is the data folder's), and the
 * occupancy refresh after each round, so the explorer's live occupancy moves with them.
 */
async function simulate(
  url: string,
  devKey: DevKey,
  locations: OpenedLocationStore,
  flags: StartFlags,
  refresh: () => Promise<unknown>,
): Promise<Simulation | undefined> {
  const ids = new Set((await locations.store.listLocations(LOCAL_ORGANIZATION_ID)).map((l) => l.id));
  const sites = SITES.filter((site) => ids.has(site.id));
  if (sites.length === 0) {
    console.error(
      `--simulate: the organization has none of the seeded locations (${SITES.map((s) => s.id).join(', ')}); nothing to simulate.`,
    );
    return undefined;
  }
  const intervalS = flags.simulate === true ? SIMULATE_EVERY_S : (flags.simulate as number);
  const token = await mintDevToken(devKey, {
    organizationId: LOCAL_ORGANIZATION_ID,
    claimName: organizationClaim(),
    subject: 'simulator',
    scopes: [INGEST_SCOPE],
    ttlSeconds: 365 * 86_400,
  });
  console.log(
    `Simulating events for ${sites.map((s) => s.id).join(', ')} every ${intervalS} s (about ${flags.simulateEventsPerDay} movement events per location and day).`,
  );
  return startSimulation({
    url,
    token,
    organizationId: LOCAL_ORGANIZATION_ID,
    sites,
    intervalMs: intervalS * 1000,
    eventsPerDay: flags.simulateEventsPerDay,
    onRound: async ({ sent, failures }) => {
      for (const failure of failures) console.error(`simulate: ${failure}`);
      if (process.env.LOG_REQUESTS)
        console.log(
          `simulate: sent ${sent.movementEvents} movement events, ${sent.parkingEvents} parking events, ${sent.parkingLotStats} lot stats`,
        );
      await refresh();
    },
  });
}

function printBanner(url: string, token: string, issuer: TrustedIssuer | undefined, stores: string): void {
  const auth = `-H "Authorization: Bearer $TOKEN"`;
  // The history's example: the last 24 whole hours before the banner, hourly.
  const to = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  console.log(`
Location and Reporting Service running at ${url}   (OpenAPI: ${url}/openapi.json)
Report explorer: ${url}/   (${issuer ? `sign in with ${issuer.issuer}, client ${issuer.clientId}` : 'the token below is filled in'})
Organization: ${LOCAL_ORGANIZATION_ID}   ${stores}

export TOKEN=${token}   # an admin's; a viewer's: npm run token -- --org ${LOCAL_ORGANIZATION_ID} --role viewer

curl -s ${auth} ${url}/locations
# One location with its groups, capacities and hours (change it with PUT and If-Match: docs/onboarding.md)
curl -s ${auth} ${url}/locations/berlin-mall
curl -s ${auth} "${url}/locations/berlin-mall/insights/live?filter=occupancy"
curl -s ${auth} "${url}/locations/berlin-mall/insights/history?filter=occupancy&interval=1h&from=${iso(to - DAY_MS)}&to=${iso(to)}"
curl -s ${auth} -H 'Content-Type: application/json' -H 'Accept: text/csv' ${url}/reports:query \\
  -d '{"aggregations":[{"type":"dateHistogram","interval":"1d","timeZone":"Europe/Berlin"},{"type":"terms","field":"label"}],"locationIds":["berlin-mall"]}'

Ctrl-C stops the service.`);
}

/** An issuer is compared with tokens' `iss` as written: kept whole, trailing slash and all. */
function issuerUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidArgumentError('must be an http(s) URL');
  return value;
}

main(process.argv).catch((e: unknown) => {
  // A port in use or a held data folder is the user's situation: one line saying what to do. The
  // stack of anything else is there on request.
  console.error(`npm start: ${describeFailure(e)}`);
  if (process.env.LRS_DEBUG) console.error(e);
  process.exit(1);
});
