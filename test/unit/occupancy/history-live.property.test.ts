import type { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { checkOpeningHours } from '#shared/locations/checks';
import { WEEKDAYS, type Location, type OpeningHours, type SensorGroup } from '#shared/locations/model';
import type { OccupancyEntry } from '#shared/locations/occupancy-entry';
import { countCrossings, occupancyOf } from '#shared/occupancy/crossings';
import { occupancyHistory } from '#shared/occupancy/history';
import type { HistoryBucket } from '#shared/occupancy/history-model';
import { historyInterval, type HistoryIntervalText } from '#shared/occupancy/history-query';
import { currentOpenPeriod } from '#shared/occupancy/opening-hours';
import { refreshLocation } from '#shared/occupancy/refresh';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { localToInstant } from '#shared/time/local-time';

/**
 * The defining property of the occupancy history: at every 5-minute mark, its value is what the live
 * refresh (refreshLocation, the code the schedule runs) computes at that instant from the same events;
 * at a closing off the marks, the value the live rule gives for the whole open period; a bucket in
 * which the group was closed throughout is empty; and a coarser interval's occupancy and peak are the
 * last and the largest of its 5-minute buckets. Random events, opening hours (any minute, overnight,
 * 24:00, in DST gaps) and days, in zones with DST days and a :30 zone, on a real DuckDB.
 */
const ORG = 'a0000000-0000-4000-8000-00000000000a';
const MINUTE = 60_000;
const SLOT = 5 * MINUTE;

/** Local days, each on a day whose clocks change in its zone, and ordinary ones. */
const DAYS = [
  { zone: 'Europe/Berlin', day: '2024-03-31' },
  { zone: 'Europe/Berlin', day: '2024-10-27' },
  { zone: 'America/New_York', day: '2024-03-10' },
  { zone: 'America/New_York', day: '2024-11-03' },
  { zone: 'Australia/Adelaide', day: '2024-10-06' },
  { zone: 'Asia/Kolkata', day: '2024-06-03' },
  { zone: 'UTC', day: '2024-06-03' },
];

/** Wall-clock minutes opening hours and events gather around: midnight, DST gaps and overlaps, off the marks. */
const POOL = [0, 123, 150, 483, 1197];
const wallTime = fc.oneof(
  fc.integer({ min: 0, max: 1439 }),
  fc.integer({ min: 0, max: 287 }).map((k) => k * 5),
  { arbitrary: fc.constantFrom(...POOL), weight: 3 },
);
const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const interval = fc
  .record({
    open: wallTime,
    length: fc.oneof(
      fc.integer({ min: 1, max: 1440 }),
      fc.integer({ min: 1, max: 600 }),
      fc.integer({ min: 1, max: 600 }),
      wallTime.filter((m) => m > 0),
    ),
  })
  .map(({ open, length }) => {
    const close = open + length;
    return { open: hhmm(open), close: close === 1440 ? '24:00' : hhmm(close % 1440) };
  });
const openingHours: fc.Arbitrary<OpeningHours> = fc
  .tuple(...WEEKDAYS.map(() => fc.array(interval, { minLength: 1, maxLength: 2 })))
  .map((days) => Object.fromEntries(WEEKDAYS.map((d, i) => [d, days[i]!])) as OpeningHours)
  .filter((hours) => checkOpeningHours(hours, '').length === 0);

/** Two groups that share a line counted in opposite directions. */
const groups = (hours: readonly OpeningHours[]): SensorGroup[] => [
  {
    id: 1,
    name: 'Hall',
    openingHours: hours[0]!,
    lines: [
      { trackingCameraId: 'cam-1', lineId: 'l1', inDirection: 'A' },
      { trackingCameraId: 'cam-2', lineId: 'l2', inDirection: 'B' },
    ],
  },
  {
    id: 2,
    name: 'Yard',
    openingHours: hours[1]!,
    lines: [
      { trackingCameraId: 'cam-1', lineId: 'l1', inDirection: 'B' },
      { trackingCameraId: 'cam-3', lineId: 'l3', inDirection: 'A' },
    ],
  },
];

// More towards A than B, so that occupancy climbs above 0 and falls again, and peaks differ from ends.
const crossing = fc.record({ id: fc.constantFrom('l1', 'l2', 'l3', 'other'), end: fc.constantFrom('A', 'A', 'B') });
/**
 * Events on the day and the day before (periods open overnight): anywhere, right on marks (ms after the
 * day's start), or within minutes of the wall-clock times opening hours gather around.
 */
type EventTime =
  | { readonly offset: number }
  | { readonly day: number; readonly minute: number; readonly seconds: number };
const eventTime: fc.Arbitrary<EventTime> = fc.oneof(
  fc.record({ offset: fc.integer({ min: -86_400_000, max: 86_400_000 }) }),
  fc.record({ offset: fc.integer({ min: -288, max: 288 }).map((k) => k * SLOT) }),
  {
    arbitrary: fc.record({
      day: fc.constantFrom(-1, 0),
      minute: fc.constantFrom(...POOL),
      seconds: fc.integer({ min: -5 * 60, max: 5 * 60 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      day: fc.constant(0),
      minute: fc.constantFrom(...POOL),
      seconds: fc.integer({ min: -45 * 60, max: 45 * 60 }),
    }),
    weight: 3,
  },
);
const instantOf = (t: EventTime, day: string, zone: string, dayStart: number): number =>
  'offset' in t
    ? dayStart + t.offset
    : localToInstant(Date.parse(`${day}T00:00:00Z`) + t.day * 86_400_000 + t.minute * MINUTE, zone) + t.seconds * 1000;
/** Mostly a camera crossing its own counting line; sometimes another camera's line id, or a line no group counts. */
const OWN_LINE: Readonly<Record<string, string>> = { 'cam-1': 'l1', 'cam-2': 'l2', 'cam-3': 'l3' };
const events = fc.array(
  fc
    .record({
      at: eventTime,
      camera: fc.constantFrom('cam-1', 'cam-2', 'cam-3'),
      crossings: fc.array(fc.record({ own: fc.constantFrom(true, true, true, false), other: crossing }), {
        minLength: 1,
        maxLength: 2,
      }),
    })
    .map(({ at, camera, crossings }) => ({
      at,
      camera,
      crossings: crossings.map((c) => (c.own ? { ...c.other, id: OWN_LINE[camera]! } : c.other)),
    })),
  { minLength: 60, maxLength: 150 },
);

let duckdb: DuckDBInstance;
let engine: DuckDbEngine;
let run = 0;

beforeAll(async () => {
  duckdb = await openDuckDb(':memory:');
  engine = new DuckDbEngine(duckdb, { maxBuckets: 2000 });
});
afterAll(() => duckdb.closeSync());

/** The history of a location over [from, to) at a coarse interval, and at 5 minutes over the coarse buckets. */
async function histories(
  location: Location,
  sensorGroups: SensorGroup[],
  from: number,
  to: number,
  coarse: HistoryIntervalText,
) {
  const store = { getLocationWithGroups: async () => ({ location, sensorGroups }) };
  const ask = (text: HistoryIntervalText, range: { from: number; to: number }) =>
    occupancyHistory({ store, engine }, { organizationId: ORG }, location.id, {
      kinds: ['occupancy'],
      ...range,
      interval: historyInterval(text),
    });
  const coarser = await ask(coarse, { from, to });
  const fine = await ask('5m', { from: Date.parse(coarser.from), to: Date.parse(coarser.to) });
  return { fine: fine.insights.occupancy!, coarse: coarser.insights.occupancy! };
}

/** What the live refresh writes at `now`: its entries by group id. */
async function live(
  location: Location,
  sensorGroups: SensorGroup[],
  now: number,
): Promise<Map<number, OccupancyEntry>> {
  const written = new Map<number, OccupancyEntry>();
  const store = {
    putOccupancy: async (e: OccupancyEntry) => (written.set(e.sensorGroupId, e), true),
    deleteOccupancy: async () => undefined,
    listForRefresh: async () => [],
  };
  await refreshLocation({ store, engine }, { location, sensorGroups, cachedGroupIds: [] }, now);
  return written;
}

test('at every 5-minute mark the history is what the live refresh computes there, from the same events', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...DAYS),
      fc.tuple(openingHours, openingHours),
      fc.constantFrom<HistoryIntervalText>('15m', '1h', '15m', '1h', '1d'),
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 4, max: 12 }),
      events,
      async ({ zone, day }, hours, coarse, startHour, lengthHours, generated) => {
        // Prepare: a window of whole local hours on that day, the events in DuckDB under a new location id.
        const dayStart = localToInstant(Date.parse(`${day}T00:00:00Z`), zone);
        const from = dayStart + startHour * 3_600_000;
        const to = from + lengthHours * 3_600_000;
        const location: Location = {
          id: `loc-${run++}`,
          name: 'Store',
          organizationId: ORG,
          type: 'store',
          timezone: zone,
          createdBy: null,
          updatedBy: null,
          createdAt: '2024-01-01T00:00:00.000Z',
          updatedAt: '2024-01-01T00:00:00.000Z',
        };
        const sensorGroups = groups(hours);
        const docs = generated.map((e, i) =>
          parseDocument(
            'movementEvents',
            {
              organizationId: ORG,
              locationId: location.id,
              trackingCameraId: e.camera,
              label: 'person',
              timestamp: new Date(instantOf(e.at, day, zone, dayStart)).toISOString(),
              crossedPaths: e.crossings.map((c) => ({ ...c, start: c.end === 'A' ? 'B' : 'A' })),
              polygons: [],
            },
            `/${i}`,
          ),
        );
        await ingestDocuments(duckdb, 'movementEvents', docs);
        // Act
        const { fine, coarse: coarser } = await histories(location, sensorGroups, from, to, coarse);
        // Assess: each group, each 5-minute bucket (b, e] against the live refresh at e.
        const liveAt = new Map<number, Map<number, OccupancyEntry>>();
        for (const bucket of fine[0]!.buckets) {
          const e = Date.parse(bucket.timestamp) + SLOT;
          liveAt.set(e, await live(location, sensorGroups, e));
        }
        for (const [g, group] of sensorGroups.entries()) {
          const buckets = fine[g]!.buckets;
          expect(fine[g]!.sensorGroup).toEqual({ id: group.id, name: group.name });
          for (const bucket of buckets) {
            const b = Date.parse(bucket.timestamp);
            const e = b + SLOT;
            const entry = liveAt.get(e)!.get(group.id);
            const openBefore = [1, 2, 3, 4, 5]
              .map((k) => currentOpenPeriod(group.openingHours, zone, e - k * MINUTE))
              .filter((p) => p !== undefined);
            if (entry && Date.parse(entry.openedAt) < e) {
              expect({ at: bucket.timestamp, occupancy: bucket.occupancy }).toEqual({
                at: bucket.timestamp,
                occupancy: entry.occupancy,
              });
            } else if (openBefore.length === 0) {
              // Closed throughout the bucket (periods start and end on whole minutes or DST jumps).
              expect(bucket).toEqual({ timestamp: bucket.timestamp });
            } else {
              // Closed within the bucket: the live rule over the whole period that ended last.
              const ended = openBefore.find((p) => p.end <= e)!;
              const counts = await countCrossings(
                engine,
                { organizationId: ORG },
                location.id,
                group.lines,
                ended.start,
                ended.end,
              );
              expect({ at: bucket.timestamp, occupancy: bucket.occupancy }).toEqual({
                at: bucket.timestamp,
                occupancy: occupancyOf(group.lines, counts),
              });
            }
          }
          expect(coarser[g]!.buckets).toEqual(coarsen(buckets, coarser[g]!.buckets));
        }
      },
    ),
    // Each run asks the engine a few hundred times: a failure is reported as found, not shrunk.
    { numRuns: Number(process.env.HISTORY_PROPERTY_RUNS ?? 10), endOnFailure: true },
  );
}, 600_000);

/** The coarse buckets from the 5-minute ones: occupancy of the last non-empty one, the largest peak. */
function coarsen(fine: readonly HistoryBucket[], coarse: readonly HistoryBucket[]): HistoryBucket[] {
  return coarse.map((c, i) => {
    const start = Date.parse(c.timestamp);
    const end = i + 1 < coarse.length ? Date.parse(coarse[i + 1]!.timestamp) : Infinity;
    const inside = fine.filter(
      (f) => Date.parse(f.timestamp) >= start && Date.parse(f.timestamp) < end && f.occupancy !== undefined,
    );
    const last = inside[inside.length - 1];
    return last
      ? { timestamp: c.timestamp, occupancy: last.occupancy!, peak: Math.max(...inside.map((f) => f.peak!)) }
      : { timestamp: c.timestamp };
  });
}
