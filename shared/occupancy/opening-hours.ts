import { WEEKDAYS, type OpeningHours, type OpeningInterval } from '../locations/model';
import { addDays, localDateOf, localMsOf, localToInstant, minutesOf, type LocalDate } from '../time/local-time';

/** One open period of a sensor group: [start, end) in epoch ms. */
export interface OpenPeriod {
  readonly start: number;
  readonly end: number;
}

/**
 * The open period that contains `now`, or undefined when the group is closed. Periods are computed
 * from the wall-clock hours of yesterday and today in `timeZone` (yesterday for overnight intervals),
 * each converted to an instant with the offset in force on that date, so a 08:00 opening is 08:00 on
 * either side of a DST change and a 00:00–24:00 day lasts 23 or 25 hours when the clocks change.
 */
export function currentOpenPeriod(hours: OpeningHours, timeZone: string, now: number): OpenPeriod | undefined {
  const today = localDateOf(now, timeZone);
  const yesterday = { ...addDays(today, -1), weekday: ((today.weekday + 5) % 7) + 1 };
  let found: OpenPeriod | undefined;
  for (const day of [yesterday, today]) {
    for (const interval of hours[WEEKDAYS[day.weekday - 1]!] ?? []) {
      const period = periodOf(day, interval, timeZone);
      if (period.start <= now && now < period.end && (!found || period.start > found.start)) found = period;
    }
  }
  return found;
}

/**
 * Every open period that overlaps [from, to), ordered by start: the intervals of each local date from
 * the day before `from` (overnight intervals) to the day of `to`, as currentOpenPeriod converts them
 * (the weekdays' intervals never overlap, so the period holding an instant is the one it finds).
 * A period that a DST gap made empty (02:00–02:30 on a spring-forward night) is left out.
 */
export function openPeriodsBetween(hours: OpeningHours, timeZone: string, from: number, to: number): OpenPeriod[] {
  const periods: OpenPeriod[] = [];
  const last = localDateOf(to, timeZone);
  for (let day = addDays(localDateOf(from, timeZone), -1); localMsOf(day) <= localMsOf(last); day = addDays(day, 1)) {
    const weekday = WEEKDAYS[(new Date(localMsOf(day)).getUTCDay() + 6) % 7]!;
    for (const interval of hours[weekday] ?? []) {
      const period = periodOf(day, interval, timeZone);
      if (period.start < period.end && period.start < to && period.end > from) periods.push(period);
    }
  }
  return periods.sort((a, b) => a.start - b.start);
}

/** One interval on one local date → instants. `close` ≤ `open` ends on the next day; `24:00` is the next midnight. */
export function periodOf(date: LocalDate, interval: OpeningInterval, timeZone: string): OpenPeriod {
  const open = minutesOf(interval.open);
  const close = minutesOf(interval.close);
  const closeDate = close <= open ? addDays(date, 1) : date;
  return { start: wallClockToInstant(date, open, timeZone), end: wallClockToInstant(closeDate, close, timeZone) };
}

/**
 * A wall-clock time on a local date → epoch ms. A time that occurs twice (clocks going back) is its
 * first occurrence; a time that does not exist (clocks going forward) is the instant the clocks jump,
 * the first instant whose wall-clock time is at or after it. `minutes` may be 1440 (24:00).
 */
export function wallClockToInstant(date: LocalDate, minutes: number, timeZone: string): number {
  return localToInstant(localMsOf(date, minutes), timeZone);
}
