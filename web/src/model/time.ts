import { addDays, isoInZone, type LocalDate, localDateOf, localMsOf, localToInstant } from '#shared/time/local-time';
import { intlOffset } from '#shared/time/zone-offsets';

/**
 * Calendar days in a time zone, with the service's own time zone code (shared/time): the page turns
 * the days a person picks into the instants of the report's range exactly as the service rounds days.
 */

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` as a calendar date, or undefined when it is not one. */
export function parseDay(day: string): LocalDate | undefined {
  const m = DAY_PATTERN.exec(day);
  if (!m) return undefined;
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  const back = addDays(date, 0);
  return back.month === date.month && back.day === date.day ? date : undefined;
}

const pad = (n: number, width = 2): string => String(Math.abs(n)).padStart(width, '0');

export const formatDay = (d: LocalDate): string => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;

/** The calendar date `days` after a `YYYY-MM-DD` day. */
export function shiftDay(day: string, days: number): string {
  const date = parseDay(day);
  if (!date) throw new RangeError(`not a day: ${day}`);
  return formatDay(addDays(date, days));
}

/** Today in `zone`, as `YYYY-MM-DD`. */
export const todayIn = (zone: string, now: number): string => formatDay(localDateOf(now, zone));

/** Whether the platform knows the IANA time zone (the service checks the same way, with `Intl`). */
export function isTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The first instant of a day in `zone` (midnight, or the instant clocks jump when midnight is skipped). */
export function startOfDay(day: string, zone: string): number {
  const date = parseDay(day);
  if (!date) throw new RangeError(`not a day: ${day}`);
  return localToInstant(localMsOf(date), zone);
}

/**
 * An instant as ISO 8601 in the wall-clock time of `zone` with its offset: `2026-03-29T00:00:00+01:00` (the service's
 * CSV writes `localTime` with the same code).
 */
export const isoWithOffset = isoInZone;

/** An instant as `YYYY-MM-DD HH:MM` on the wall clock of `zone`. */
export function formatLocal(instant: number, zone: string): string {
  return new Date(instant + intlOffset(zone, instant)).toISOString().slice(0, 16).replace('T', ' ');
}
