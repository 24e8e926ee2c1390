import { ValidationError, type FieldError } from '../errors';
import { parseIsoTimestamp } from '../report/plan/time';
import { isNotBeforeFloor, TIMESTAMP_FLOOR_MESSAGE, TIMESTAMP_FORMAT_MESSAGE } from '../time/timestamps';
import type { HistogramInterval } from '../report/plan/plan';
import { parseInsightKinds, type InsightKind } from './live-insights';

/** The history has occupancy only (sensor health is live). */
const HISTORY_KINDS: readonly InsightKind[] = ['occupancy'];

/**
 * The query of `GET /locations/{id}/insights/history`, checked whole before any work: every
 * parameter's error names it and what is allowed, all at once (400).
 */

/** Bucket lengths: multiples of the 5-minute refresh period up to an hour, and the local day. */
export const HISTORY_INTERVALS = ['5m', '10m', '15m', '30m', '1h', '1d'] as const;
export type HistoryIntervalText = (typeof HISTORY_INTERVALS)[number];
export const DEFAULT_HISTORY_INTERVAL: HistoryIntervalText = '15m';

/** Longest range: a month of any length. */
export const MAX_HISTORY_DAYS = 31;
/** Most buckets per sensor group (31 days of 15 minutes; 5-minute buckets for up to 10 days). */
export const MAX_HISTORY_BUCKETS = 2976;
/**
 * Most values (sensor groups × buckets) in one answer: about 60 bytes each as JSON, so an answer
 * stays far below the 6 MB a Lambda response may carry (20 groups at the most buckets).
 */
export const MAX_HISTORY_VALUES = 20 * MAX_HISTORY_BUCKETS;

const DAY_MS = 86_400_000;
const INTERVAL_MS: Readonly<Record<HistoryIntervalText, number>> = {
  '5m': 300_000,
  '10m': 600_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '1d': DAY_MS,
};

export interface HistoryQuery {
  readonly kinds: readonly InsightKind[];
  /** Epoch ms; the answer's buckets are those of the location's time zone that overlap [from, to). */
  readonly from: number;
  readonly to: number;
  readonly interval: HistogramInterval;
}

/** The interval as the histogram rounding takes it: `1d` follows the local calendar (23 or 25 hours on DST days). */
export function historyInterval(text: HistoryIntervalText): HistogramInterval {
  return text === '1d' ? { kind: 'calendar', unit: 'd', text } : { kind: 'fixed', ms: INTERVAL_MS[text], text };
}

export function parseHistoryQuery(query: Readonly<Record<string, string | undefined>> = {}): HistoryQuery {
  const errors: FieldError[] = [];
  let kinds: InsightKind[] = [];
  try {
    kinds = parseInsightKinds(query.filter, HISTORY_KINDS);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    errors.push(...e.errors);
  }
  const from = timestamp(query.from, 'from', errors);
  const to = timestamp(query.to, 'to', errors);
  const intervalText = query.interval ?? DEFAULT_HISTORY_INTERVAL;
  const allowed = HISTORY_INTERVALS as readonly string[];
  if (!allowed.includes(intervalText)) {
    errors.push({
      path: '/query/interval',
      message: `must be one of ${HISTORY_INTERVALS.join(', ')} (default ${DEFAULT_HISTORY_INTERVAL})`,
    });
  }
  if (from !== undefined && to !== undefined && errors.length === 0) {
    const ms = INTERVAL_MS[intervalText as HistoryIntervalText];
    const buckets = Math.ceil((to - from) / ms);
    if (to <= from) errors.push({ path: '/query/to', message: 'must be after from' });
    else if (to - from > MAX_HISTORY_DAYS * DAY_MS)
      errors.push({ path: '/query/to', message: `must be at most ${MAX_HISTORY_DAYS} days after from` });
    else if (buckets > MAX_HISTORY_BUCKETS) {
      const longest = Math.floor((MAX_HISTORY_BUCKETS * ms) / 3_600_000);
      errors.push({
        path: '/query/interval',
        message: `${intervalText} makes ${buckets} buckets of this range, more than ${MAX_HISTORY_BUCKETS}: use a longer interval (${HISTORY_INTERVALS.join(', ')}) or a range of at most ${longest} hours`,
      });
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { kinds, from: from!, to: to!, interval: historyInterval(intervalText as HistoryIntervalText) };
}

function timestamp(text: string | undefined, name: 'from' | 'to', errors: FieldError[]): number | undefined {
  const path = `/query/${name}`;
  if (text === undefined) {
    errors.push({ path, message: 'is required (ISO 8601 with Z or an offset, e.g. 2024-03-31T00:00:00+02:00)' });
    return undefined;
  }
  const ms = parseIsoTimestamp(text);
  if (ms === undefined) errors.push({ path, message: TIMESTAMP_FORMAT_MESSAGE });
  else if (!isNotBeforeFloor(ms)) errors.push({ path, message: TIMESTAMP_FLOOR_MESSAGE });
  else return ms;
  return undefined;
}
