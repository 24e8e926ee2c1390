import { intlOffset } from '../time/zone-offsets';

/**
 * The sensor-health rule (docs/sensor-health.md), pure: from one source's hourly event counts (a
 * camera's movement events, a parking lot's stats) over the learning window, its last event and
 * "now", whether it is `ok`, `silent` or `unknown`.
 *
 * - The learning window is the LEARNING_DAYS local days before today (today itself teaches nothing:
 *   what is learned is the same all day, so it is learned once a day, ./activity.ts).
 * - The rate of an hour of the week (Monday 09:00 local, …) is learned from the hours the source was
 *   reporting: from the hour of its first event in the window to the end of the hour of its last one;
 *   rate = events in those hours ÷ how many of them there were.
 * - Its usual gap at that hour is 1 h ÷ the rate (none when the hour is usually quiet).
 * - `unknown`: nothing learned (no event in the window), or fewer than MIN_HISTORY_HOURS learned hours.
 * - `silent`: the source should be reporting (`active`: a group of the camera is open; lots always),
 *   nothing came for at least MIN_SILENCE_MS, and the events the learned rates expect since the last
 *   one (each local hour's rate × the part of that hour elapsed, in real time: a DST day's missing or
 *   repeated hour is walked as it happened) reach SILENT_EXPECTED_EVENTS: the silence lasted that many
 *   usual gaps. A quiet hour (rate 0, e.g. closed) adds nothing, so it is never silent.
 * - `ok` otherwise.
 */

export type HealthStatus = 'ok' | 'silent' | 'unknown';

/** One hour bucket of the learning window: its start (epoch ms) and events in it. */
export interface HourCount {
  readonly start: number;
  readonly count: number;
}

/** What the window taught of one source: events per hour by hour of the week (NaN: never seen). */
export interface LearnedRates {
  /** 168 slots, 0 = Monday 00:00 … 167 = Sunday 23:00 local. */
  readonly rates: Float64Array;
  /** How many hours they were learned from. */
  readonly hours: number;
}

export interface Judgement {
  readonly status: HealthStatus;
  /** 1 h ÷ the learned rate of the current hour of the week, in whole seconds; null when unknown or usually quiet. */
  readonly usualGapSeconds: number | null;
}

const HOUR = 3_600_000;
/** The learning window: four weeks of local days, so that each hour of the week is seen up to four times. */
export const LEARNING_DAYS = 28;
/** Less than a week of learned hours: some hour of the week was never seen, the status is unknown. */
export const MIN_HISTORY_HOURS = 7 * 24;
/**
 * A Poisson source with the learned rate sends nothing for 7 usual gaps with probability e^-7 ≈ 0.1 %:
 * few false alarms at a refresh every 5 minutes.
 */
export const SILENT_EXPECTED_EVENTS = 7;
/** Never silent within 15 minutes of an event: late uploads and the refresh period are absorbed. */
export const MIN_SILENCE_MS = 15 * 60_000;

/** The hour of the week of an instant in `zone`: 0 = Monday 00:00 … 167 = Sunday 23:00. */
export function hourOfWeek(utcMs: number, zone: string): number {
  const local = new Date(utcMs + intlOffset(zone, utcMs));
  return ((local.getUTCDay() + 6) % 7) * 24 + local.getUTCHours();
}

/**
 * The rates one source's hour buckets of the window (in order, each starting a local hour) teach,
 * from its first hour with an event to its last; undefined without any event.
 */
export function learn(hours: readonly HourCount[], zone: string): LearnedRates | undefined {
  const first = hours.findIndex((h) => h.count > 0);
  if (first < 0) return undefined;
  let last = hours.length - 1;
  while ((hours[last] as HourCount).count === 0) last--;
  const events = new Float64Array(168);
  const seen = new Float64Array(168);
  for (const h of hours.slice(first, last + 1)) {
    const slot = hourOfWeek(h.start, zone);
    events[slot] = (events[slot] as number) + h.count;
    seen[slot] = (seen[slot] as number) + 1;
  }
  return {
    rates: events.map((e, slot) => (seen[slot] ? e / (seen[slot] as number) : Number.NaN)),
    hours: last - first + 1,
  };
}

/** Judges one source from what it taught and its last event (epoch ms) at `now`. */
export function judge(
  learned: LearnedRates | undefined,
  lastEventAt: number | undefined,
  now: number,
  zone: string,
  active: boolean,
): Judgement {
  if (!learned || lastEventAt === undefined || learned.hours < MIN_HISTORY_HOURS) {
    return { status: 'unknown', usualGapSeconds: null };
  }
  const rateAt = (t: number) => learned.rates[hourOfWeek(t, zone)] || 0;
  const rateNow = rateAt(now);
  const usualGapSeconds = rateNow > 0 ? Math.round(3600 / rateNow) : null;
  if (!active || now - lastEventAt < MIN_SILENCE_MS) return { status: 'ok', usualGapSeconds };
  return {
    status: expectedSince(lastEventAt, now, zone, rateAt) >= SILENT_EXPECTED_EVENTS ? 'silent' : 'ok',
    usualGapSeconds,
  };
}

/**
 * The events the rates expect in [from, now), local hour by local hour in real time; it stops
 * counting once the threshold is reached (a silence of weeks costs no more than one of hours).
 */
function expectedSince(from: number, now: number, zone: string, rateAt: (t: number) => number): number {
  let expected = 0;
  for (let t = from; t < now && expected < SILENT_EXPECTED_EVENTS; ) {
    const intoHour = (((t + intlOffset(zone, t)) % HOUR) + HOUR) % HOUR;
    const next = Math.min(now, t + HOUR - intoHour);
    expected += (rateAt(t) * (next - t)) / HOUR;
    t = next;
  }
  return expected;
}
