import type { DocumentInput } from '#shared/documents/documents';
import type { ImportFile } from '#shared/locations/schema';
import { addDays, localDateOf, localMsOf, localToInstant } from '#shared/time/local-time';
import { intlOffset } from '#shared/time/zone-offsets';

/**
 * Realistic synthetic data for the local service and demos, deterministic for a seed: locations in
 * different time zones, cameras with named lines and polygons, labels with daily patterns in local
 * time, parking lots with spots, parking events with durations, lot stats every 15 minutes, and sensor
 * groups with opening hours whose lines are the ones the events cross, so live occupancy is meaningful.
 */
export interface SeedOptions {
  readonly organizationId: string;
  readonly days: number;
  readonly locations: number;
  /** Events are generated up to this instant (epoch ms), so live occupancy is never empty. */
  readonly now: number;
  /** Movement events per location and day, on average. @default 1500 */
  readonly eventsPerDay?: number;
  readonly seed?: number;
}

export interface Site {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly timezone: string;
}

export const SITES: readonly Site[] = [
  { id: 'berlin-mall', name: 'Berlin Mall', type: 'shopping-mall', timezone: 'Europe/Berlin' },
  { id: 'nyc-garage', name: 'NYC Garage', type: 'parking-garage', timezone: 'America/New_York' },
  { id: 'tokyo-station', name: 'Tokyo Station', type: 'transit-station', timezone: 'Asia/Tokyo' },
  { id: 'sydney-stadium', name: 'Sydney Stadium', type: 'stadium', timezone: 'Australia/Sydney' },
  { id: 'sao-paulo-plaza', name: 'São Paulo Plaza', type: 'plaza', timezone: 'America/Sao_Paulo' },
];

/** Capacities of the seeded groups: the entrance area holds people, the deck its spots. */
const ENTRANCE_CAPACITY = 120;

const LABELS = [
  ['person', 0.55],
  ['car', 0.3],
  ['bicycle', 0.1],
  ['truck', 0.05],
] as const;
const POLYGONS = ['lobby', 'food-court', 'queue'] as const;
const SPOTS = 40;

/** Relative traffic per local hour: quiet nights, a lunch peak and an evening peak. */
const HOURLY = [1, 0.5, 0.3, 0.3, 0.4, 1, 3, 6, 8, 7, 7, 9, 11, 10, 8, 8, 9, 11, 10, 7, 5, 4, 3, 2];
const HOURLY_SUM = HOURLY.reduce((a, b) => a + b, 0);

/**
 * The random stream of one site and hour alone (FNV-1a of the seed, the site and the hour's start,
 * into mulberry32). Seeding again later, or with more days, then makes the same documents, with the
 * same ids, for every hour the runs share: they come back as duplicates, and no count doubles. Every
 * draw of a document happens before it may be skipped as later than `now`, so a skipped document
 * never shifts the draws of the ones after it.
 */
export function hourStream(seed: number, siteId: string, hourStart: number): () => number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}|${siteId}|${hourStart}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return prng(h >>> 0);
}

/** mulberry32: a small, well-known seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, weighted: readonly (readonly [T, number])[]): T => {
  let r = random();
  for (const [value, weight] of weighted) if ((r -= weight) < 0) return value;
  return weighted[weighted.length - 1]![0];
};

export const sitesFor = (count: number): Site[] => SITES.slice(0, Math.max(1, Math.min(count, SITES.length)));

const everyDay = (open: string, close: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, [{ open, close }]]),
  );

/** The locations and their sensor groups, in the import file format (bin/import-locations.ts). */
export function seedLocations(o: SeedOptions): ImportFile {
  return {
    locations: sitesFor(o.locations).map((site) => ({
      id: site.id,
      name: site.name,
      organizationId: o.organizationId,
      type: site.type,
      timezone: site.timezone,
      sensorGroups: [
        {
          id: 1,
          name: 'Main entrance',
          capacity: ENTRANCE_CAPACITY,
          lines: [{ trackingCameraId: `${site.id}-cam-1`, lineId: 'entrance', inDirection: 'A' as const }],
          openingHours: everyDay('07:00', '23:00'),
        },
        {
          id: 2,
          name: 'Parking deck',
          capacity: SPOTS,
          lines: [{ trackingCameraId: `${site.id}-cam-2`, lineId: 'ramp', inDirection: 'A' as const }],
          openingHours: everyDay('00:00', '24:00'),
        },
      ],
    })),
  } as ImportFile;
}

/** Local hour starts of every day in range, DST-aware; yields [hour start epoch ms, local hour]. */
function* localHours(site: Site, o: SeedOptions): Generator<[number, number]> {
  const firstDay = addDays(localDateOf(o.now, site.timezone), -(o.days - 1));
  for (let hour = localToInstant(localMsOf(firstDay), site.timezone); hour <= o.now; hour += 3_600_000) {
    yield [hour, new Date(hour + intlOffset(site.timezone, hour)).getUTCHours()];
  }
}

/** Share of a day's traffic in a local hour (0-23). */
export const hourlyShare = (hour: number): number => (HOURLY[hour] as number) / HOURLY_SUM;

/** The local hour (0-23) of an instant at a site. */
export const localHour = (site: Site, at: number): number => new Date(at + intlOffset(site.timezone, at)).getUTCHours();

/** Share of entrance crossings that go in: most in the morning, most out in the evening. */
const inShare = (hour: number) => (hour < 13 ? 0.75 : hour < 17 ? 0.5 : 0.25);

/** One person or vehicle crossing the entrance (people) or the ramp (vehicles) at `timestamp`, in the local `hour`. */
export function movementEvent(
  random: () => number,
  organizationId: string,
  site: Site,
  timestamp: number,
  hour: number,
): DocumentInput<'movementEvents'> {
  const label = pick(random, LABELS);
  const vehicle = label === 'car' || label === 'truck';
  const camera = vehicle ? 2 : 1;
  const end = random() < inShare(hour) ? 'A' : 'B';
  return {
    organizationId,
    locationId: site.id,
    trackingCameraId: `${site.id}-cam-${camera}`,
    label,
    timestamp: new Date(timestamp).toISOString(),
    crossedPaths: random() < 0.9 ? [{ id: vehicle ? 'ramp' : 'entrance', end }] : [],
    polygons:
      !vehicle && random() < 0.4
        ? [{ id: POLYGONS[Math.floor(random() * POLYGONS.length)] as string, value: Math.round(30 + random() * 900) }]
        : [],
  };
}

/** Movement events: people and vehicles crossing the entrance (in mornings, out in evenings) and the ramp. */
export function* seedMovementEvents(o: SeedOptions): Generator<DocumentInput<'movementEvents'>> {
  const perDay = o.eventsPerDay ?? 1500;
  for (const site of sitesFor(o.locations)) {
    for (const [start, hour] of localHours(site, o)) {
      const random = hourStream(o.seed ?? 7, site.id, start);
      const count = Math.round(perDay * hourlyShare(hour) * (0.8 + 0.4 * random()));
      for (let i = 0; i < count; i++) {
        const timestamp = start + Math.floor(random() * 3_600_000);
        const event = movementEvent(random, o.organizationId, site, timestamp, hour);
        if (timestamp > o.now) continue;
        yield { id: `${site.id}/${new Date(start).toISOString()}/m${i}`, ...event };
      }
    }
  }
}

/** Arrivals at a site's lot in a local hour, on average (the seed's rate). */
export const parkingArrivalsPerHour = (hour: number): number => ((HOURLY[hour] as number) / 11) * 4;

/** A stay in the site's lot that ended at `departure`: log-normal around 45 minutes. */
export function parkingEvent(
  random: () => number,
  organizationId: string,
  site: Site,
  departure: number,
  duration = parkingStay(random),
): DocumentInput<'parkingEvents'> {
  return {
    organizationId,
    locationId: site.id,
    parkingLotId: `${site.id}-lot-1`,
    cameraId: `${site.id}-cam-2`,
    spotId: `spot-${String(1 + Math.floor(random() * SPOTS)).padStart(2, '0')}`,
    duration,
    startingTimestamp: new Date(departure - duration * 1000).toISOString(),
    timestamp: new Date(departure).toISOString(),
  };
}

/** Seconds of a stay: log-normal around 45 minutes. */
const parkingStay = (random: () => number) => Math.round(2700 * Math.exp((random() + random() + random() - 1.5) * 1.2));

/** The lot's state at `timestamp` (a quarter hour), fuller at busy hours. */
export function lotStats(
  random: () => number,
  organizationId: string,
  site: Site,
  timestamp: number,
  hour: number,
): DocumentInput<'parkingLotStats'> {
  const occupied = Math.min(SPOTS, Math.round(SPOTS * ((HOURLY[hour] as number) / 12) * (0.85 + 0.3 * random())));
  return {
    organizationId,
    locationId: site.id,
    parkingLotId: `${site.id}-lot-1`,
    occupied,
    free: SPOTS - occupied,
    total: SPOTS,
    timestamp: new Date(timestamp).toISOString(),
  };
}

/** Parking events (stays with durations) and lot stats every 15 minutes, one lot per site. */
export function seedParking(o: SeedOptions): {
  parkingEvents: DocumentInput<'parkingEvents'>[];
  parkingLotStats: DocumentInput<'parkingLotStats'>[];
} {
  const parkingEvents: DocumentInput<'parkingEvents'>[] = [];
  const parkingLotStats: DocumentInput<'parkingLotStats'>[] = [];
  for (const site of sitesFor(o.locations)) {
    for (const [start, hour] of localHours(site, o)) {
      const random = hourStream((o.seed ?? 7) + 1, site.id, start);
      const arrivals = Math.round(parkingArrivalsPerHour(hour) * 2 * random());
      for (let i = 0; i < arrivals; i++) {
        const arrival = start + Math.floor(random() * 3_600_000);
        const duration = parkingStay(random);
        const departure = arrival + duration * 1000;
        const event = parkingEvent(random, o.organizationId, site, departure, duration);
        if (departure > o.now) continue;
        parkingEvents.push({ id: `${site.id}-lot-1/${new Date(start).toISOString()}/p${i}`, ...event });
      }
      // The last draws of the hour: skipping a quarter cannot shift another document's.
      for (let quarter = 0; quarter < 4; quarter++) {
        const timestamp = start + quarter * 900_000;
        if (timestamp > o.now) continue;
        parkingLotStats.push({
          id: `${site.id}-lot-1/${new Date(timestamp).toISOString()}`,
          ...lotStats(random, o.organizationId, site, timestamp, hour),
        });
      }
    }
  }
  return { parkingEvents, parkingLotStats };
}
