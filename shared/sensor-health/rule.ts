import { intlOffset } from '../time/zone-offsets';

/**
 * The sensor-health rule (docs/sensor-health.md), pure: from one source's hourly event counts (a
 * camera's movement events, a parking lot's stats) over the learning window, its last event and
 * "now", whether it is `ok`, `silent` or `unknown`.
 *
 * - The rate of an hour of the week (Monday 09:00 local, …) is learned from the hours the source was
 *   reporting: from the hour of its first event in the window to the end of the hour of its last one
 *   (the current, partial hour left out); rate = events in those hours ÷ how many of them there were.
 * - Its usual gap at that hour is 1 h ÷ the rate (none when the hour is usually quiet).
 * - `unknown`: no event in the window, or fewer than MIN_HISTORY_HOURS learned hours.
 * - `silent`: the source should be reporting (`active`: a group of the camera is open; lots always),
 *   nothing came for at least MIN_SILENCE_MS, and the events the learned rates expect since the last
 *   one (each hour's rate × the part of that hour elapsed) reach SILENT_EXPECTED_EVENTS: the silence
 *   lasted that many usual gaps. A quiet hour (rate 0, e.g. closed) adds nothing, so it is never silent.
 * - `ok` otherwise.
 */

export type HealthStatus = 'ok' | 'silent' | 'unknown';

/** One hour bucket of the learning window: its start (epoch ms) and events in it. */
export interface HourCount {
  readonly start: number;
  readonly count: number;
}

export interface Judgement {
  readonly status: HealthStatus;
  /** 1 h ÷ the learned rate of the current hour of the week, in whole seconds; null when unknown or usually quiet. */
  readonly usualGapSeconds: number | null;
}

const HOUR = 3_600_000;
/** The learning window: four weeks, so that each hour of the week is seen up to four times. */
export const LEARNING_WINDOW_MS = 28 * 24 * HOUR;
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
 * Judges one source. `hours`: the window's hour buckets in order, the last one holding `now` (each
 * bucket ends where the next starts, the last one hour after its start); `lastEventAt`: its last event (epoch ms).
 */
export function judge(
  hours: readonly HourCount[],
  lastEventAt: number | undefined,
  now: number,
  zone: string,
  active: boolean,
): Judgement {
  const first = hours.findIndex((h) => h.count > 0);
  if (first < 0 || lastEventAt === undefined) return { status: 'unknown', usualGapSeconds: null };
  let last = hours.length - 1;
  while (last > first && (hours[last] as HourCount).count === 0) last--;
  // The current hour is partial: it teaches nothing about its hour of the week.
  const learned = hours.slice(first, Math.min(last + 1, hours.length - 1));
  if (learned.length < MIN_HISTORY_HOURS) return { status: 'unknown', usualGapSeconds: null };
  const rates = learnRates(learned, zone);
  const rateNow = rates.get(hourOfWeek(now, zone)) ?? 0;
  const usualGapSeconds = rateNow > 0 ? Math.round(3600 / rateNow) : null;
  if (!active || now - lastEventAt < MIN_SILENCE_MS) return { status: 'ok', usualGapSeconds };
  let expected = 0;
  hours.forEach((h, i) => {
    const end = i + 1 < hours.length ? (hours[i + 1] as HourCount).start : h.start + HOUR;
    const overlap = Math.min(end, now) - Math.max(h.start, lastEventAt);
    if (overlap > 0) expected += ((rates.get(hourOfWeek(h.start, zone)) ?? 0) * overlap) / (end - h.start);
  });
  return { status: expected >= SILENT_EXPECTED_EVENTS ? 'silent' : 'ok', usualGapSeconds };
}

/** Events per hour for each hour of the week seen in `hours`. */
function learnRates(hours: readonly HourCount[], zone: string): Map<number, number> {
  const sums = new Map<number, { events: number; hours: number }>();
  for (const h of hours) {
    const slot = hourOfWeek(h.start, zone);
    const s = sums.get(slot) ?? { events: 0, hours: 0 };
    sums.set(slot, { events: s.events + h.count, hours: s.hours + 1 });
  }
  return new Map([...sums].map(([slot, s]) => [slot, s.events / s.hours]));
}
