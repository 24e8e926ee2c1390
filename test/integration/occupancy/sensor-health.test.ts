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
 *
 * A DST day: the harbour (Berlin, group Night open 00:00–06:00) on Sunday 2024-03-31, when the clocks
 * jump from 02:00 CET (UTC+1) to 03:00 CEST (UTC+2), at 01:00Z. Its 28 learned days are March 3–30
 * (all CET): cam-dawn and cam-stop send every 10 min 01:00–03:50 local, so Sunday 01:00, 02:00 and
 * 03:00 have 6/h, learned over 27 × 24 + 3 = 651 hours. Today cam-dawn sent 01:00–01:50 CET
 * (00:00Z–00:50Z), cam-stop at 01:00 CET (00:00Z) only. "Now" is 03:50 CEST (01:50Z):
 * - cam-dawn: 60 real minutes of silence: 10 min of Sunday 01:00 (6 × 10/60 = 1) and 50 of Sunday
 *   03:00 (6 × 50/60 = 5), 6 < 7 → ok (the wall clock shows 2 h: counted by it, 12 would be silent).
 * - cam-stop: 60 min of 01:00 (6) + 50 of 03:00 (5) = 11 ≥ 7 → silent. Both: usual gap 3600/6 = 600 s.
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
const move = (org: string, camera: string, t: number, locationId = 'depot') => ({
  organizationId: org,
  locationId,
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
  ...harbourEvents(),
];
/** March 2024 in Berlin: CET (UTC+1) until the clocks jump at 2024-03-31T01:00Z. */
function harbourEvents() {
  const cet = (day: number, hh: number, mm: number) => Date.UTC(2024, 2, day, hh - 1, mm);
  const out = [];
  for (const camera of ['cam-dawn', 'cam-stop']) {
    for (let day = 3; day <= 30; day++) {
      for (let t = cet(day, 1, 0); t <= cet(day, 3, 50); t += 600_000) out.push(move(ORG_A, camera, t, 'harbour'));
    }
  }
  for (let t = cet(31, 1, 0); t <= cet(31, 1, 50); t += 600_000) out.push(move(ORG_A, 'cam-dawn', t, 'harbour'));
  out.push(move(ORG_A, 'cam-stop', cet(31, 1, 0), 'harbour'));
  return out;
}
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
  id = 'depot',
): LiveView => ({
  location: {
    id,
    organizationId,
    name: id,
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
const harbour = depot(
  ORG_A,
  [{ id: 7, name: 'Night', lines: [line('cam-dawn'), line('cam-stop')], openingHours: daily('00:00', '06:00') }],
  [],
  'harbour',
);
const store = {
  getLiveView: async (org: string, id: string) =>
    id === 'depot' ? views[org] : id === 'harbour' && org === ORG_A ? harbour : undefined,
};

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

const live = (
  engine: () => Promise<ReportEngine>,
  filter: string,
  org = ORG_A,
  { now = NOW, locationId = 'depot', locations }: { now?: number; locationId?: string; locations?: string[] } = {},
) =>
  invoke(createLiveInsightsHandler({ store: () => store, engine, now: () => now }), {
    method: 'GET',
    path: `/locations/${locationId}/insights/live`,
    pathParameters: { locationId },
    query: { filter },
    org,
    ...(locations ? { locations } : {}),
  });

/** An engine that notes where each report's time range starts (epoch ms), then runs it. */
const recording = (inner: ReportEngine) => {
  const froms: number[] = [];
  const engine: ReportEngine = {
    maxBuckets: inner.maxBuckets,
    run: (plan, scope, options) => {
      froms.push(plan.timeRange?.from ?? Number.NEGATIVE_INFINITY);
      return inner.run(plan, scope, options);
    },
  };
  return { engine: async () => engine, froms };
};

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

  test('a DST day (clocks jump 02:00 → 03:00): silence is counted in real time, hour by local hour', async () => {
    const response = await live(engine, 'health', ORG_A, {
      now: Date.parse('2024-03-31T01:50:00Z'),
      locationId: 'harbour',
    });
    expect(response.json()).toEqual({
      insights: {
        health: {
          cameras: [
            camera('cam-dawn', [7], 'ok', '2024-03-31T00:50:00.000Z', 600),
            camera('cam-stop', [7], 'silent', '2024-03-31T00:00:00.000Z', 600),
          ],
          parkingLots: [],
        },
      },
    });
  });

  test('the learning is read once a day per location: a later answer that day reads today only', async () => {
    const { engine: counted, froms } = recording(engines[name]);
    // 28 days before June 11 00:00 in Berlin (UTC+2) is May 14 00:00, 2024-05-13T22:00Z.
    expect((await live(counted, 'health')).json()).toEqual({ insights: { health: expectedHealth } });
    expect(froms).toContain(Date.parse('2024-05-13T22:00:00Z'));
    froms.length = 0;
    const later = await live(counted, 'health', ORG_A, { now: NOW + 5 * 60_000 });
    expect(later.json()).toEqual({ insights: { health: expectedHealth } });
    expect(froms.length).toBeGreaterThan(0);
    expect(froms.filter((from) => from < Date.parse('2024-06-10T22:00:00Z'))).toEqual([]);
    froms.length = 0;
    // The next day learns again, from May 15 00:00 local.
    await live(counted, 'health', ORG_A, { now: NOW + 24 * 3_600_000 });
    expect(froms).toContain(Date.parse('2024-05-14T22:00:00Z'));
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

test('a token granted other locations only: filter=health is the 404 filter=occupancy gives, and reads nothing', async () => {
  const refused = () => Promise.reject(new Error('engine asked'));
  const occupancy = await live(refused, 'occupancy', ORG_A, { locations: ['harbour'] });
  const health = await live(refused, 'health', ORG_A, { locations: ['harbour'] });
  expect(occupancy.status).toBe(404);
  expect(health.status).toBe(404);
  expect(health.json()).toEqual(occupancy.json());
  expect((await live(refused, 'occupancy', ORG_A, { locations: ['depot'] })).status).toBe(200);
});

test('filter=occupancy never asks the report engine', async () => {
  const response = await live(() => Promise.reject(new Error('engine asked')), 'occupancy');
  expect(response.status).toBe(200);
  expect(response.json()).toEqual({
    insights: { occupancy: [{ sensorGroup: { id: 1, name: 'Gate' }, occupancy: 5 }] },
  });
});
