import type { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument } from '#shared/documents/documents';
import type { Collection } from '#shared/documents/fields';
import type { LiveView } from '#shared/locations/store';
import type { ReportEngine } from '#shared/stores/store';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { createLiveInsightsHandler } from '../../../functions/live-insights';
import { invoke } from '../../../bin/dev/lambda-events';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { ORG_A, ORG_B } from '../../fixtures/locations';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from '../support/opensearch';

/**
 * GET /locations/{id}/insights/live?filter=health through the real handler, on both engines over the
 * same hand-made timelines (docs/sensor-health.md has the rule). The depot is in Berlin (UTC+2 in
 * June); "now" is Tuesday 2024-06-11 12:50 local (10:50Z). Every day from Saturday June 1:
 * - cam-gate (Gate, open 08–20): an event every 10 min 08:00–19:50; today it stopped after 10:00.
 *   Learned rates: 6/h at Tuesday 11:00 and 12:00 (June 4), 3.5/h at Tuesday 10:00 (June 4: 6, today: 1).
 *   Expected since 10:00 = 3.5 + 6 + 6 × 50/60 = 14.5 ≥ 7 → silent; usual gap at 12:00: 3600/6 = 600 s.
 * - cam-lunch (Gate): every 10 min 08:00–11:50 and 13:00–19:50 (nothing at 12:00 ever); today up to
 *   11:50. Sixty minutes without an event, six usual gaps of 11:00, but expected since 11:50 =
 *   6 × 10/60 + 0 = 1 < 7 → ok; its 12:00 is usually quiet: no usual gap.
 * - cam-market (Market, open 06–12): every 10 min 06:00–11:50, today too: the market is closed now,
 *   its quiet closed hour is not silence → ok, no usual gap.
 * - cam-new (Yard, open 08–20): only since Sunday June 9 (< 7 days learned) → unknown, last 12:40.
 * - cam-ghost (Yard): never an event → unknown, no last event.
 * - lot P1 (stats every 15 min, day and night) up to 12:45 → ok, usual gap 3600/4 = 900 s;
 *   lot P2 the same until 06:00 today → 6 h 50 min without stats → silent.
 * Organization B has a depot too (Gate: cam-gate) whose cam-gate sent only today 08:00–12:40.
 */
const client = testClient();
const prefix = uniquePrefix('sensor-health');
const NOW = Date.parse('2024-06-11T10:50:00Z');
const at = (day: number, hh: number, mm: number) => Date.UTC(2024, 5, day, hh - 2, mm); // Berlin, June: UTC+2
const every = (minutes: number, day: number, from: [number, number], to: [number, number]) => {
  const out: number[] = [];
  for (let t = at(day, ...from); t <= at(day, ...to); t += minutes * 60_000) out.push(t);
  return out;
};
const days = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const move = (org: string, camera: string, t: number) => ({
  organizationId: org,
  locationId: 'depot',
  trackingCameraId: camera,
  label: 'person',
  timestamp: new Date(t).toISOString(),
  polygons: [],
  crossedPaths: [{ id: 'door', start: 'B', end: 'A' }],
});
const stats = (lot: string, t: number) => ({
  organizationId: ORG_A,
  locationId: 'depot',
  parkingLotId: lot,
  occupied: 3,
  free: 7,
  total: 10,
  timestamp: new Date(t).toISOString(),
});
const movementEvents = [
  ...days(1, 10)
    .flatMap((d) => every(10, d, [8, 0], [19, 50]))
    .concat(every(10, 11, [8, 0], [10, 0]))
    .map((t) => move(ORG_A, 'cam-gate', t)),
  ...days(1, 11)
    .flatMap((d) => [...every(10, d, [8, 0], [11, 50]), ...(d < 11 ? every(10, d, [13, 0], [19, 50]) : [])])
    .map((t) => move(ORG_A, 'cam-lunch', t)),
  ...days(1, 11)
    .flatMap((d) => every(10, d, [6, 0], [11, 50]))
    .map((t) => move(ORG_A, 'cam-market', t)),
  ...days(9, 10)
    .flatMap((d) => every(10, d, [8, 0], [19, 50]))
    .concat(every(10, 11, [8, 0], [12, 40]))
    .map((t) => move(ORG_A, 'cam-new', t)),
  ...every(10, 11, [8, 0], [12, 40]).map((t) => move(ORG_B, 'cam-gate', t)),
];
const allDay = (d: number) => every(15, d, [0, 0], [23, 45]);
const parkingLotStats = [
  ...days(1, 10)
    .flatMap(allDay)
    .concat(every(15, 11, [0, 0], [12, 45]))
    .map((t) => stats('P1', t)),
  ...days(1, 10)
    .flatMap(allDay)
    .concat(every(15, 11, [0, 0], [6, 0]))
    .map((t) => stats('P2', t)),
];

const daily = (open: string, close: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, [{ open, close }]]),
  );
const line = (camera: string) => ({ trackingCameraId: camera, lineId: 'door', inDirection: 'A' as const });
const depot = (
  organizationId: string,
  sensorGroups: LiveView['sensorGroups'],
  occupancy: LiveView['occupancy'] = [],
): LiveView => ({
  location: {
    id: 'depot',
    organizationId,
    name: 'Depot',
    type: 'depot',
    timezone: 'Europe/Berlin',
    createdBy: null,
    updatedBy: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  },
  sensorGroups,
  occupancy,
});
const views: Record<string, LiveView> = {
  [ORG_A]: depot(
    ORG_A,
    [
      { id: 1, name: 'Gate', lines: [line('cam-gate'), line('cam-lunch')], openingHours: daily('08:00', '20:00') },
      { id: 2, name: 'Yard', lines: [line('cam-new'), line('cam-ghost')], openingHours: daily('08:00', '20:00') },
      { id: 3, name: 'Market', lines: [line('cam-market')], openingHours: daily('06:00', '12:00') },
    ],
    [
      {
        organizationId: ORG_A,
        locationId: 'depot',
        sensorGroupId: 1,
        name: 'Gate',
        occupancy: 5,
        openedAt: '2024-06-11T06:00:00.000Z',
        refreshedAt: '2024-06-11T10:50:00.000Z',
      },
    ],
  ),
  [ORG_B]: depot(ORG_B, [{ id: 1, name: 'Gate', lines: [line('cam-gate')], openingHours: daily('08:00', '20:00') }]),
};
const store = { getLiveView: async (org: string, id: string) => (id === 'depot' ? views[org] : undefined) };

let duckdb: DuckDBInstance;
let engines: Record<'opensearch' | 'duckdb', ReportEngine>;

beforeAll(async () => {
  await indexDocuments(client, prefix, { movementEvents, parkingLotStats });
  duckdb = await openDuckDb(':memory:');
  for (const [collection, docs] of [
    ['movementEvents', movementEvents],
    ['parkingLotStats', parkingLotStats],
  ] as const) {
    await ingestDocuments(
      duckdb,
      collection as Collection,
      docs.map((e, i) => parseDocument(collection as Collection, e, `/${i}`)),
    );
  }
  engines = {
    opensearch: new OpenSearchEngine(client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS }),
    duckdb: new DuckDbEngine(duckdb, { maxBuckets: TEST_MAX_BUCKETS }),
  };
}, 120_000);
afterAll(async () => {
  duckdb.closeSync();
  await deleteIndices(client, prefix);
  await client.close();
});

const live = (engine: () => Promise<ReportEngine>, filter: string, org = ORG_A) =>
  invoke(createLiveInsightsHandler({ store: () => store, engine, now: () => NOW }), {
    method: 'GET',
    path: '/locations/depot/insights/live',
    pathParameters: { locationId: 'depot' },
    query: { filter },
    org,
  });

const camera = (
  trackingCameraId: string,
  sensorGroupIds: number[],
  status: string,
  lastEventAt: string | null,
  usualGapSeconds: number | null,
) => ({
  trackingCameraId,
  sensorGroupIds,
  status,
  lastEventAt,
  usualGapSeconds,
});
const expectedHealth = {
  cameras: [
    camera('cam-gate', [1], 'silent', '2024-06-11T08:00:00.000Z', 600),
    camera('cam-ghost', [2], 'unknown', null, null),
    camera('cam-lunch', [1], 'ok', '2024-06-11T09:50:00.000Z', null),
    camera('cam-market', [3], 'ok', '2024-06-11T09:50:00.000Z', null),
    camera('cam-new', [2], 'unknown', '2024-06-11T10:40:00.000Z', null),
  ],
  parkingLots: [
    { parkingLotId: 'P1', status: 'ok', lastEventAt: '2024-06-11T10:45:00.000Z', usualGapSeconds: 900 },
    { parkingLotId: 'P2', status: 'silent', lastEventAt: '2024-06-11T04:00:00.000Z', usualGapSeconds: 900 },
  ],
};

describe.each(['opensearch', 'duckdb'] as const)('on %s', (name) => {
  const engine = async () => engines[name];

  test('filter=health: a silent camera and lot, a quiet hour and a closed group that are not silent, too little history', async () => {
    const response = await live(engine, 'health');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ insights: { health: expectedHealth } });
  });

  test('filter=occupancy,health answers both, occupancy as filter=occupancy does', async () => {
    const response = await live(engine, 'occupancy, health');
    expect(response.json()).toEqual({
      insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Gate' }, occupancy: 5 }], health: expectedHealth },
    });
  });

  test("another organization sees its own cameras from its own events only, and no lot of this one's", async () => {
    const response = await live(engine, 'health', ORG_B);
    expect(response.json()).toEqual({
      insights: {
        health: { cameras: [camera('cam-gate', [1], 'unknown', '2024-06-11T10:40:00.000Z', null)], parkingLots: [] },
      },
    });
  });
});

test('filter=occupancy never asks the report engine', async () => {
  const response = await live(() => Promise.reject(new Error('engine asked')), 'occupancy');
  expect(response.status).toBe(200);
  expect(response.json()).toEqual({
    insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Gate' }, occupancy: 5 }] },
  });
});
