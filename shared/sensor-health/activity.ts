import type { AggResult, ReportEngine, Scope } from '../stores/store';
import { planFromRequest } from '../report/plan/plan-builder';
import type { FilterInput } from '../report/schema/filters';
import type { ReportRequest } from '../report/schema/request';
import { addDays, localDateOf, localMsOf, localToInstant } from '../time/local-time';
import { type HourCount, LEARNING_DAYS, type LearnedRates, learn } from './rule';

/**
 * What the stored documents say of each source's activity, read through ordinary report plans (the
 * same compiler, tenancy scope and rollups as `POST /reports:query`; both stores alike): its hourly
 * event counts over the learning window (a histogram of 1 h in the location's zone, which the
 * rollups answer where they exist), then its last event, narrowed from its hour to its minute and
 * to its second by two small histograms over the documents.
 *
 * The learning window ends where today starts (local), so what it teaches is learned once a day per
 * location and kept (see {@link DayCache}); an answer then reads today's hours only.
 */

/** A kind of source: the collection its documents are in and the field naming it. */
export interface SourceKind {
  readonly collection: 'movementEvents' | 'parkingLotStats';
  readonly field: 'trackingCameraId' | 'parkingLotId';
}

export const CAMERAS: SourceKind = { collection: 'movementEvents', field: 'trackingCameraId' };
export const PARKING_LOTS: SourceKind = { collection: 'parkingLotStats', field: 'parkingLotId' };
/** The collections sensor health reads, and no other (what its function may search in AWS). */
export const SENSOR_COLLECTIONS = [CAMERAS.collection, PARKING_LOTS.collection] as const;

export interface Activity {
  /** What the days before today taught; absent without an event in them. */
  readonly learned?: LearnedRates;
  /** The start of the second of the last event (epoch ms); absent without events in the window or today. */
  readonly lastEventAt?: number;
}

export interface ActivityQuery {
  readonly engine: ReportEngine;
  readonly scope: Scope;
  readonly locationId: string;
  readonly zone: string;
  readonly now: number;
}

const HOUR = 3_600_000;
/** The filters aggregation allows this many named buckets. */
const MAX_SOURCES_PER_REPORT = 100;

/** One source's learning, once a day: its rates and the start of its last hour with an event before today. */
interface Learned {
  readonly rates?: LearnedRates;
  readonly lastHour?: number;
}

/**
 * What a day's learning found, per report engine, organization, location, zone and local day (the
 * key names all five: nothing learned for one is served to another). At most {@link MAX_LEARNED_DAYS}
 * location-days are kept, the oldest dropped first; a source is 168 rates (1.3 KB), and a location
 * has up to a few hundred sources, so the cache stays within tens of MB. Documents ingested late for
 * an earlier day are learned the next day.
 */
export const MAX_LEARNED_DAYS = 128;
class DayCache {
  private readonly days = new Map<string, { sources: Map<string, Learned>; lots?: readonly string[] }>();
  entry(key: string) {
    let entry = this.days.get(key);
    if (!entry) {
      if (this.days.size >= MAX_LEARNED_DAYS) this.days.delete(this.days.keys().next().value as string);
      entry = { sources: new Map() };
      this.days.set(key, entry);
    }
    return entry;
  }
}
const caches = new WeakMap<ReportEngine, DayCache>();

/** Where today (local) started, and the learning window before it. */
function windowOf(q: ActivityQuery) {
  const today = localDateOf(q.now, q.zone);
  const dayStart = localToInstant(localMsOf(today), q.zone);
  const from = localToInstant(localMsOf(addDays(today, -LEARNING_DAYS)), q.zone);
  const key = [q.scope.organizationId, q.locationId, q.zone, dayStart].join('\0');
  let cache = caches.get(q.engine);
  if (!cache) {
    cache = new DayCache();
    caches.set(q.engine, cache);
  }
  return { dayStart, from, cache, key };
}

/** The activity of each of `ids` (distinct), keyed by id. */
export async function activityOf(
  q: ActivityQuery,
  kind: SourceKind,
  ids: readonly string[],
): Promise<Map<string, Activity>> {
  const { dayStart, from, cache, key } = windowOf(q);
  const { sources } = cache.entry(`${key}\0${kind.collection}`);
  const missing = ids.filter((id) => !sources.has(id));
  for (const [id, hours] of await histograms(q, kind, missing, '1h', from, dayStart)) {
    sources.set(id, { rates: learn(hours, q.zone), lastHour: [...hours].reverse().find((b) => b.count > 0)?.start });
  }
  const today = await histograms(q, kind, ids, '1h', dayStart, q.now);
  // Narrow the last event: its hour → its minute → its second, sources sharing a bucket read together.
  let last = new Map<string, number>();
  for (const id of ids) {
    const hour = [...(today.get(id) ?? [])].reverse().find((b) => b.count > 0)?.start ?? sources.get(id)?.lastHour;
    if (hour !== undefined) last.set(id, hour);
  }
  for (const [interval, width] of [
    ['1m', HOUR],
    ['1s', 60_000],
  ] as const) {
    const next = new Map<string, number>();
    for (const [start, group] of groupBy(last)) {
      const found = await histograms(q, kind, group, interval, Math.max(start, from), Math.min(start + width, q.now));
      for (const [id, buckets] of found) {
        const b = [...buckets].reverse().find((x) => x.count > 0);
        if (b) next.set(id, b.start);
      }
    }
    last = next;
  }
  return new Map(ids.map((id) => [id, { learned: sources.get(id)?.rates, lastEventAt: last.get(id) }]));
}

/** The parking lots with stats at the location in the learning window or today (up to the terms cap each). */
export async function parkingLotsOf(q: ActivityQuery): Promise<string[]> {
  const { dayStart, from, cache, key } = windowOf(q);
  const entry = cache.entry(`${key}\0lots`);
  entry.lots ??= await lotsBetween(q, from, dayStart);
  return [...new Set([...entry.lots, ...(await lotsBetween(q, dayStart, q.now))])].sort();
}

async function lotsBetween(q: ActivityQuery, from: number, to: number): Promise<string[]> {
  if (from >= to) return [];
  const request: ReportRequest = {
    source: PARKING_LOTS.collection,
    locationIds: [q.locationId],
    filters: [range(from, to)],
    aggregations: [{ type: 'terms', field: PARKING_LOTS.field }],
  };
  const { root } = await q.engine.run(planFromRequest(request), q.scope);
  return root.kind === 'terms' ? root.buckets.map((b) => b.key) : [];
}

/** Per source, the buckets of a `interval` histogram over [from, to), sources chunked to fit the bucket limit. */
async function histograms(
  q: ActivityQuery,
  kind: SourceKind,
  ids: readonly string[],
  interval: string,
  from: number,
  to: number,
) {
  const out = new Map<string, HourCount[]>();
  if (from >= to || ids.length === 0) return out;
  const buckets = Math.ceil((to - from) / (interval === '1h' ? HOUR : interval === '1m' ? 60_000 : 1000)) + 2;
  // The time buckets and one bucket per source under each count against the limit.
  const perReport = Math.max(1, Math.min(MAX_SOURCES_PER_REPORT, Math.floor(q.engine.maxBuckets / buckets) - 1));
  for (let i = 0; i < ids.length; i += perReport) {
    const chunk = ids.slice(i, i + perReport);
    const request: ReportRequest = {
      source: kind.collection,
      locationIds: [q.locationId],
      filters: [range(from, to), { type: 'terms', field: kind.field, values: [...chunk] }],
      aggregations: [
        { type: 'dateHistogram', interval, timeZone: q.zone },
        {
          type: 'filters',
          filters: Object.fromEntries(
            chunk.map((id, j) => [`s${j}`, { type: 'terms', field: kind.field, values: [id] }]),
          ),
        },
      ],
    };
    const { root } = await q.engine.run(planFromRequest(request), q.scope);
    chunk.forEach((id, j) => out.set(id, bucketsOf(root, j)));
  }
  return out;
}

/** dateHistogram → filters: the j-th source's count in each time bucket. */
function bucketsOf(root: AggResult, j: number): HourCount[] {
  if (root.kind !== 'histogram') throw new Error(`unexpected ${root.kind} result at the histogram stage`);
  return root.buckets.map((b) => ({
    start: b.key,
    count: b.sub?.kind === 'filters' ? (b.sub.buckets[j]?.count ?? 0) : 0,
  }));
}

const range = (from: number, to: number): FilterInput => ({
  type: 'range',
  field: 'timestamp',
  from: new Date(from).toISOString(),
  to: new Date(to).toISOString(),
});

function groupBy(starts: ReadonlyMap<string, number>): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const [id, start] of starts) groups.set(start, [...(groups.get(start) ?? []), id]);
  return groups;
}
