import { mkdirSync } from 'node:fs';
import type { ScheduledEvent, Context } from 'aws-lambda';
import { loadOrCreateDevKey } from './local/auth/dev-key';
import { mintDevToken } from './local/auth/tokens';
import { openApiDocument } from '#shared/openapi/document';
import { DEFAULT_LIMITS } from '#shared/report/engines/engine';
import { DuckDbEngine, openDuckDb } from '#shared/report/engines/duckdb/execute';
import { DynamoLocationStore } from '#shared/locations/dynamo-store';
import { createDocumentClient } from '#commons/clients/dynamo-client';
import { provideReportEngine } from '#commons/clients/engine';
import { organizationClaim } from '#commons/http/identity';
import { dataPaths, LOCAL_ORGANIZATION_ID, LOCAL_TABLE_NAME } from './local/config';
import { startLocalServer } from './local/server';
import { startLocalDynamo } from './local/stores';
import { buildExplorer } from '../web/build';
import { seed } from './seed/seed';
import { duckDbTarget } from './seed/targets';

const REFRESH_MS = 5 * 60_000;

/**
 * `npm start`: the whole service on http://localhost:3000 (PORT overrides) with embedded stores in
 * ./.data (DATA_DIR overrides): DuckDB for reports, dynalite for locations and the occupancy cache.
 * Seeds 30 days for 3 locations on the first start, refreshes occupancy every 5 minutes as the
 * EventBridge rule does in AWS, and shuts down cleanly on Ctrl-C.
 */
async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // No CloudWatch here: keep the EMF metric lines off the console (the handlers still record them).
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const paths = dataPaths();
  mkdirSync(paths.root, { recursive: true });
  const dynamo = await startLocalDynamo(paths.dynamo, LOCAL_TABLE_NAME);
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = LOCAL_TABLE_NAME;
  const db = await openDuckDb(paths.duckdb);

  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  const store = new DynamoLocationStore(client, LOCAL_TABLE_NAME);
  if ((await store.listLocations(LOCAL_ORGANIZATION_ID)).length === 0) {
    process.stdout.write('First start: seeding 30 days of data for 3 locations… ');
    const target = await duckDbTarget(paths.duckdb, db);
    const summary = await seed(target, store, { organizationId: LOCAL_ORGANIZATION_ID, days: 30, locations: 3, now: Date.now() });
    console.log(`${summary.documents.movementEvents} movement events, ${summary.documents.parkingEvents} parking events, ${summary.documents.parkingLotStats} lot stats.`);
  }
  client.destroy();

  // The same cap as the Lambda functions' REPORT_TERMS_CAP (a low one shows the truncation flag).
  provideReportEngine(new DuckDbEngine(db, { limits: { termsCap: Number(process.env.REPORT_TERMS_CAP ?? DEFAULT_LIMITS.termsCap) } }));
  const { handler: refresh } = await import('../functions/refresh-occupancy');
  const runRefresh = () =>
    (refresh as unknown as (e: ScheduledEvent, c: Context) => Promise<unknown>)({ source: 'local.schedule' } as ScheduledEvent, {} as Context).catch((e: unknown) =>
      console.error('occupancy refresh failed:', e instanceof Error ? e.message : e),
    );
  await runRefresh();
  const timer = setInterval(runRefresh, REFRESH_MS);

  const devKey = await loadOrCreateDevKey(paths.devKey);
  const mint = () => mintDevToken(devKey, { organizationId: LOCAL_ORGANIZATION_ID, claimName: organizationClaim() });
  const explorer = { files: buildExplorer(), token: mint };
  const server = await startLocalServer({ port: Number(process.env.PORT ?? 3000), devKey, openApi: openApiDocument(), explorer, log: (l) => process.env.LOG_REQUESTS && console.log(l) });
  const token = await mint();
  printBanner(server.url, token);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    clearInterval(timer);
    await server.close();
    // A checkpoint writes the WAL into the database file, so the data folder is whole when we exit.
    const connection = await db.connect();
    await connection.run('CHECKPOINT');
    connection.closeSync();
    db.closeSync();
    await dynamo.close();
    console.log('stopped cleanly.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

function printBanner(url: string, token: string): void {
  const auth = `-H "Authorization: Bearer $TOKEN"`;
  console.log(`
Location and Reporting Service running at ${url}   (OpenAPI: ${url}/openapi.json)
Report explorer: ${url}/   (the token below is filled in)
Data: ${dataPaths().root}   Organization: ${LOCAL_ORGANIZATION_ID}

export TOKEN=${token}

curl -s ${auth} ${url}/locations
curl -s ${auth} "${url}/locations/berlin-mall/insights/live?filter=occupancy"
curl -s ${auth} -H 'Content-Type: application/json' -H 'Accept: text/csv' ${url}/reports:query \\
  -d '{"aggregations":[{"type":"dateHistogram","interval":"1d","timeZone":"Europe/Berlin"},{"type":"terms","field":"label"}],"locationIds":["berlin-mall"]}'

Ctrl-C stops the service.`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
