import type { OccupancyHistory } from '#shared/occupancy/history-model';

/**
 * The headline numbers of a location, each from the API's own answers: people here now (the live
 * endpoint) and the share of capacity, today's peak (the history at the 5-minute marks), today so far
 * against the same time a week before, entries today (dashboard.ts, lines.ts).
 */

/** A live entry as the API answers it; `capacity` and `utilization` only where the group has a capacity. */
export interface LiveGroup {
  readonly sensorGroup: { readonly id: number; readonly name: string };
  readonly occupancy: number;
  readonly capacity?: number;
  readonly utilization?: number;
}

export interface NowNumbers {
  /** People in every open group with current data, together. */
  readonly people: number;
  /** Groups counted (open, with current data). */
  readonly groups: number;
  /** The capacity of the counted groups that have one, and the share of it taken. */
  readonly capacity?: number;
  readonly utilization?: number;
  /** Some counted groups have no capacity: the share is of the others only. */
  readonly partialCapacity: boolean;
}

/**
 * People now: the sum over the open groups (the areas of a location do not overlap). The share of
 * capacity is that of the groups with a capacity: their people over their capacities together (so a
 * large hall weighs more than a small room), said to be partial when some groups have none.
 */
export function nowNumbers(groups: readonly LiveGroup[]): NowNumbers {
  const people = groups.reduce((sum, g) => sum + g.occupancy, 0);
  const withCapacity = groups.filter((g) => g.capacity !== undefined && g.capacity > 0);
  if (withCapacity.length === 0) return { people, groups: groups.length, partialCapacity: false };
  const capacity = withCapacity.reduce((sum, g) => sum + (g.capacity as number), 0);
  const counted = withCapacity.reduce((sum, g) => sum + g.occupancy, 0);
  return {
    people,
    groups: groups.length,
    capacity,
    utilization: counted / capacity,
    partialCapacity: withCapacity.length < groups.length,
  };
}

/**
 * The interval the history is asked in for the peak: the live refresh's own cadence, so its marks are the live values.
 */
export const PEAK_INTERVAL = '5m';
const PEAK_INTERVAL_MS = 300_000;

/**
 * Today's highest number of people at once, and when: the largest sum over the groups at one
 * 5-minute mark up to now (each 5-minute bucket's `occupancy` is the value at its end mark, the live
 * value there), the earliest such mark when it repeats. Undefined when no group was open.
 */
export function peakOf(
  history: OccupancyHistory,
  now: number,
): { readonly people: number; readonly at: number } | undefined {
  const groups = history.insights.occupancy ?? [];
  const buckets = groups[0]?.buckets ?? [];
  let best: { people: number; at: number } | undefined;
  buckets.forEach((bucket, i) => {
    const start = Date.parse(bucket.timestamp);
    if (start > now) return;
    const values = groups.map((g) => g.buckets[i]?.occupancy).filter((v): v is number => v !== undefined);
    if (values.length === 0) return;
    const people = values.reduce((a, b) => a + b, 0);
    if (!best || people > best.people) best = { people, at: Math.min(start + PEAK_INTERVAL_MS, now) };
  });
  return best;
}
