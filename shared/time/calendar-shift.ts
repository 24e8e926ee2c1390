import { localToInstant } from './local-time';
import { intlOffset } from './zone-offsets';

/** `<n>` days, weeks, months, quarters or years: a distance on a calendar, not a fixed length. */
export interface CalendarOffset {
  readonly amount: number;
  readonly unit: 'd' | 'w' | 'M' | 'q' | 'y';
}

const DAY = 86_400_000;
const MONTHS = { M: 1, q: 3, y: 12 } as const;

/**
 * The instant `offset` before `t` on the wall clock of `zone`: the same local time of day, `n` days
 * (weeks: 7n) or `n` months (quarters: 3n, years: 12n) earlier on the calendar. A day the earlier
 * month does not have becomes its last (one month before March 31 is February 29 or 28, as Java's
 * `minusMonths` and Temporal's default `constrain` have it); a local time the earlier day does not
 * have (skipped by a DST change) becomes the instant the clocks jump, one it has twice the first.
 */
export function shiftEarlier(t: number, offset: CalendarOffset, zone: string): number {
  const local = t + intlOffset(zone, t);
  if (offset.unit === 'd' || offset.unit === 'w')
    return localToInstant(local - offset.amount * (offset.unit === 'w' ? 7 : 1) * DAY, zone);
  const d = new Date(local);
  const timeOfDay = local - utcDate(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const month = d.getUTCFullYear() * 12 + d.getUTCMonth() - offset.amount * MONTHS[offset.unit];
  const [year, monthOfYear] = [Math.floor(month / 12), ((month % 12) + 12) % 12];
  const day = Math.min(d.getUTCDate(), daysInMonth(year, monthOfYear));
  return localToInstant(utcDate(year, monthOfYear, day) + timeOfDay, zone);
}

/** Local ms of a date's midnight; setUTCFullYear, since Date.UTC reads years 0 to 99 as 1900 to 1999. */
function utcDate(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d.getTime();
}

const daysInMonth = (year: number, month: number): number => new Date(utcDate(year, month + 1, 1) - DAY).getUTCDate();
