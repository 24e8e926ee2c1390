import * as z from 'zod/mini';
import type { CalendarAmount, HistogramInterval, IntervalUnit } from './plan';

// Time-zone names are a time concern (shared/time), used by locations too.
export { canonicalTimeZone } from '../../time/zones';

const isoWithOffset = z.iso.datetime({ offset: true });

/** Epoch ms of an ISO 8601 timestamp with `Z` or an offset; undefined when it is not one. */
export function parseIsoTimestamp(text: string): number | undefined {
  if (!isoWithOffset.safeParse(text).success) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
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
