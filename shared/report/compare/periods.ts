import { localToInstant } from '../../time/local-time';
import { intlOffset } from '../../time/zone-offsets';
import type { Compare, FilterNode, ReportPlan } from '../plan/plan';

/**
 * The two periods of a `compare` report: the report's own (the plan without `compare`) and the same
 * plan with its timestamp range moved `offset` earlier. Each is an ordinary plan that runs alone
 * (split into slices, or one day answered from rollups) before the two answers are paired
 * (../shape/comparison.ts).
 */
export interface Periods {
  readonly current: ReportPlan;
  readonly previous: ReportPlan;
}

const DAY = 86_400_000;
const MONTHS = { M: 1, q: 3, y: 12 } as const;

export function periodsOf(plan: ReportPlan): Periods {
  const { compare, ...current } = plan;
  if (!compare) throw new Error('periodsOf needs a plan with compare');
  return { current, previous: earlierPlan(current, compare) };
}

/**
 * The instant `offset` before `t` on the wall clock of `zone`: the same local time of day, `n` days
 * (weeks: 7n) or `n` months (quarters: 3n, years: 12n) earlier on the calendar. A day the earlier
 * month does not have becomes its last (one month before March 31 is February 29 or 28, as Java's
 * `minusMonths` and Temporal's default `constrain` have it); a local time the earlier day does not
 * have (skipped by a DST change) becomes the instant the clocks jump, one it has twice the first.
 */
export function shiftEarlier(t: number, offset: Compare['offset'], zone: string): number {
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

/**
 * The plan over the earlier period: every timestamp range filter of `filters` moved (shifting is
 * monotone, so the moved filters intersect to the moved range), and the histogram's bounds with it.
 * Only those move: other date fields (`startingTimestamp`) filter alike in both periods.
 */
function earlierPlan(plan: ReportPlan, compare: Compare): ReportPlan {
  const shift = (t: number | undefined): number | undefined =>
    t === undefined ? undefined : shiftEarlier(t, compare.offset, compare.timeZone);
  const moved = (f: FilterNode): FilterNode =>
    f.kind === 'range' && f.field.name === 'timestamp'
      ? { ...f, ...defined({ from: shift(f.from), to: shift(f.to) }) }
      : f;
  const timeRange = plan.timeRange && defined({ from: shift(plan.timeRange.from), to: shift(plan.timeRange.to) });
  const [first, ...rest] = plan.pipeline;
  const bounded = timeRange?.from !== undefined && timeRange.to !== undefined && timeRange.from < timeRange.to;
  const histogram =
    first?.kind === 'dateHistogram'
      ? [
          {
            kind: first.kind,
            interval: first.interval,
            timeZone: first.timeZone,
            ...(first.bounds && bounded ? { bounds: timeRange } : {}),
          },
        ]
      : [];
  return {
    ...plan,
    filters: plan.filters.map(moved),
    ...(timeRange ? { timeRange } : {}),
    pipeline: first?.kind === 'dateHistogram' ? [...histogram, ...rest] : plan.pipeline,
  };
}

function defined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}
