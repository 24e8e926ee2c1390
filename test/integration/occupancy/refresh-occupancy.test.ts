import type { Context, ScheduledEvent } from 'aws-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { EngineResult, ReportEngine, Scope } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import type { ReportPlan } from '#shared/report/plan/plan';
import { applyImport, validateImportFile } from '#shared/locations/import';
import type { RefreshSummary } from '#shared/occupancy/refresh';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { createRefreshOccupancyHandler, RefreshFailedError } from '../../../functions/refresh-occupancy';
import {
  FALL_EU_NOW,
  FALL_US_NOW,
  ORG_A,
  ORG_B,
  SPRING_EU_NOW,
  SPRING_US_NOW,
  fallEuEvents,
  fallUsEvents,
  importFile,
  springEuEvents,
  springUsEvents,
} from '../../fixtures/locations';
import { invoke } from '../../../bin/dev/lambda-events';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * The EventBridge refresh through the real handler: movement events in the real OpenSearch node,
 * counted through the report plan and engine, cache entries in DynamoDB Local. Every expected number
 * is worked out next to the events in test/fixtures/locations.ts.
 */
const client = testClient();
const prefix = uniquePrefix('occupancy');
const openSearch = new OpenSearchEngine(client, { indexPrefix: prefix });
let table: TestTable;

beforeAll(async () => {
  await indexDocuments(client, prefix, {
    movementEvents: [...springEuEvents, ...fallEuEvents, ...springUsEvents, ...fallUsEvents],
  });
});
afterAll(async () => {
  await deleteIndices(client, prefix);
  await client.close();
});
beforeEach(async () => {
  table = await createTestTable('refresh');
  await applyImport(table.store, validateImportFile(importFile), { now: new Date('2024-01-01T00:00:00Z') });
});
afterEach(() => table.drop());

const context = {
  awsRequestId: 'test',
  functionName: 'refresh-occupancy',
  getRemainingTimeInMillis: () => 60_000,
} as Context;
const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} } as ScheduledEvent;

function refresh(now: string, engine: ReportEngine = openSearch): Promise<RefreshSummary> {
  return createRefreshOccupancyHandler({ store: () => table.store, engine: () => engine, now: () => Date.parse(now) })(
    scheduled,
    context,
  );
}

/** Every item, by key (a Scan's order changes when items are rewritten). */
async function allItems(): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.name }));
  return Items.sort((a, b) => `${a.PK} ${a.SK}`.localeCompare(`${b.PK} ${b.SK}`));
}

/** { "<org>/<location>/<group>": occupancy } of every cache entry. */
async function cache(): Promise<Record<string, number>> {
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.name }));
  const entries = Items.filter((i) => i.kind === 'occupancy').map(
    (i) =>
      [`${i.organizationId === ORG_A ? 'A' : 'B'}/${i.locationId}/${i.sensorGroupId}`, i.occupancy as number] as const,
  );
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

test("counts ins − outs since today's opening on Europe's spring-forward day, never below zero", async () => {
  // Act
  const summary = await refresh(SPRING_EU_NOW);
  // Assess: hall 4 − 2; parking 1 − 2 → 0; food court closed on Sundays; New York (06:00 EDT) not open yet.
  expect(summary).toMatchObject({ locations: 3, refreshedLocations: 3, failedLocations: 0, entriesWritten: 3 });
  expect(await cache()).toEqual({ 'A/berlin-mall/1': 2, 'A/berlin-mall/3': 0, 'B/berlin-mall/1': 1 });
});

test("keeps each organization's documents apart: same location id, cameras and lines", async () => {
  await refresh(SPRING_EU_NOW);
  const entries = await table.store.getLiveView(ORG_B, 'berlin-mall');
  // only b1; A's e2 e3 e8 would make 4
  expect(entries?.occupancy.map((e) => [e.sensorGroupId, e.occupancy])).toEqual([[1, 1]]);
});

test("counts a 25-hour day from its first midnight on Europe's fall-back day", async () => {
  await refresh(FALL_EU_NOW);
  // 23:30 CET: only the parking is open in Berlin; New York (18:30 EDT) is open with no events that day.
  expect(await cache()).toEqual({ 'A/berlin-mall/3': 2, 'A/nyc-store/7': 0 });
});

test('opens at 08:00 EDT on the US spring-forward day and 08:00 EST on the fall-back day', async () => {
  await refresh(SPRING_US_NOW);
  expect((await cache())['A/nyc-store/7']).toBe(1);
  await refresh(FALL_US_NOW);
  expect((await cache())['A/nyc-store/7']).toBe(1);
});

test('is idempotent: a second run at the same instant leaves the table as it was', async () => {
  await refresh(SPRING_EU_NOW);
  const first = await allItems();
  await refresh(SPRING_EU_NOW);
  expect(await allItems()).toEqual(first);
});

test('removes the entry of a group that has closed since the last run', async () => {
  await refresh('2024-03-30T20:00:00.000Z'); // Saturday 21:00 CET, 16:00 EDT: every group is open
  expect(Object.keys(await cache())).toEqual([
    'A/berlin-mall/1',
    'A/berlin-mall/2',
    'A/berlin-mall/3',
    'A/nyc-store/7',
    'B/berlin-mall/1',
  ]);
  // Sunday 12:00 CEST: the food court is closed on Sundays, New York (06:00 EDT) not open yet.
  const summary = await refresh(SPRING_EU_NOW);
  expect(summary.entriesDeleted).toBe(2);
  expect(Object.keys(await cache())).toEqual(['A/berlin-mall/1', 'A/berlin-mall/3', 'B/berlin-mall/1']);
});

/** The real engine, failing for the locations named. */
class FailingFor implements ReportEngine {
  readonly maxBuckets = 65_535;
  constructor(private readonly locationIds: readonly string[]) {}
  run(plan: ReportPlan, scope: Scope): Promise<EngineResult> {
    if (plan.locationIds?.some((id) => this.locationIds.includes(id)))
      return Promise.reject(new Error('engine timed out'));
    return openSearch.run(plan, scope);
  }
}

test('logs and counts a failing location and refreshes the others', async () => {
  const summary = await refresh(SPRING_US_NOW, new FailingFor(['nyc-store']));
  expect(summary).toMatchObject({
    locations: 3,
    refreshedLocations: 2,
    failedLocations: 1,
    failures: [{ organizationId: ORG_A, locationId: 'nyc-store', message: 'engine timed out' }],
  });
  expect(await cache()).toHaveProperty(['A/berlin-mall/1']);
  expect(await cache()).not.toHaveProperty(['A/nyc-store/7']);
});

test('fails the run when every location failed, so the error is seen', async () => {
  // 15:00Z: every location has an open group, so every one asks the engine.
  await expect(refresh(SPRING_US_NOW, new FailingFor(['berlin-mall', 'nyc-store']))).rejects.toBeInstanceOf(
    RefreshFailedError,
  );
});

test('feeds GET /locations/{id}/insights/live end to end', async () => {
  await refresh(SPRING_EU_NOW);
  const handler = createLiveInsightsHandler({
    store: () => table.store,
    now: () => Date.parse(SPRING_EU_NOW) + 90_000,
  });
  const response = await invoke(handler, {
    method: 'GET',
    path: '/locations/berlin-mall/insights/live',
    pathParameters: { locationId: 'berlin-mall' },
    query: { filter: 'occupancy' },
    org: ORG_A,
  });
  expect(response.json()).toEqual({
    insights: {
      occupancy: [
        { sensorGroup: { id: 1, name: 'Entrance hall' }, occupancy: 2 },
        { sensorGroup: { id: 3, name: 'Parking' }, occupancy: 0 },
      ],
    },
  });
});
