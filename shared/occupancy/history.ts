import { type AccessScope, requireGranted } from '../access/scope';
import { NotFoundError, ValidationError } from '../errors';
import { capacityAt, utilization } from '../locations/capacity';
import type { Deadline } from '../report/deadline';
import { Pacer } from '../report/pace';
import type { ReportEngine } from '../stores/store';
import { createRounding } from '../report/histogram/rounding';
import { byId, LOCATION_ID, type SensorGroup } from '../locations/model';
import type { LocationStore } from '../locations/store';
import { HISTORY_INTERVALS, MAX_HISTORY_BUCKETS, MAX_HISTORY_VALUES, type HistoryQuery } from './history-query';
import type { GroupHistory, HistoryBucket, OccupancyHistory } from './history-model';
import { openPeriodsBetween, type OpenPeriod } from './opening-hours';
import { CrossingTimeline, floorToSlot, isMark, SLOT_MS } from './timeline';

/**
 * Occupancy over time per sensor group, by the live refresh's own rule: at an instant t of an open
 * period P, occupancy(t) = max(0, ins − outs over [P.start, t)), reset at every opening, the total
 * clamped (never a part of it). A bucket [b, e) samples it at the 5-minute marks m in (b, e] at
 * which the group is open and was open just before (the instants the live refresh writes; an
 * opening instant, where the value is 0 by definition, is not a sample of the bucket before it),
 * and at each closing within (b, e] (the value the period ended with). Its `occupancy` is the last
 * sample (at e, or at the closing), its `peak` the largest; a bucket without a sample is closed and
 * empty. So at every mark at which a group is open, the history's value is what the live refresh
 * computes there from the same events; a crowd that came and left between two marks is not seen.
 *
 * Utilization (a group with a capacity): each sample divided by the capacity in force at its instant
 * (the group's capacity history, shared/locations/capacity.ts). A bucket's `capacity` and
 * `utilization` are those of its last sample, its `peakUtilization` the largest of its samples'.
 */

export interface HistoryDeps {
  readonly store: Pick<LocationStore, 'getLocationWithGroups'>;
  readonly engine: ReportEngine;
}

/** One instant the history samples: its time, and the open period it counts from. */
interface Sample {
  readonly at: number;
  readonly period: OpenPeriod;
}

/**
 * 404 for an unknown location, another organization's and one outside the scope's grant (its existence is not
 * revealed).
 */
export async function occupancyHistory(
  deps: HistoryDeps,
  scope: Pick<AccessScope, 'organizationId' | 'locationIds'>,
  locationId: string,
  query: HistoryQuery,
  options: { readonly deadline?: Deadline } = {},
): Promise<OccupancyHistory> {
  const { organizationId } = scope;
  if (LOCATION_ID.test(locationId)) requireGranted(scope, locationId);
  const found = LOCATION_ID.test(locationId)
    ? await deps.store.getLocationWithGroups(organizationId, locationId)
    : undefined;
  if (!found) throw new NotFoundError(`There is no location '${locationId.slice(0, 128)}'.`);
  const { location } = found;
  const edges = bucketEdges(query, location.timezone);
  refuseBeyondBucketLimit(edges.length - 1, query.interval.text);
  const first = edges[0]!;
  const last = edges[edges.length - 1]!;
  const body = { timeZone: location.timezone, interval: query.interval.text, from: iso(first), to: iso(last) };
  if (!query.kinds.includes('occupancy')) return { ...body, insights: {} };

  const groups = [...found.sensorGroups].sort(byId);
  refuseBeyondValueLimit(groups.length, edges.length - 1, query.interval.text);
  // A month of 5-minute marks per group is tens of thousands of steps, even with the counts cached:
  // the work goes in turns (../report/pace.ts), so that other requests of the process are answered
  // in between and the deadline is seen.
  const pacer = new Pacer(options.deadline);
  const samples = new Map<number, Sample[]>();
  for (const g of groups) {
    await pacer.turn();
    samples.set(g.id, samplesOf(g, location.timezone, first, last));
  }
  const all = [...samples.values()].flat();
  const cuts = all.flatMap((s) => [s.at, s.period.start]);
  const earliest = cuts.reduce((a, b) => Math.min(a, b), Infinity);
  const timeline =
    all.length === 0
      ? undefined
      : await CrossingTimeline.count(
          deps.engine,
          { organizationId },
          location.id,
          groups.flatMap((g) => g.lines),
          { from: floorToSlot(earliest), to: ceilToSlot(last), cuts },
          { ...options, pacer },
        );
  const occupancy: GroupHistory[] = [];
  for (const group of groups) {
    await pacer.turn();
    const net = timeline?.netOf(group.lines);
    const values = await pacer.map(samples.get(group.id) ?? [], (s) => ({
      at: s.at,
      value: Math.max(0, net!(s.at) - net!(s.period.start)),
    }));
    await pacer.turn();
    occupancy.push({
      sensorGroup: { id: group.id, name: group.name },
      buckets: bucketsOf(edges, values, (at) => capacityAt(group, at)),
    });
  }
  return { ...body, insights: { occupancy } };
}

/**
 * The query's own check (./history-query.ts) counts the range's length in intervals; the buckets of
 * the time zone that overlap it can be one more (a range off the bucket edges, 00:14 to 00:01 31
 * days later: 2977 quarters). This counts them, before any engine work.
 */
function refuseBeyondBucketLimit(buckets: number, interval: string): void {
  if (buckets <= MAX_HISTORY_BUCKETS) return;
  throw new ValidationError([
    {
      path: '/query/interval',
      message: `${interval} makes ${buckets} buckets overlapping this range in the location's time zone, more than ${MAX_HISTORY_BUCKETS}: use a longer interval (${HISTORY_INTERVALS.join(', ')}) or a shorter range`,
    },
  ]);
}

/**
 * The answer holds a value per group and bucket: bounded before any engine work, so that a location
 * with many groups cannot make an answer larger than a Lambda response may carry.
 */
function refuseBeyondValueLimit(groups: number, buckets: number, interval: string): void {
  if (groups * buckets <= MAX_HISTORY_VALUES) return;
  throw new ValidationError([
    {
      path: '/query/interval',
      message: `${interval} makes ${buckets} buckets for each of the location's ${groups} sensor groups, more than ${MAX_HISTORY_VALUES} in all: use a longer interval (${HISTORY_INTERVALS.join(', ')}) or a shorter range`,
    },
  ]);
}

/** The bucket edges of the time zone (as a report's dateHistogram rounds) covering [from, to). */
export function bucketEdges(query: Pick<HistoryQuery, 'from' | 'to' | 'interval'>, timeZone: string): number[] {
  const rounding = createRounding(query.interval, timeZone, query.from, query.to);
  const edges = [rounding.round(query.from)];
  while (edges[edges.length - 1]! < query.to) edges.push(rounding.next(edges[edges.length - 1]!));
  return edges;
}

/** The sample instants of one group within (first, last], in time order. */
export function samplesOf(group: SensorGroup, timeZone: string, first: number, last: number): Sample[] {
  const samples: Sample[] = [];
  for (const period of openPeriodsBetween(group.openingHours, timeZone, first, last)) {
    // Marks at which the period is open and was open just before: start < m < end.
    for (let m = floorToSlot(Math.max(period.start, first)) + SLOT_MS; m < period.end && m <= last; m += SLOT_MS)
      samples.push({ at: m, period });
    if (period.end > first && period.end <= last) samples.push({ at: period.end, period });
  }
  return samples.sort((a, b) => a.at - b.at);
}

/**
 * Each sample goes to the bucket (b, e] it ends; the last is the bucket's occupancy, the largest its
 * peak; with the capacity in force at each sample (`capacityAt`), the utilizations likewise.
 */
function bucketsOf(
  edges: readonly number[],
  values: readonly { at: number; value: number }[],
  capacityAt: (at: number) => number | undefined,
): HistoryBucket[] {
  const buckets: HistoryBucket[] = [];
  let k = 0;
  for (let i = 0; i + 1 < edges.length; i++) {
    let last: { at: number; value: number } | undefined;
    let peak: number | undefined;
    let peakUtilization: number | undefined;
    for (; k < values.length && values[k]!.at <= edges[i + 1]!; k++) {
      last = values[k]!;
      peak = Math.max(peak ?? 0, last.value);
      const capacity = capacityAt(last.at);
      if (capacity !== undefined) peakUtilization = Math.max(peakUtilization ?? 0, utilization(last.value, capacity));
    }
    const timestamp = iso(edges[i]!);
    if (last === undefined) {
      buckets.push({ timestamp });
      continue;
    }
    const capacity = capacityAt(last.at);
    buckets.push({
      timestamp,
      occupancy: last.value,
      peak: peak!,
      ...(capacity !== undefined ? { capacity, utilization: utilization(last.value, capacity) } : {}),
      ...(peakUtilization !== undefined ? { peakUtilization } : {}),
    });
  }
  return buckets;
}

const ceilToSlot = (t: number): number => (isMark(t) ? t : floorToSlot(t) + SLOT_MS);
const iso = (t: number): string => new Date(t).toISOString();
