import type { HistogramInterval } from '../plan/plan';
import { ZoneOffsets } from '../../time/zone-offsets';

/**
 * Date histogram rounding exactly as OpenSearch 2.19 does it (`org.opensearch.common.Rounding`):
 * the instant is converted to local time with the offset in force at that instant, rounded down in
 * local time, and converted back with `LocalTimeOffset.localToUtc`, whose strategies decide what a
 * rounded local time that fell into a DST gap or overlap means:
 *
 * - fixed intervals (`TimeIntervalRounding.VariableRounding`): floor(local / ms) * ms (aligned to the
 *   epoch in local time); in a gap → the transition instant; in an overlap → the later offset;
 *   before an overlap → the round-down of the last local time before the overlap ends, earlier offset.
 * - calendar units (`TimeUnitRounding.ToMidnightRounding`): start of the local day, Monday week,
 *   month, quarter or year; in a gap → the transition instant; in an overlap → the earlier offset.
 *
 * https://github.com/opensearch-project/OpenSearch/blob/2.19/server/src/main/java/org/opensearch/common/Rounding.java
 */
export interface Rounding {
  readonly interval: HistogramInterval;
  readonly offsets: ZoneOffsets;
  /** Start (UTC ms) of the bucket holding `utcMs`. */
  round(utcMs: number): number;
  /** Start of the bucket after the one starting at `key`. */
  next(key: number): number;
  /** Start of the local unit (local ms) holding local time `localMs`. */
  truncLocal(localMs: number): number;
  /** First unit start (local ms) at or after local time `localMs`. */
  ceilLocal(localMs: number): number;
}

const DAY = 86_400_000;
const MONDAY_EPOCH = 4 * DAY; // 1970-01-05 was a Monday
const UNIT_MAX_MS = { d: DAY + 3_600_000, w: 7 * DAY + 3_600_000, M: 31 * DAY, q: 92 * DAY, y: 366 * DAY } as const;

/** Longest possible bucket of an interval (a DST day is 25 hours). */
export function maxBucketMs(interval: HistogramInterval): number {
  return interval.kind === 'fixed' ? interval.ms : UNIT_MAX_MS[interval.unit];
}

const floorMod = (x: number, m: number): number => ((x % m) + m) % m;

function utcMonthStart(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 1);
  return d.getTime();
}

/** Local-time truncation for an interval: floor to a multiple of ms, or to the calendar unit start. */
export function truncLocal(interval: HistogramInterval, localMs: number): number {
  if (interval.kind === 'fixed') return localMs - floorMod(localMs, interval.ms);
  switch (interval.unit) {
    case 'd':
      return localMs - floorMod(localMs, DAY);
    case 'w':
      return localMs - floorMod(localMs - MONDAY_EPOCH, 7 * DAY);
    default: {
      const d = new Date(localMs);
      const month =
        interval.unit === 'M' ? d.getUTCMonth() : interval.unit === 'q' ? d.getUTCMonth() - (d.getUTCMonth() % 3) : 0;
      return utcMonthStart(d.getUTCFullYear(), month);
    }
  }
}

/** Local time of the unit start after the one at local `unitStart`. */
function addUnit(interval: HistogramInterval, unitStart: number): number {
  if (interval.kind === 'fixed') return unitStart + interval.ms;
  if (interval.unit === 'd') return unitStart + DAY;
  if (interval.unit === 'w') return unitStart + 7 * DAY;
  const d = new Date(unitStart);
  return utcMonthStart(
    d.getUTCFullYear(),
    d.getUTCMonth() + (interval.unit === 'M' ? 1 : interval.unit === 'q' ? 3 : 12),
  );
}

/**
 * A rounding for instants around [fromMs, toMs] (offsets are looked up a little beyond, as
 * OpenSearch's `prepare(min, max)` does).
 */
export function createRounding(interval: HistogramInterval, timeZone: string, fromMs: number, toMs: number): Rounding {
  const span = maxBucketMs(interval) + 2 * DAY;
  const offsets = ZoneOffsets.scan(timeZone, fromMs - span, toMs + 2 * span);
  const calendar = interval.kind === 'calendar';
  const trunc = (local: number): number => truncLocal(interval, local);

  /** `LocalTimeOffset.localToUtc` of period i with the strategy of this rounding. */
  const localToUtc = (local: number, i: number): number => {
    const p = offsets.period(i);
    if (i === 0) return local - p.offset;
    const previous = offsets.period(i - 1).offset;
    if (p.offset > previous) {
      // Gap: local times in [start + previous, start + offset) never happened.
      if (local >= p.start + p.offset) return local - p.offset;
      if (local >= p.start + previous) return p.start;
      return localToUtc(local, i - 1);
    }
    // Overlap: local times in [start + offset, start + previous) happened twice.
    if (local >= p.start + previous) return local - p.offset;
    if (local >= p.start + p.offset) return calendar ? localToUtc(local, i - 1) : local - p.offset;
    return calendar ? localToUtc(local, i - 1) : localToUtc(trunc(p.start + previous - 1), i - 1);
  };

  const round = (utcMs: number): number => {
    const i = offsets.indexAt(utcMs);
    return localToUtc(trunc(utcMs + offsets.period(i).offset), i);
  };

  const next = (key: number): number => {
    // Usually the bucket one unit later (2 h into the next local unit for calendar units, so that a
    // DST change cannot land the guess in the wrong one); verified, else found by bisection.
    const offset = offsets.offsetAt(key);
    const guess = round(
      interval.kind === 'fixed' ? key + interval.ms : addUnit(interval, trunc(key + offset)) - offset + 2 * 3_600_000,
    );
    if (guess > key && round(guess - 1) === key) return guess;
    let lo = key; // round(lo) === key
    let hi = key + 2 * span; // round(hi) > key
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (round(mid) > key) hi = mid;
      else lo = mid;
    }
    return round(hi);
  };

  return {
    interval,
    offsets,
    round,
    next,
    truncLocal: trunc,
    ceilLocal: (local) => {
      const start = trunc(local);
      return start === local ? local : addUnit(interval, start);
    },
  };
}
