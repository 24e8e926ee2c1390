import { shiftEarlier } from '../../time/calendar-shift';
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

export function periodsOf(plan: ReportPlan): Periods {
  const { compare, ...current } = plan;
  if (!compare) throw new Error('periodsOf needs a plan with compare');
  return { current, previous: earlierPlan(current, compare) };
}

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
