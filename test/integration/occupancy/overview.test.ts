import type { DuckDBInstance } from '@duckdb/node-api';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { parseDocument } from '#shared/documents/documents';
import type { ReportEngine } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { createSitesOverviewHandler } from '../../../functions/sites-overview';
import { invoke } from '../../../bin/dev/lambda-events';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * GET /insights/overview through the real handler, on both engines over the same events, the
 * locations and their cache entries in DynamoDB Local. "Now" is Sunday 2024-03-31 10:00Z, Europe's
 * spring-forward day: 12:00 CEST in Berlin, whose day began at 23:00Z (CET) and lost its 02:00
 * hour; 06:00 EDT in New York, whose day began at 04:00Z. A week before (Sunday the 24th) Berlin was
 * on CET, so "the same time" there is 12:00 CET = 11:00Z, not the 10:00Z that the same time elapsed
 * since midnight would give; New York's is 06:00 EDT = 10:00Z. Every expected number is counted by
 * hand from the events below.
 */
const client = testClient();
const prefix = uniquePrefix('overview');
const NOW = Date.parse('2024-03-31T10:00:00Z');

const event = (org: string, locationId: string, timestamp: string) => ({
  organizationId: org,
  locationId,
  trackingCameraId: 'cam-1',
  label: 'person',
  timestamp,
  crossedPaths: [],
  polygons: [],
});
const events = [
  event(ORG_A, 'berlin-mall', '2024-03-30T22:30:00Z'), // 23:30 CET on the 30th: yesterday
  event(ORG_A, 'berlin-mall', '2024-03-30T23:10:00Z'), // 00:10: hour 0
  event(ORG_A, 'berlin-mall', '2024-03-31T00:50:00Z'), // 01:50 CET: hour 1
  event(ORG_A, 'berlin-mall', '2024-03-31T01:10:00Z'), // 03:10 CEST: the third hour (02:00 was skipped)
  event(ORG_A, 'berlin-mall', '2024-03-31T09:59:00Z'), // 11:59 CEST: the eleventh hour, the last so far
  event(ORG_A, 'berlin-mall', '2024-03-31T10:00:00Z'), // at now: ranges are half-open
  event(ORG_A, 'berlin-mall', '2024-03-23T23:30:00Z'), // a week before, 00:30 CET: hour 0
  event(ORG_A, 'berlin-mall', '2024-03-24T10:30:00Z'), // 11:30 CET: before 12:00 CET (after 11:00 elapsed)
  event(ORG_A, 'berlin-mall', '2024-03-24T11:00:00Z'), // 12:00 CET: at the same time, so not before it
  event(ORG_A, 'berlin-mall', '2024-03-24T22:59:00Z'), // 23:59 CET: the last hour
  event(ORG_A, 'nyc-store', '2024-03-31T03:59:00Z'), // 23:59 EDT on the 30th: yesterday
  event(ORG_A, 'nyc-store', '2024-03-31T04:00:00Z'), // 00:00 EDT: hour 0
  event(ORG_A, 'nyc-store', '2024-03-31T09:30:00Z'), // 05:30: hour 5
  event(ORG_A, 'nyc-store', '2024-03-24T09:00:00Z'), // a week before, 05:00 EDT: hour 5
  event(ORG_B, 'berlin-mall', '2024-03-31T05:00:00Z'), // org B's location of the same id: never A's
  // 11:30 CEST at a second Berlin site: the eleventh hour, as the mall's 11:59
  event(ORG_A, 'berlin-outlet', '2024-03-31T09:30:00Z'),
  event(ORG_A, 'berlin-outlet', '2024-03-24T10:00:00Z'), // a week before, 11:00 CET: the same hour as the mall's 11:30
];
/** The fixture's locations, org A's Entrance hall with a capacity of 8 (the Parking has none). */
const withCapacity = {
  locations: importFile.locations.map((l) =>
    l.organizationId === ORG_A && l.id === 'berlin-mall'
      ? { ...l, sensorGroups: l.sensorGroups?.map((g) => (g.id === 1 ? { ...g, capacity: 8 } : g)) }
      : l,
  ),
};
/** A second site in Berlin's zone, without sensor groups: counted in the same plans as berlin-mall. */
const outlet = {
  locations: [{ id: 'berlin-outlet', organizationId: ORG_A, type: 'store', timezone: 'Europe/Berlin' }],
};

let duckdb: DuckDBInstance;
let table: TestTable;
let engines: Record<'opensearch' | 'duckdb' | 'opensearch, terms cap 1' | 'duckdb, terms cap 1', ReportEngine>;

const entry = (
  org: string,
  sensorGroupId: number,
  occupancy: number,
  openedAt: string,
  refreshedAt = '2024-03-31T09:55:00.000Z',
) => ({
  organizationId: org,
  locationId: 'berlin-mall',
  sensorGroupId,
  name: 'cached name',
  occupancy,
  openedAt,
  refreshedAt,
});

beforeAll(async () => {
  await indexDocuments(client, prefix, { movementEvents: events });
  duckdb = await openDuckDb(':memory:');
  await ingestDocuments(
    duckdb,
    'movementEvents',
    events.map((e, i) => parseDocument('movementEvents', e, `/${i}`)),
  );
  // A terms cap of 1 cuts the grouping of the two Berlin sites by location: each is then counted in a bucket of its
  // own.
  engines = {
    opensearch: new OpenSearchEngine(client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS }),
    duckdb: new DuckDbEngine(duckdb, { maxBuckets: TEST_MAX_BUCKETS }),
    'opensearch, terms cap 1': new OpenSearchEngine(client, {
      indexPrefix: prefix,
      maxBuckets: TEST_MAX_BUCKETS,
      limits: { termsCap: 1 },
    }),
    'duckdb, terms cap 1': new DuckDbEngine(duckdb, { maxBuckets: TEST_MAX_BUCKETS, limits: { termsCap: 1 } }),
  };
  table = await createTestTable('overview');
  await applyImport(table.store, validateImportFile(withCapacity), { now: new Date('2024-01-01T00:00:00Z') });
  await applyImport(table.store, validateImportFile(outlet), { now: new Date('2024-01-01T00:00:00Z') });
  // Berlin at 12:00 CEST: the Entrance hall (06:00–22:00 CEST, opened 04:00Z) has 2, the Parking
  // (all day, opened at midnight CET, 23:00Z) 1; the Food court is closed on Sundays, its entry stale.
  await table.store.putOccupancy(entry(ORG_A, 1, 2, '2024-03-31T04:00:00.000Z'));
  await table.store.putOccupancy(entry(ORG_A, 3, 1, '2024-03-30T23:00:00.000Z'));
  await table.store.putOccupancy(entry(ORG_A, 2, 40, '2024-03-30T10:00:00.000Z'));
  await table.store.putOccupancy(entry(ORG_B, 1, 99, '2024-03-31T04:00:00.000Z'));
});
afterAll(async () => {
  await table.drop();
  duckdb.closeSync();
  await deleteIndices(client, prefix);
  await client.close();
});

const overview = (engine: ReportEngine, org: string) =>
  invoke(createSitesOverviewHandler({ store: async () => table.store, engine: async () => engine, now: () => NOW }), {
    method: 'GET',
    path: '/insights/overview',
    org,
  });

const hours = (length: number, ones: Record<number, number>) => Array.from({ length }, (_, i) => ones[i] ?? 0);

describe.each(['opensearch', 'duckdb', 'opensearch, terms cap 1', 'duckdb, terms cap 1'] as const)('on %s', (name) => {
  test('answers every location: people now and how full, today so far and the same day a week before up to the same wall-clock time, by local hour', async () => {
    // Act
    const response = await overview(engines[name], ORG_A);
    // Assess
    expect(response.status).toBe(200);
    // 10:00:00Z → the 10:00 refresh has written by 10:01: 60 s, as the live answer.
    expect(response.headers['cache-control']).toBe('private, max-age=60');
    expect(response.json()).toEqual({
      at: '2024-03-31T10:00:00.000Z',
      locations: [
        {
          id: 'berlin-mall',
          timezone: 'Europe/Berlin',
          // 2 in the hall of 8 (0.25); the Parking's 1 counts in people, not in the share (no capacity).
          occupancy: {
            people: 3,
            groups: 2,
            capacity: 8,
            utilization: 0.25,
            sensorGroups: [
              { sensorGroup: { id: 1, name: 'Entrance hall' }, occupancy: 2, capacity: 8, utilization: 0.25 },
              { sensorGroup: { id: 3, name: 'Parking' }, occupancy: 1 },
            ],
          },
          // 11 local hours so far (00, 01, 03, …, 11): the spring day has no 02:00.
          today: {
            from: '2024-03-30T23:00:00.000Z',
            to: '2024-03-31T10:00:00.000Z',
            count: 4,
            hourly: hours(11, { 0: 1, 1: 1, 2: 1, 10: 1 }),
          },
          lastWeek: {
            from: '2024-03-23T23:00:00.000Z',
            to: '2024-03-24T11:00:00.000Z',
            count: 2,
            hourly: hours(24, { 0: 1, 11: 1, 12: 1, 23: 1 }),
          },
        },
        {
          id: 'berlin-outlet',
          timezone: 'Europe/Berlin',
          occupancy: { people: 0, groups: 0, sensorGroups: [] },
          today: {
            from: '2024-03-30T23:00:00.000Z',
            to: '2024-03-31T10:00:00.000Z',
            count: 1,
            hourly: hours(11, { 10: 1 }),
          },
          lastWeek: {
            from: '2024-03-23T23:00:00.000Z',
            to: '2024-03-24T11:00:00.000Z',
            count: 1,
            hourly: hours(24, { 11: 1 }),
          },
        },
        {
          id: 'nyc-store',
          timezone: 'America/New_York',
          // 06:00 EDT: the store opens at 08:00.
          occupancy: { people: 0, groups: 0, sensorGroups: [] },
          today: {
            from: '2024-03-31T04:00:00.000Z',
            to: '2024-03-31T10:00:00.000Z',
            count: 2,
            hourly: hours(6, { 0: 1, 5: 1 }),
          },
          lastWeek: {
            from: '2024-03-24T04:00:00.000Z',
            to: '2024-03-24T10:00:00.000Z',
            count: 1,
            hourly: hours(24, { 5: 1 }),
          },
        },
      ],
    });
  });

  test('shows another organization only its own location of the same id, with its own counts and people', async () => {
    const body = (await overview(engines[name], ORG_B)).json<{
      locations: { id: string; occupancy: unknown; today: { count: number }; lastWeek: { count: number } }[];
    }>();
    expect(body.locations.map((l) => [l.id, l.occupancy, l.today.count, l.lastWeek.count])).toEqual([
      [
        'berlin-mall',
        { people: 99, groups: 1, sensorGroups: [{ sensorGroup: { id: 1, name: 'Lobby' }, occupancy: 99 }] },
        1,
        0,
      ],
    ]);
  });
});

test('answers 304 to the ETag of the same answer, 406 to an Accept it cannot give, 401 without an organization', async () => {
  const first = await overview(engines.duckdb, ORG_A);
  const handler = createSitesOverviewHandler({
    store: async () => table.store,
    engine: async () => engines.duckdb,
    now: () => NOW,
  });
  const again = await invoke(handler, {
    method: 'GET',
    path: '/insights/overview',
    org: ORG_A,
    headers: { 'if-none-match': first.headers.etag as string },
  });
  expect(again.status).toBe(304);
  const csv = await invoke(handler, {
    method: 'GET',
    path: '/insights/overview',
    org: ORG_A,
    headers: { accept: 'text/csv' },
  });
  expect([csv.status, csv.headers['content-type']]).toEqual([406, 'application/problem+json']);
  expect((await invoke(handler, { method: 'GET', path: '/insights/overview', org: null })).status).toBe(401);
});
