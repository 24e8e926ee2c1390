import type { OccupancyHistory } from '#shared/occupancy/history';
import { WEEKDAYS } from '#shared/locations/model';
import type { NamedNumbersAnswer, Series, TimeSeriesAnswer } from './answer';
import { presetRange } from './presets';
import type { ReportRequest } from '#shared/report/schema/request';
import type { ReportForm } from './request';
import { shiftDay } from './time';
import type { ReportState } from './url-state';

/**
 * What the dashboard of a location asks and how it lines the answers up. Each report panel is a report
 * form, the same the builder reads from its controls, so "open in the report builder" is that form's
 * link and the builder runs exactly the request the panel ran.
 */

const base = (locationId: string, timeZone: string): Omit<ReportForm, 'firstDay' | 'lastDay' | 'interval' | 'breakdown' | 'overTime'> => ({
  locationIds: [locationId],
  source: 'movementEvents',
  timeZone,
  statsField: '',
  stats: [],
  split: false,
});

export interface DashboardReports {
  /** Line crossings per hour today, by line and direction: the entries (and exits). */
  readonly entries: ReportState;
  /** Movement events per day, Monday to Sunday of this week, compared with the week before (`compare: 1w`). */
  readonly thisWeek: ReportState;
  readonly lastWeek: ReportState;
  /** Movement events by weekday and hour over the four whole weeks (28 days) before today. */
  readonly busiest: ReportState;
}

export function dashboardReports(locationId: string, timeZone: string, today: string): DashboardReports {
  const common = base(locationId, timeZone);
  const thisWeek = presetRange('thisWeek', today);
  const lastWeek = presetRange('lastWeek', today);
  return {
    entries: { preset: 'today', form: { ...common, firstDay: today, lastDay: today, overTime: true, interval: '1h', breakdown: 'crossedPaths' } },
    thisWeek: { form: { ...common, firstDay: thisWeek.firstDay, lastDay: shiftDay(thisWeek.firstDay, 6), overTime: true, interval: '1d', breakdown: '', compare: '1w' } },
    lastWeek: { preset: 'lastWeek', form: { ...common, ...lastWeek, overTime: true, interval: '1d', breakdown: '' } },
    busiest: { form: { ...common, firstDay: shiftDay(today, -28), lastDay: shiftDay(today, -1), overTime: false, interval: '1h', breakdown: 'weekdayHour' } },
  };
}

export interface WeekRow {
  readonly weekday: string;
  /** This week's count: up to now for today, null after today. */
  readonly thisWeek: number | null;
  readonly lastWeek: number;
  /** This week's count less last week's on the same day, today's against last week's up to the same time. */
  readonly change: number | null;
  readonly today: boolean;
}

export interface WeekComparison {
  readonly rows: readonly WeekRow[];
  /** Days of this week up to today, today included. */
  readonly daysSoFar: number;
  /** This week up to now, and last week up to the same time a week earlier. */
  readonly thisWeekTotal: number;
  readonly lastWeekSameTime: number;
  readonly lastWeekTotal: number;
  /** thisWeekTotal − lastWeekSameTime, and that as a share of lastWeekSameTime (undefined for 0). */
  readonly delta: number;
  readonly deltaShare: number | undefined;
  /** The instant "now" of the comparison (epoch ms). */
  readonly now: number;
}

const total = (values: readonly (number | null)[]) => values.reduce<number>((sum, v) => sum + (v ?? 0), 0);

/**
 * Day by day (Monday first), this week's counts beside last week's. Today is not over: it is compared
 * with last week's same day up to the same time (`sameTime.day`), and the totals are this week up to now
 * against last week up to the same time (`sameTime.week`), never a part of a day against a whole one.
 */
export function compareWeeks(thisWeek: TimeSeriesAnswer, lastWeek: TimeSeriesAnswer, daysSoFar: number, sameTime: { readonly week: number; readonly day: number }, now: number): WeekComparison {
  const mine = thisWeek.series[0]?.values ?? [];
  const theirs = lastWeek.series[0]?.values ?? [];
  const rows = WEEKDAYS.map((weekday, i) => {
    const today = i === daysSoFar - 1;
    const count = i < daysSoFar ? (mine[i] ?? 0) : null;
    const before = theirs[i] ?? 0;
    return { weekday, thisWeek: count, lastWeek: before, change: count === null ? null : count - (today ? sameTime.day : before), today };
  });
  const thisWeekTotal = total(rows.map((r) => r.thisWeek));
  const delta = thisWeekTotal - sameTime.week;
  return {
    rows,
    daysSoFar,
    thisWeekTotal,
    lastWeekSameTime: sameTime.week,
    lastWeekTotal: total(rows.map((r) => r.lastWeek)),
    delta,
    deltaShare: sameTime.week === 0 ? undefined : delta / sameTime.week,
    now,
  };
}

/** The two weeks as one time series on this week's days, for the chart; today, not over, is left out. */
export function weeksAsSeries(thisWeek: TimeSeriesAnswer, comparison: WeekComparison): TimeSeriesAnswer {
  return {
    kind: 'timeSeries',
    times: thisWeek.times,
    series: [
      { name: 'this week', values: comparison.rows.map((r) => (r.today ? null : r.thisWeek)) },
      { name: 'last week', values: comparison.rows.map((r) => r.lastWeek) },
    ],
  };
}

/** The counts of last week up to the same time as now: from its Monday, and from the start of its same day. */
export function sameTimeLastWeek(locationId: string, weekStart: number, dayStart: number, until: number): ReportRequest {
  const range = (from: number) => ({ type: 'range' as const, field: 'timestamp', from: new Date(from).toISOString(), to: new Date(until).toISOString() });
  return {
    source: 'movementEvents',
    locationIds: [locationId],
    filters: [range(weekStart)],
    aggregations: [{ type: 'filters', filters: { week: range(weekStart), day: range(dayStart) } }],
  };
}

export const HOURS = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);

/** A weekday × hour answer (`monday 08:00`: n) as 7 rows of 24 counts; a key the answer leaves out had none. */
export function heatGrid(answer: NamedNumbersAnswer): number[][] {
  const values = new Map(answer.entries);
  return WEEKDAYS.map((day) => HOURS.map((hour) => values.get(`${day} ${hour}`) ?? 0));
}

/**
 * Occupancy over today per sensor group, with the same day last week beside each: one series of
 * `occupancy` per group and day, on today's bucket times (last week's buckets in order, so a DST change
 * between the two days shifts last week's by an hour). A closed bucket, and a bucket of today after
 * now, has no value (a gap).
 */
export function occupancySeries(today: OccupancyHistory, lastWeek: OccupancyHistory | undefined, now: number): TimeSeriesAnswer {
  const groups = today.insights.occupancy ?? [];
  const times = (groups[0]?.buckets ?? []).map((b) => Date.parse(b.timestamp));
  const series: Series[] = [];
  for (const group of groups) {
    // Today's buckets after now are not known yet: a gap, never a value.
    series.push({ name: group.sensorGroup.name, values: group.buckets.map((b, i) => ((times[i] as number) > now ? null : (b.occupancy ?? null))) });
    const before = lastWeek?.insights.occupancy?.find((g) => g.sensorGroup.id === group.sensorGroup.id);
    if (before) series.push({ name: `${group.sensorGroup.name}, a week before`, values: times.map((_, i) => before.buckets[i]?.occupancy ?? null) });
  }
  return { kind: 'timeSeries', times, series };
}
