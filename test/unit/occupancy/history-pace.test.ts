import type { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument } from '#shared/documents/documents';
import { occupancyHistory } from '#shared/occupancy/history';
import { parseHistoryQuery } from '#shared/occupancy/history-query';
import { PACE_TURN_MS } from '#shared/report/pace';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import type { ReportEngine } from '#shared/stores/store';
import { everyDay, group, location } from './fakes';

/**
 * A month of 15-minute history, its counts already cached (the engine answers at once, as the local
 * report cache does): the work left is reading 8,928 five-minute slots and sampling each group at
 * every mark, which held the event loop for tens of milliseconds at a time (ten such requests made
 * GET /locations wait over a second). Measured here as a bound on work, not on time: the clock is
 * made to say that every look at it is a whole turn later, so the history must yield at each of its
 * turns, and a competing setImmediate loop counts how often it got the event loop in between.
 */
const ORG = 'org-a';
let duckdb: DuckDBInstance;
let cached: ReportEngine;

beforeAll(async () => {
  duckdb = await openDuckDb(':memory:');
  const docs = Array.from({ length: 40 }, (_, i) =>
    parseDocument('movementEvents', {
      organizationId: ORG,
      locationId: 'month',
      trackingCameraId: `cam-${1 + (i % 3)}`,
      timestamp: new Date(Date.parse('2025-03-01T09:00:00Z') + i * 18 * 3_600_000).toISOString(),
      crossedPaths: [{ id: 'door', end: i % 4 === 3 ? 'B' : 'A' }],
    }),
  );
  await ingestDocuments(duckdb, 'movementEvents', docs);
  const engine = new DuckDbEngine(duckdb);
  const answers = new Map<string, ReturnType<ReportEngine['run']>>();
  cached = {
    maxBuckets: engine.maxBuckets,
    run: (plan, scope, options) =>
      answers.get(JSON.stringify(plan)) ??
      answers.set(JSON.stringify(plan), engine.run(plan, scope, options)).get(JSON.stringify(plan))!,
  };
});
afterAll(() => duckdb.closeSync());

test('a cached month of history gives the event loop a turn at least every 256 slots and between groups', async () => {
  // Prepare: three groups open 08:00-22:00 in Berlin; the counts asked once, so that the second ask is cached.
  const sensorGroups = [
    group(1, 'cam-1', everyDay('08:00', '22:00')),
    group(2, 'cam-2', everyDay('08:00', '22:00')),
    group(3, 'cam-3', everyDay('08:00', '22:00')),
  ];
  const store = {
    getLocationWithGroups: async () => ({ location: location('month', ORG, 'Europe/Berlin'), sensorGroups }),
  };
  const query = parseHistoryQuery({ filter: 'occupancy', from: '2025-03-01T00:00:00Z', to: '2025-04-01T00:00:00Z' });
  const first = await occupancyHistory({ store, engine: cached }, { organizationId: ORG }, 'month', query);
  let clock = 0;
  const now = jest.spyOn(performance, 'now').mockImplementation(() => (clock += PACE_TURN_MS));
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  // Act
  setImmediate(tick);
  const again = await occupancyHistory({ store, engine: cached }, { organizationId: ORG }, 'month', query).finally(
    () => {
      running = false;
      now.mockRestore();
    },
  );
  // Assess: the same answer, 31 × 96 quarters per group; 31 × 288 = 8,928 five-minute slots are at
  // least 35 chunks of 256, and each group's samples and buckets take at least 2 turns more.
  expect(again).toEqual(first);
  expect(again.insights.occupancy!.map((g) => g.buckets.length)).toEqual([2976, 2976, 2976]);
  expect(turns).toBeGreaterThanOrEqual(35 + 3 * 2);
});
