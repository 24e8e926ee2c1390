import { ZoneOffsets } from './zone-offsets';

/**
 * Wall-clock time in an IANA time zone, from the platform's time zone database (`Intl`, through
 * ./zone-offsets.ts, the same lookup the histogram rounding uses). "Local ms" is a wall-clock time
 * written as if it were UTC: `Date.UTC(year, month - 1, day, hour, minute)`.
 */

/** A calendar date; month 1–12. */
export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const DAY = 86_400_000;

/**
 * The local date of an instant in `zone`, with its ISO weekday (1 = Monday … 7 = Sunday). Throws a RangeError for an
 * unknown zone.
 */
export function localDateOf(utcMs: number, zone: string): LocalDate & { readonly weekday: number } {
  const d = new Date(utcMs + offsetOf(zone, utcMs));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: ((d.getUTCDay() + 6) % 7) + 1,
  };
}

/** The calendar date `days` after `date` (negative: before). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(localMsOf(date) + days * DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Local ms of `minutes` after midnight of `date`. */
export function localMsOf(date: LocalDate, minutes = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(date.year, date.month - 1, date.day);
  return d.getTime() + minutes * 60_000;
}

/**
 * The instant of a wall-clock time in `zone`. A time that occurs twice (clocks going back) is its
 * first occurrence; a time that does not exist (clocks going forward) is the instant the clocks jump,
 * the first instant whose wall-clock time is after it.
 */
export function localToInstant(localMs: number, zone: string): number {
  const offsets = offsetsAround(zone, localMs);
  let first = Infinity;
  for (const [i, p] of offsets.periods.entries()) {
    const utc = localMs - p.offset;
    if (offsets.indexAt(utc) === i) first = Math.min(first, utc);
  }
  if (first !== Infinity) return first;
  for (const [i, p] of offsets.periods.entries()) {
    const previous = offsets.periods[i - 1]?.offset;
    if (previous !== undefined && localMs >= p.start + previous && localMs < p.start + p.offset) return p.start;
  }
  throw new Error(`no instant for local time ${new Date(localMs).toISOString().slice(0, 19)} in ${zone}`);
}

/** The zone's offset at an instant; a RangeError naming the zone when `Intl` does not know it. */
function offsetOf(zone: string, utcMs: number): number {
  return offsetsAround(zone, utcMs).offsetAt(utcMs);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * An instant as ISO 8601 on the wall clock of `zone`, with the zone's UTC offset then:
 * `2024-03-01T00:00:00+01:00` (whole seconds; an offset with seconds, as the local mean times
 * before 1900 have, is written with them: `+00:53:28`).
 */
export function isoInZone(utcMs: number, zone: string): string {
  const offset = offsetOf(zone, utcMs);
  const local = new Date(utcMs + offset).toISOString().slice(0, 19);
  const seconds = Math.abs(offset) / 1000;
  const hh = Math.floor(seconds / 3600);
  const mm = Math.floor((seconds % 3600) / 60);
  const ss = Math.floor(seconds % 60);
  return `${local}${offset < 0 ? '-' : '+'}${pad(hh)}:${pad(mm)}${ss ? `:${pad(ss)}` : ''}`;
}

/**
 * The instant showing the same wall-clock time as `utcMs`, `days` calendar days earlier in `zone`:
 * 09:32 on Monday is 09:32 on the Monday before, whatever a DST change in between did (a time the
 * earlier day skipped is the instant its clocks jumped). "The same time last week".
 */
export function sameTimeDaysBefore(utcMs: number, zone: string, days: number): number {
  return localToInstant(utcMs + offsetOf(zone, utcMs) - days * DAY, zone);
}

/** How many zone-years of offsets are kept (a process sees a few zones and one or two years). */
const MAX_YEARS = 64;
const years = new Map<string, ZoneOffsets>();

/**
 * The zone's offsets over the UTC year of `ms`, three days beyond it on either side, so that every
 * instant within two days of `ms` is covered: scanned once per zone and year. `Intl` is slow to ask
 * (each offset is a formatToParts), and live insights ask for a dozen wall-clock times per request;
 * the periods and their transitions (to the millisecond) are the same as a scan of the narrower range.
 */
function offsetsAround(zone: string, ms: number): ZoneOffsets {
  const year = new Date(ms).getUTCFullYear();
  const key = `${zone}\0${year}`;
  let offsets = years.get(key);
  if (!offsets) {
    try {
      offsets = ZoneOffsets.scan(zone, Date.UTC(year, 0, 1) - 3 * DAY, Date.UTC(year + 1, 0, 1) + 3 * DAY);
    } catch (e) {
      throw new RangeError(`unknown time zone ${zone}`, { cause: e });
    }
    if (years.size >= MAX_YEARS) years.delete(years.keys().next().value as string);
    years.set(key, offsets);
  }
  return offsets;
}

/** `HH:MM` → minutes since midnight (24:00 → 1440). */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}
