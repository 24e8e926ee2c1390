import * as z from 'zod/mini';
import type { CalendarAmount, HistogramInterval, IntervalUnit } from './plan';

const isoWithOffset = z.iso.datetime({ offset: true });

/**
 * Epoch ms of an ISO 8601 timestamp with `Z` or an offset; undefined when it is not one. Digits past the millisecond
 * are cut (Date.parse).
 */
export function parseIsoTimestamp(text: string): number | undefined {
  if (!isoWithOffset.safeParse(text).success) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * A range bound: the timestamp rounded UP to the next millisecond when it has finer digits. Documents
 * have millisecond precision, so for a document's time t (whole ms) and a bound x, t >= x exactly
 * when t >= ceil(x), and t < x exactly when t < ceil(x): both ends of [from, to) keep their meaning.
 * Date.parse cuts the extra digits, i.e. rounds down, which made `to: "…T12:00:00.0005Z"` exclude a
 * document at 12:00:00.000 and `from: "…T12:00:00.0005Z"` include it.
 */
export function parseRangeBound(text: string): number | undefined {
  const ms = parseIsoTimestamp(text);
  if (ms === undefined) return undefined;
  return /[1-9]/.test(subMillisecond(text)) ? ms + 1 : ms;
}

/** The digits of a timestamp's fraction past the millisecond ('' for none). */
const subMillisecond = (text: string): string => (/T\d{2}:\d{2}:\d{2}\.(\d+)/i.exec(text)?.[1] ?? '').slice(3);

/**
 * Whether timestamp `a` is strictly before `b`, to the last digit (both valid, see parseIsoTimestamp):
 * two bounds within one millisecond are in order although they round to the same one.
 */
export function isBeforeExactly(a: string, b: string): boolean {
  const [msA, msB] = [parseIsoTimestamp(a) as number, parseIsoTimestamp(b) as number];
  if (msA !== msB) return msA < msB;
  const [subA, subB] = [subMillisecond(a), subMillisecond(b)];
  const width = Math.max(subA.length, subB.length);
  return subA.padEnd(width, '0') < subB.padEnd(width, '0');
}

const UNIT_MS: Readonly<Record<'s' | 'm' | 'h' | 'd', number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `<n><unit>` → amount and unit (the text was checked by the schema's pattern). */
export function parseAmount(text: string): CalendarAmount {
  const unit = text.slice(-1) as IntervalUnit;
  return { amount: Number(text.slice(0, -1)), unit, text };
}

/** `1d`, `1w`, `1M`, `1q`, `1y` follow the calendar; every other interval is a fixed length. */
export function parseHistogramInterval(text: string): HistogramInterval {
  const { amount, unit } = parseAmount(text);
  if (unit === 's' || unit === 'm' || unit === 'h' || (unit === 'd' && amount > 1)) {
    return { kind: 'fixed', ms: amount * UNIT_MS[unit], text };
  }
  return { kind: 'calendar', unit: unit as 'd' | 'w' | 'M' | 'q' | 'y', text };
}
