import { DateTime } from 'luxon';
import { WEEKDAYS, type OpeningHours, type OpeningInterval } from '../locations/model';

/** One open period of a sensor group: [start, end) in epoch ms. */
export interface OpenPeriod {
  readonly start: number;
  readonly end: number;
}

interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const DAY_SEARCH_MS = 26 * 3_600_000;

/**
 * The open period that contains `now`, or undefined when the group is closed. Periods are computed
 * from the wall-clock hours of yesterday and today in `timeZone` (yesterday for overnight intervals),
 * each converted to an instant with the offset in force on that date, so a 08:00 opening is 08:00 on
 * either side of a DST change and a 00:00–24:00 day lasts 23 or 25 hours when the clocks change.
 */
export function currentOpenPeriod(hours: OpeningHours, timeZone: string, now: number): OpenPeriod | undefined {
  const today = DateTime.fromMillis(now, { zone: timeZone });
  if (!today.isValid) throw new RangeError(`unknown time zone ${timeZone}`);
  let found: OpenPeriod | undefined;
  for (const day of [today.minus({ days: 1 }), today]) {
    const date = { year: day.year, month: day.month, day: day.day };
    for (const interval of hours[WEEKDAYS[day.weekday - 1]!] ?? []) {
      const period = periodOf(date, interval, timeZone);
      if (period.start <= now && now < period.end && (!found || period.start > found.start)) found = period;
    }
  }
  return found;
}

/** One interval on one local date → instants. `close` ≤ `open` ends on the next day; `24:00` is the next midnight. */
export function periodOf(date: LocalDate, interval: OpeningInterval, timeZone: string): OpenPeriod {
  const open = minutesOf(interval.open);
  const close = minutesOf(interval.close);
  const closeDate = close <= open ? nextDay(date, timeZone) : date;
  return { start: wallClockToInstant(date, open, timeZone), end: wallClockToInstant(closeDate, close, timeZone) };
}

/**
 * A wall-clock time on a local date → epoch ms. A time that occurs twice (clocks going back) is its
 * first occurrence; a time that does not exist (clocks going forward) is the instant the clocks jump,
 * the first instant whose wall-clock time is at or after it. `minutes` may be 1440 (24:00).
 */
export function wallClockToInstant(date: LocalDate, minutes: number, timeZone: string): number {
  if (minutes >= 1440) return wallClockToInstant(nextDay(date, timeZone), minutes - 1440, timeZone);
  const hour = Math.floor(minutes / 60);
  const minute = minutes % 60;
  const dt = DateTime.fromObject({ ...date, hour, minute }, { zone: timeZone });
  if (dt.hour !== hour || dt.minute !== minute || dt.day !== date.day) return transitionBefore(dt.toMillis(), timeZone);
  return Math.min(...dt.getPossibleOffsets().map((d) => d.toMillis()));
}

/** The instant of the offset change just before `after` (luxon moved a skipped time past the gap). */
function transitionBefore(after: number, timeZone: string): number {
  const offsetAt = (ms: number) => DateTime.fromMillis(ms, { zone: timeZone }).offset;
  const target = offsetAt(after);
  let lo = after - DAY_SEARCH_MS;
  let hi = after;
  while (hi - lo > 1_000) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid) === target) hi = mid;
    else lo = mid;
  }
  return Math.floor(hi / 1_000) * 1_000;
}

function nextDay(date: LocalDate, timeZone: string): LocalDate {
  const next = DateTime.fromObject({ ...date, hour: 12 }, { zone: timeZone }).plus({ days: 1 });
  return { year: next.year, month: next.month, day: next.day };
}

/** `HH:MM` → minutes since midnight (24:00 → 1440). */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}
