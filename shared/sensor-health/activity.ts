import type { AggResult, ReportEngine, Scope } from '../stores/store';
import { planFromRequest } from '../report/plan/plan-builder';
import type { FilterInput } from '../report/schema/filters';
import type { ReportRequest } from '../report/schema/request';
import { type HourCount, LEARNING_WINDOW_MS } from './rule';

/**
 * What the stored documents say of each source's activity, read through ordinary report plans (the
 * same compiler, tenancy scope and rollups as `POST /reports:query`; both stores alike): its hourly
 * event counts over the learning window (a histogram of 1 h in the location's zone, which the
 * rollups answer where they exist), then its last event, narrowed from that hour to its minute and
 * to its second by two small histograms over the documents.
 */

/** A kind of source: the collection its documents are in and the field naming it. */
export interface SourceKind {
  readonly collection: 'movementEvents' | 'parkingLotStats';
  readonly field: 'trackingCameraId' | 'parkingLotId';
}

export const CAMERAS: SourceKind = { collection: 'movementEvents', field: 'trackingCameraId' };
export const PARKING_LOTS: SourceKind = { collection: 'parkingLotStats', field: 'parkingLotId' };

export interface Activity {
  /** The hour buckets of the window in order, the last one holding `now`. */
  readonly hours: readonly HourCount[];
  /** The start of the second of the last event (epoch ms); absent without events in the window. */
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

/** The activity of each of `ids` (distinct), keyed by id. */
export async function activityOf(
  q: ActivityQuery,
  kind: SourceKind,
  ids: readonly string[],
): Promise<Map<string, Activity>> {
  const from = q.now - LEARNING_WINDOW_MS;
  const hourly = await histograms(q, kind, ids, '1h', from, q.now);
  const out = new Map<string, Activity>();
  for (const [id, buckets] of hourly) {
    // The first bucket starts before the window (it holds `from`): a part of an hour is left out.
    const hours = buckets.filter((b) => b.start >= from);
    out.set(id, { hours });
  }
  // Narrow the last event: its hour → its minute → its second, sources sharing a bucket read together.
  let last = new Map<string, number>();
  for (const [id, a] of out) {
    const h = [...a.hours].reverse().find((b) => b.count > 0);
    if (h) last.set(id, h.start);
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
  for (const [id, at] of last) out.set(id, { hours: out.get(id)?.hours ?? [], lastEventAt: at });
  return out;
}

/** The parking lots with stats at the location in the learning window (up to the terms cap). */
export async function parkingLotsOf(q: ActivityQuery): Promise<string[]> {
  const request: ReportRequest = {
    source: PARKING_LOTS.collection,
    locationIds: [q.locationId],
    filters: [range(q.now - LEARNING_WINDOW_MS, q.now)],
    aggregations: [{ type: 'terms', field: PARKING_LOTS.field }],
  };
  const { root } = await q.engine.run(planFromRequest(request), q.scope);
  return root.kind === 'terms' ? root.buckets.map((b) => b.key).sort() : [];
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
  if (from >= to) return out;
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
