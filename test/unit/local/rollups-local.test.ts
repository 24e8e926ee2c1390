import type { DuckDBInstance } from '@duckdb/node-api';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken } from '../../../bin/local/auth/tokens';
import { startRollupRebuilds } from '../../../bin/local/rollup-rebuilds';
import { startLocalServer, type LocalServer } from '../../../bin/local/server';
import { seedMovementEvents } from '../../../bin/seed/generate';
import { openApiDocument } from '#shared/openapi/document';
import { parseDocument } from '#shared/report/documents';
import { DuckDbEngine } from '#shared/report/engines/duckdb/execute';
import { openDuckDb } from '#shared/report/engines/duckdb/open';
import { ingestDocuments } from '#shared/report/engines/duckdb/storage/ingest';
import { provideReportEngine } from '#commons/clients/engine';
import { buildRequest } from '../../../web/src/model/request';

/**
 * The local server answers the explorer's default report (the last 7 days by the hour and label, in
 * the location's zone) from the rollups its rebuilds keep, says so in Server-Timing, and answers the
 * same bytes without them (`npm start -- --no-rollups`, which runs the engine without rollups).
 */
const ORG = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const NOW = Date.UTC(2024, 5, 1, 9, 41);
let db: DuckDBInstance;
let server: LocalServer;
let token: string;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  const docs = [...seedMovementEvents({ organizationId: ORG, days: 8, locations: 1, now: NOW, eventsPerDay: 1500, seed: 2 })];
  await ingestDocuments(db, 'movementEvents', docs.map((d, i) => parseDocument('movementEvents', d, `/${i}`)));
  process.env.ORGANIZATION_CLAIM = 'custom:organizationId';
  const key = await ephemeralDevKey();
  token = await mintDevToken(key, { organizationId: ORG, claimName: 'custom:organizationId' });
  server = await startLocalServer({ port: 0, devKey: key, openApi: openApiDocument() });
});

afterAll(async () => {
  await server?.close();
  db?.closeSync();
});

/** The explorer's request as its form starts: Berlin, the 7 days up to today, hourly, by label. */
const { request } = buildRequest({
  locationIds: ['berlin-mall'],
  source: 'movementEvents',
  firstDay: '2024-05-26',
  lastDay: '2024-06-01',
  overTime: true,
  interval: '1h',
  timeZone: 'Europe/Berlin',
  breakdown: 'label',
  statsField: '',
  stats: [],
  split: false,
});

async function ask(): Promise<{ status: number; timing: string | null; body: string }> {
  const r = await fetch(`${server.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  return { status: r.status, timing: r.headers.get('server-timing'), body: await r.text() };
}

test('the explorer’s default report: from the rollups once rebuilt, the same bytes without them', async () => {
  // Prepare: the rebuilds npm start runs; before the first, every grain is dirty and the report reads raw.
  provideReportEngine(new DuckDbEngine(db, { rollups: true }));
  const before = await ask();
  const rebuilds = startRollupRebuilds(db, 60_000);
  await rebuilds.stop();
  // Act
  const fromRollups = await ask();
  provideReportEngine(new DuckDbEngine(db, { rollups: false }));
  const withoutRollups = await ask();
  // Assess
  expect(before).toMatchObject({ status: 200, timing: 'source;desc="raw"' });
  expect(fromRollups).toMatchObject({ status: 200, timing: 'source;desc="rollup"' });
  expect(JSON.parse(fromRollups.body).length).toBeGreaterThan(4);
  expect(withoutRollups.timing).toBeNull();
  expect(fromRollups.body).toBe(withoutRollups.body);
  expect(before.body).toBe(withoutRollups.body);
});
