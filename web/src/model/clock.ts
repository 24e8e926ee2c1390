/**
 * Times and dates as people read them: on the wall clock of the place they are about (the location's
 * time zone, named beside them), written the way the reader's browser writes them (its locale), so a
 * Tokyo page opened in New York says `9:32 PM (Asia/Tokyo)` and a Berlin page opened in Berlin
 * `21:32 (Europe/Berlin)`. `locale` is undefined in the page (the browser's) and fixed in tests.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function format(locale: string | undefined, zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify([locale ?? '', zone, options]);
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
    formats.set(key, f);
  }
  return f;
}

/** Hours and minutes on the zone's clock: `21:32`, `9:32 PM`. */
export const clockTime = (instant: number, zone: string, locale?: string): string =>
  format(locale, zone, { hour: 'numeric', minute: '2-digit' }).format(instant);

/** The time with its zone named: `21:32 (Europe/Berlin)`. */
export const clockTimeIn = (instant: number, zone: string, locale?: string): string =>
  `${clockTime(instant, zone, locale)} (${zone})`;

/** A day on the zone's calendar: `Mon, Jun 3` / `Mo., 3. Juni`. */
const shortDate = (instant: number, zone: string, locale?: string): string =>
  format(locale, zone, { weekday: 'short', month: 'short', day: 'numeric' }).format(instant);

/** A day in full: `Monday, June 3, 2026`. */
export const longDate = (instant: number, zone: string, locale?: string): string =>
  format(locale, zone, { dateStyle: 'full' }).format(instant);

/** A day and time: `Jun 3, 2026, 21:30`. */
export const dateTime = (instant: number, zone: string, locale?: string): string =>
  format(locale, zone, { dateStyle: 'medium', timeStyle: 'short' }).format(instant);

/**
 * A chart axis label for a tick (epoch ms): the date at ticks a day or more apart, the time within a
 * day, and the date under the time at the first tick and at each midnight, so a reader never has to
 * guess which day an hour belongs to.
 */
export function axisLabel(instant: number, stepSeconds: number, first: boolean, zone: string, locale?: string): string {
  if (stepSeconds >= 86_400) return shortDate(instant, zone, locale);
  const time = clockTime(instant, zone, locale);
  const midnight =
    format('en-GB', zone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(instant) === '00:00';
  return first || midnight ? `${time}\n${shortDate(instant, zone, locale)}` : time;
}

const HOUR = 3_600;
const DAY = 86_400;
const MONTH = 30 * DAY;
/** uPlot's own steps between time ticks, in seconds (its `timeIncrs` from a second up). */
const TICK_STEPS = [
  ...[1, 5, 10, 15, 30, 60, 300, 600, 900, 1_800],
  ...[1, 2, 3, 4, 6, 8, 12].map((h) => h * HOUR),
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15].map((d) => d * DAY),
  ...[1, 2, 3, 4, 6].map((m) => m * MONTH),
  ...[1, 2, 5, 10, 25, 50, 100].map((y) => y * 365 * DAY),
];

/**
 * The steps a time axis may tick at for buckets at `times` (epoch ms): never finer than the buckets,
 * and whole multiples of them, so a chart of days ticks at midnights (not at 8:00 AM and 4:00 PM, as
 * if there were hours between its points) and a chart of weeks at its Mondays. The buckets' step is
 * the median gap, whole days for a gap of a day or more (a DST day is 23 or 25 hours), a month for 28
 * days or more.
 */
export function tickSteps(times: readonly number[]): number[] {
  const gaps = times
    .slice(1)
    .map((t, i) => (t - (times[i] as number)) / 1000)
    .sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)];
  if (median === undefined || median <= 0) return TICK_STEPS;
  if (median >= 28 * DAY) return TICK_STEPS.filter((s) => s >= MONTH);
  const step = median >= 20 * HOUR ? Math.round(median / DAY) * DAY : median;
  const multiples = [...TICK_STEPS.filter((s) => s < MONTH && s >= step && s % step === 0), 2 * step, 4 * step].filter(
    (s) => s < MONTH,
  );
  return [...new Set(multiples)].sort((a, b) => a - b).concat(TICK_STEPS.filter((s) => s >= MONTH));
}
