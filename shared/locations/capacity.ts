import type { CapacityChange, SensorGroup } from './model';

/**
 * Capacity over time and utilization. A sensor group's capacity is kept with its history (as
 * VergeSense keeps the capacity in force with each metric), so that a utilization of a past period
 * divides by the capacity of that time, not today's: a room enlarged in June does not make May look
 * emptier.
 */

/** Most history entries kept per group: the oldest are dropped beyond it (their periods lose their utilization). */
export const MAX_CAPACITY_HISTORY = 100;

/**
 * The history after a write that sets the group's capacity to `capacity` (undefined: none) at `now`:
 * unchanged when the capacity is the same; else the old history with one entry more. A group that
 * never had a capacity and gets none keeps an empty history.
 */
export function nextCapacityHistory(
  old: readonly CapacityChange[] | undefined,
  capacity: number | undefined,
  now: string,
): CapacityChange[] {
  const history = [...(old ?? [])];
  const current = history.length > 0 ? history[history.length - 1]!.capacity : null;
  const next = capacity ?? null;
  if (current === next) return history;
  history.push({ since: now, capacity: next });
  return history.slice(-MAX_CAPACITY_HISTORY);
}

/**
 * The capacity in force at `at` (epoch ms): that of the last entry whose `since` is not after it;
 * undefined before the first entry, or when none was set then. A group with a capacity but no
 * history (written before histories were kept) has had it always.
 */
export function capacityAt(group: Pick<SensorGroup, 'capacity' | 'capacityHistory'>, at: number): number | undefined {
  const history = group.capacityHistory ?? [];
  if (history.length === 0) return group.capacity;
  let found: number | null | undefined;
  for (const entry of history) {
    if (Date.parse(entry.since) > at) break;
    found = entry.capacity;
  }
  return found ?? undefined;
}

/**
 * Occupancy ÷ capacity as a ratio (0.5 is half full; above 1 is over capacity), rounded half up to
 * three decimals (0.417 is 41.7 %). Both are integers, so `occupancy × 1000 ÷ capacity` is exact
 * whenever it is a half, and Math.round rounds it up: 1 of 2000 is 0.001, 1 of 3 is 0.333.
 */
export function utilization(occupancy: number, capacity: number): number {
  return Math.round((occupancy * 1000) / capacity) / 1000;
}
