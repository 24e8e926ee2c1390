import type { DuckDBInstance } from '@duckdb/node-api';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken } from '../../../bin/local/auth/tokens';
import { startRollupRebuilds } from '../../../bin/local/rollup-rebuilds';
import { startLocalServer, type LocalServer } from '../../../bin/local/server';
import { seedMovementEvents } from '../../../bin/seed/generate';
import { openApiDocument } from '#shared/openapi/document';
import { parseDocument } from '#shared/documents/documents';
import { duckDbStore, openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { provideStore } from '#commons/clients/store';
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
  const docs = [
    ...seedMovementEvents({ organizationId: ORG, days: 8, locations: 1, now: NOW, eventsPerDay: 1500, seed: 2 }),
  ];
  await ingestDocuments(
    db,
    'movementEvents',
    docs.map((d, i) => parseDocument('movementEvents', d, `/${i}`)),
  );
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

async function ask(body: unknown = request): Promise<{ status: number; timing: string | null; body: string }> {
  const r = await fetch(`${server.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, timing: r.headers.get('server-timing'), body: await r.text() };
}

test('the explorer’s default report: from the rollups once rebuilt, the same bytes without them', async () => {
  // Prepare: the rebuilds npm start runs; before the first, every grain is dirty and the report reads raw.
  provideStore(duckDbStore(db, { rollups: true }));
  const before = await ask();
  const rebuilds = startRollupRebuilds(duckDbStore(db), 60_000);
  await rebuilds.stop();
  // Act
  const fromRollups = await ask();
  provideStore(duckDbStore(db, { rollups: false }));
  const withoutRollups = await ask();
  // Assess
  // Before: every grain is dirty, so the watermark is the earliest dirty grain: the seed's first day
  // starts at Berlin's midnight of 25 May, before the range.
  const earliest = '2024-05-24T22:00:00.000Z';
  expect(before).toMatchObject({
    status: 200,
    timing: `source;desc="raw", raw-reason;desc="the rollups are complete only up to ${earliest}, before this time range"`,
  });
  // The range is Berlin's 26 May to 1 June: 25 May 22:00 UTC to 1 June 22:00 UTC, whole grains.
  expect(fromRollups).toMatchObject({
    status: 200,
    timing: 'source;desc="rollup", rollup-window;desc="2024-05-25T22:00:00.000Z/2024-06-01T22:00:00.000Z"',
  });
  expect(JSON.parse(fromRollups.body).length).toBeGreaterThan(4);
  expect(withoutRollups.timing).toBeNull();
  expect(fromRollups.body).toBe(withoutRollups.body);
  expect(before.body).toBe(withoutRollups.body);
});

describe('Server-Timing says why a report is not accelerated, and what a split report was answered from', () => {
  beforeAll(async () => {
    provideStore(duckDbStore(db, { rollups: true }));
    await startRollupRebuilds(duckDbStore(db), 60_000).stop();
  });

  test('a report with reverseNested reads raw and says why', async () => {
    const body = { ...request, aggregations: [{ type: 'nested', path: 'crossedPaths' }, { type: 'reverseNested' }] };
    const answer = await ask(body);
    expect(answer).toMatchObject({
      status: 200,
      timing: 'source;desc="raw", raw-reason;desc="reverseNested counts each document once per bucket its items reach"',
    });
  });

  test('a filter on a number reads raw and names the field', async () => {
    const body = {
      source: 'parkingEvents',
      filters: [{ type: 'range', field: 'duration', from: 60 }],
      aggregations: [{ type: 'stats', field: 'duration' }],
    };
    expect((await ask(body)).timing).toBe(
      'source;desc="raw", raw-reason;desc="the filter on duration is not on a rollup dimension"',
    );
  });

  test('a split report answered from rollups in every slice says rollup, its slices’ windows joined', async () => {
    const answer = await ask({ ...request, splitInterval: '1d' });
    expect(answer).toMatchObject({
      status: 200,
      timing: 'source;desc="rollup", rollup-window;desc="2024-05-25T22:00:00.000Z/2024-06-01T22:00:00.000Z"',
    });
  });

  test('a document written after the rebuild: the unsplit report is partial, the split one mixed, with the same bytes', async () => {
    // Prepare: a late car at noon UTC on 30 May makes its grain dirty: the watermark moves back to it.
    const late = { organizationId: ORG, locationId: 'berlin-mall', label: 'car', timestamp: '2024-05-30T12:05:00Z' };
    await ingestDocuments(db, 'movementEvents', [parseDocument('movementEvents', late)]);
    // Act
    const unsplit = await ask();
    const split = await ask({ ...request, splitInterval: '1d' });
    // Assess: rollup rows up to the watermark and the documents after it; the split's last two days
    // (31 May and 1 June in Berlin) lie wholly after it, so they read raw.
    expect(unsplit.timing).toBe(
      'source;desc="rollup", rollup-window;desc="2024-05-25T22:00:00.000Z/2024-05-30T12:00:00.000Z"',
    );
    expect(split.timing).toBe(
      'source;desc="mixed", raw-reason;desc="the rollups are complete only up to 2024-05-30T12:00:00.000Z, before this time range"',
    );
    expect(split.body).toBe(unsplit.body);
  });
});
