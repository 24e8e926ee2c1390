import type { DuckDBInstance } from '@duckdb/node-api';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { parseDocument } from '#shared/documents/documents';
import type { ReportEngine } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { createOccupancyHistoryHandler } from '../../../functions/occupancy-history';
import { invoke } from '../../../bin/dev/lambda-events';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { ORG_A, ORG_B, importFile, springEuEvents, springUsEvents } from '../../fixtures/locations';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * GET /locations/{id}/insights/history through the real handler, on both engines over the same
 * events (test/fixtures/locations.ts, where each event is explained), the locations in DynamoDB
 * Local. Every expected value is worked out by hand in the comments; both engines must answer alike.
 */
const client = testClient();
const prefix = uniquePrefix('history');
/**
 * A shop open 08:03–08:12 UTC, off the 5-minute marks: in at 08:01 (before it opens), 08:04, 08:06; out 08:11; in 08:12
 * (closed).
 */
const offMarks = (
  [
    '2024-06-03T08:01:00Z',
    '2024-06-03T08:04:00Z',
    '2024-06-03T08:06:00Z',
    '2024-06-03T08:11:00Z',
    '2024-06-03T08:12:00Z',
  ] as const
).map((timestamp, i) => ({
  organizationId: ORG_A,
  locationId: 'shop',
  trackingCameraId: 'cam-1',
  label: 'person',
  timestamp,
  polygons: [],
  crossedPaths: [{ id: 'door', start: i === 3 ? 'A' : 'B', end: i === 3 ? 'B' : 'A' }],
}));
const shop = {
  location: {
    id: 'shop',
    name: 'Shop',
    organizationId: ORG_A,
    type: 'store',
    timezone: 'UTC',
    createdBy: null,
    updatedBy: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  },
  sensorGroups: [
    {
      id: 1,
      name: 'Shop',
      lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'A' as const }],
      openingHours: { monday: [{ open: '08:03', close: '08:12' }] },
    },
  ],
};
const events = [...springEuEvents, ...springUsEvents, ...offMarks];
let duckdb: DuckDBInstance;
let table: TestTable;
let engines: Record<'opensearch' | 'duckdb', ReportEngine>;

beforeAll(async () => {
  await indexDocuments(client, prefix, { movementEvents: events });
  duckdb = await openDuckDb(':memory:');
  await ingestDocuments(
    duckdb,
    'movementEvents',
    events.map((e, i) => parseDocument('movementEvents', e, `/${i}`)),
  );
  engines = {
    opensearch: new OpenSearchEngine(client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS }),
    duckdb: new DuckDbEngine(duckdb, { maxBuckets: TEST_MAX_BUCKETS }),
  };
  table = await createTestTable('history');
  await applyImport(table.store, validateImportFile(importFile), { now: new Date('2024-01-01T00:00:00Z') });
});
afterAll(async () => {
  await table.drop();
  duckdb.closeSync();
  await deleteIndices(client, prefix);
  await client.close();
});

async function history(
  engine: ReportEngine,
  locationId: string,
  query: Record<string, string>,
  options: { org?: string; accept?: string } = {},
) {
  // The shop's hours are off the marks; the import's locations come from DynamoDB Local.
  const store = {
    getLocationWithGroups: (org: string, id: string) =>
      org === ORG_A && id === 'shop' ? Promise.resolve(shop) : table.store.getLocationWithGroups(org, id),
  };
  const handler = createOccupancyHistoryHandler({ store: async () => store, engine: async () => engine });
  return invoke(handler, {
    method: 'GET',
    path: `/locations/${locationId}/insights/history`,
    pathParameters: { locationId },
    query: { filter: 'occupancy', ...query },
    headers: { accept: options.accept ?? 'application/json' },
    org: options.org ?? ORG_A,
  });
}

const bucket = (timestamp: string, occupancy?: number, peak?: number) =>
  occupancy === undefined ? { timestamp } : { timestamp, occupancy, peak };
const hours = (values: readonly (readonly [number, number] | undefined)[], from = '2024-03-31T03:00:00.000Z') =>
  values.map((v, i) => bucket(new Date(Date.parse(from) + i * 3_600_000).toISOString(), v?.[0], v?.[1]));

describe.each(['opensearch', 'duckdb'] as const)('on %s', (name) => {
  test("answers hourly occupancy and peak per sensor group on Europe's spring-forward day", async () => {
    // Act: 05:00–12:00 CEST (03:00Z–10:00Z).
    const response = await history(engines[name], 'berlin-mall', {
      from: '2024-03-31T03:00:00Z',
      to: '2024-03-31T10:00:00Z',
      interval: '1h',
    });
    // Assess
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      timeZone: 'Europe/Berlin',
      interval: '1h',
      from: '2024-03-31T03:00:00.000Z',
      to: '2024-03-31T10:00:00.000Z',
      insights: {
        occupancy: [
          {
            sensorGroup: { id: 1, name: 'Entrance hall' },
            // Opens 06:00 CEST = 04:00Z (e1 at 03:50Z is before, and the 04:00 mark is the opening: 0, not a sample of
            // 03:00). 04:00–05:00: e2 04:10 and e3 04:20 in → 2 (e4 at 05:00 is counted from the 05:05 mark on).
            // 05:00–06:00: 1 (e4 out; org B's b1 at 05:00 is not this organization's). 06:00–07:00: e5 in → 2.
            // 07:00–08:00: e6 out → 1 (e7 is cam-2 crossing a line configured for cam-1). 08:00–10:00: e8 in → 2.
            buckets: hours([undefined, [2, 2], [1, 1], [2, 2], [1, 1], [2, 2], [2, 2]]),
          },
          // Closed on Sundays.
          {
            sensorGroup: { id: 2, name: 'Food court' },
            buckets: hours([undefined, undefined, undefined, undefined, undefined, undefined, undefined]),
          },
          // Open since 23:00Z the day before: p1 in → 1 all morning; p3 out at 09:00 → 0; p4 out → max(0, −1) = 0.
          {
            sensorGroup: { id: 3, name: 'Parking' },
            buckets: hours([
              [1, 1],
              [1, 1],
              [1, 1],
              [1, 1],
              [1, 1],
              [1, 1],
              [0, 0],
            ]),
          },
        ],
      },
    });
  });

  test('answers the local day (23 hours on the DST day): occupancy at the closing, peak over the day', async () => {
    const response = await history(engines[name], 'berlin-mall', {
      from: '2024-03-31T00:00:00+01:00',
      to: '2024-04-01T00:00:00+02:00',
      interval: '1d',
    });
    const groups = response.json<{ insights: { occupancy: { buckets: unknown[] }[] } }>().insights.occupancy;
    // Hall: e9 at 10:00Z brings it to 3, kept until the 22:00 CEST closing. Parking: 1 after p1, 0 at midnight.
    expect(groups.map((g) => g.buckets)).toEqual([
      [bucket('2024-03-30T23:00:00.000Z', 3, 3)],
      [bucket('2024-03-30T23:00:00.000Z')],
      [bucket('2024-03-30T23:00:00.000Z', 0, 1)],
    ]);
  });

  test('answers CSV by Accept: one row per group and 15-minute bucket, closed buckets empty', async () => {
    // New York opens 08:00 EDT = 12:00Z on the US spring-forward day; n2 at 12:10 in, n3 at 12:40 in.
    // localTime: the same starts on New York's wall clock, EDT (-04:00) since 07:00Z that day. The group
    // has no capacity: capacity, utilization and peakUtilization are empty.
    const response = await history(
      engines[name],
      'nyc-store',
      { from: '2024-03-10T11:30:00Z', to: '2024-03-10T13:00:00Z' },
      { accept: 'text/csv' },
    );
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.body).toBe(
      'sensorGroupId,sensorGroupName,timestamp,localTime,occupancy,peak,capacity,utilization,peakUtilization\r\n' +
        '7,Store,2024-03-10T11:30:00.000Z,2024-03-10T07:30:00-04:00,,,,,\r\n' +
        '7,Store,2024-03-10T11:45:00.000Z,2024-03-10T07:45:00-04:00,,,,,\r\n' +
        '7,Store,2024-03-10T12:00:00.000Z,2024-03-10T08:00:00-04:00,1,1,,,\r\n' +
        '7,Store,2024-03-10T12:15:00.000Z,2024-03-10T08:15:00-04:00,1,1,,,\r\n' +
        '7,Store,2024-03-10T12:30:00.000Z,2024-03-10T08:30:00-04:00,2,2,,,\r\n' +
        '7,Store,2024-03-10T12:45:00.000Z,2024-03-10T08:45:00-04:00,2,2,,,\r\n',
    );
  });

  test('counts from an opening off the marks and up to a closing off the marks (the pieces of their slots)', async () => {
    const response = await history(engines[name], 'shop', {
      from: '2024-06-03T07:55:00Z',
      to: '2024-06-03T08:20:00Z',
      interval: '5m',
    });
    // 08:05: one in since 08:03 (the 08:01 one is before the opening); 08:10: two; the 08:12 closing: 2 − 1 = 1.
    expect(
      response.json<{ insights: { occupancy: { buckets: unknown[] }[] } }>().insights.occupancy[0]!.buckets,
    ).toEqual([
      bucket('2024-06-03T07:55:00.000Z'),
      bucket('2024-06-03T08:00:00.000Z', 1, 1),
      bucket('2024-06-03T08:05:00.000Z', 2, 2),
      bucket('2024-06-03T08:10:00.000Z', 1, 1),
      bucket('2024-06-03T08:15:00.000Z'),
    ]);
  });

  test("answers another organization's location, and an unknown one, with the same 404", async () => {
    const range = { from: '2024-03-31T03:00:00Z', to: '2024-03-31T04:00:00Z' };
    const foreign = await history(engines[name], 'nyc-store', range, { org: ORG_B });
    const unknown = await history(engines[name], 'nowhere', range);
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    // Org B's own berlin-mall: its lobby counts b1 (05:00Z) only.
    const own = await history(
      engines[name],
      'berlin-mall',
      { from: '2024-03-31T05:00:00Z', to: '2024-03-31T05:10:00Z', interval: '5m' },
      { org: ORG_B },
    );
    expect(own.json<{ insights: unknown }>().insights).toEqual({
      occupancy: [
        {
          sensorGroup: { id: 1, name: 'Lobby' },
          buckets: [bucket('2024-03-31T05:00:00.000Z', 1, 1), bucket('2024-03-31T05:05:00.000Z', 1, 1)],
        },
      ],
    });
  });
});

test('both engines answer every interval of a day alike', async () => {
  for (const interval of ['5m', '10m', '15m', '30m', '1h', '1d']) {
    const query = { from: '2024-03-30T22:00:00Z', to: '2024-03-31T22:00:00Z', interval };
    const [a, b] = await Promise.all([
      history(engines.opensearch, 'berlin-mall', query),
      history(engines.duckdb, 'berlin-mall', query),
    ]);
    expect(a.status).toBe(200);
    expect(b.body).toBe(a.body);
  }
});
