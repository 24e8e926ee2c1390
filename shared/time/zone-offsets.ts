/**
 * UTC offsets of an IANA time zone over a time range, as a list of periods of constant offset.
 * This is what OpenSearch's `LocalTimeOffset.Lookup` holds (transitions between a min and a max
 * instant, everything before the first one in "the first offset"), built here from `Intl`.
 */

/** One stretch of constant offset, from `start` (UTC ms, inclusive) to the next period's start. */
export interface OffsetPeriod {
  /** -Infinity for the first period of a lookup. */
  readonly start: number;
  /** Local time minus UTC, in ms. */
  readonly offset: number;
}

const DAY = 86_400_000;
/** Scan step: no time zone changes its offset twice (and back) within 4 days. */
const STEP = 4 * DAY;
/** Above this many scan steps the step grows, so that absurd ranges (999999d intervals) stay cheap. */
const MAX_STEPS = 20_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `zone` at `utcMs` in ms, from `Intl` (`GMT+01:00`, `GMT-03:30`, `GMT+00:53:28`, `GMT`). */
export function intlOffset(zone: string, utcMs: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    formatters.set(zone, f);
  }
  const name = f.formatToParts(utcMs).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name);
  if (!m) throw new Error(`unexpected time zone name ${name} for ${zone}`);
  if (!m[1]) return 0;
  const ms = (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0)) * 1000;
  return m[1] === '-' ? -ms : ms;
}

/** The periods of constant offset of one zone between two instants (both inclusive). */
export class ZoneOffsets {
  private constructor(readonly periods: readonly OffsetPeriod[]) {}

  /** Scans [fromMs, toMs] for offset transitions (each located to the millisecond). */
  static scan(zone: string, fromMs: number, toMs: number): ZoneOffsets {
    if (zone === 'UTC' || zone === 'Etc/UTC') return new ZoneOffsets([{ start: -Infinity, offset: 0 }]);
    const step = Math.max(STEP, Math.ceil((toMs - fromMs) / MAX_STEPS));
    const periods: OffsetPeriod[] = [{ start: -Infinity, offset: intlOffset(zone, fromMs) }];
    let at = fromMs;
    while (at < toMs) {
      const next = Math.min(at + step, toMs);
      const current = (periods.at(-1) as OffsetPeriod).offset;
      if (intlOffset(zone, next) === current) {
        at = next;
        continue;
      }
      const start = firstInstantWithOtherOffset(zone, at, next, current);
      periods.push({ start, offset: intlOffset(zone, start) });
      at = start;
    }
    return new ZoneOffsets(periods);
  }

  /** Index of the period containing `utcMs`. */
  indexAt(utcMs: number): number {
    let lo = 0;
    let hi = this.periods.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.periods[mid] as OffsetPeriod).start <= utcMs) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  offsetAt(utcMs: number): number {
    return this.period(this.indexAt(utcMs)).offset;
  }

  period(i: number): OffsetPeriod {
    return this.periods[i] as OffsetPeriod;
  }

  /** Start of period i+1 (exclusive end of period i); Infinity for the last one. */
  endOf(i: number): number {
    return this.periods[i + 1]?.start ?? Infinity;
  }
}

/** Binary search: the first ms in (lo, hi] whose offset differs from `offset` (which holds at lo). */
function firstInstantWithOtherOffset(zone: string, lo: number, hi: number, offset: number): number {
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (intlOffset(zone, mid) === offset) lo = mid;
    else hi = mid;
  }
  return hi;
}
