import type { OccupancyHistory } from '#shared/occupancy/history-model';
import { WEEKDAYS } from '#shared/locations/model';
import { sameTimeDaysBefore } from '#shared/time/local-time';
import type { ReportRequest } from '#shared/report/schema/request';
import type { NamedNumbersAnswer, Series, TimeSeriesAnswer } from './answer';
import { presetRange } from './presets';
import type { ReportForm } from './request';
import { shiftDay, startOfDay, todayIn } from './time';
import type { ReportState } from './url-state';

/**
 * What the dashboard of a location asks and how it lines the answers up. Each report panel is a report
 * form, the same the builder reads from its controls, so "open in the report builder" is that form's
 * link and the builder runs exactly the request the panel ran.
 */

const base = (
  locationId: string,
  timeZone: string,
): Omit<ReportForm, 'firstDay' | 'lastDay' | 'interval' | 'breakdown' | 'overTime'> => ({
  locationIds: [locationId],
  source: 'movementEvents',
  timeZone,
  statsField: '',
  stats: [],
  split: false,
});

export interface DashboardReports {
  /** Line crossings per hour today, by camera, line and direction: the entries and exits. */
  readonly entries: ReportState;
  /** Movement events per hour today beside the same day a week before: what "today so far" counts. */
  readonly today: ReportState;
  /** Movement events per day, Monday to Sunday of this week, compared with the week before (`compare: 1w`). */
  readonly thisWeek: ReportState;
  /** Movement events by weekday and hour over the four whole weeks (28 days) before today. */
  readonly busiest: ReportState;
}

export function dashboardReports(locationId: string, timeZone: string, today: string): DashboardReports {
  const common = base(locationId, timeZone);
  const thisWeek = presetRange('thisWeek', today);
  return {
    entries: {
      preset: 'today',
      form: { ...common, firstDay: today, lastDay: today, overTime: true, interval: '1h', breakdown: 'cameraLine' },
    },
    today: {
      preset: 'today',
      form: {
        ...common,
        firstDay: today,
        lastDay: today,
        overTime: true,
        interval: '1h',
        breakdown: '',
        compare: '1w',
      },
    },
    thisWeek: {
      form: {
        ...common,
        firstDay: thisWeek.firstDay,
        lastDay: shiftDay(thisWeek.firstDay, 6),
        overTime: true,
        interval: '1d',
        breakdown: '',
        compare: '1w',
      },
    },
    busiest: {
      form: {
        ...common,
        firstDay: shiftDay(today, -28),
        lastDay: shiftDay(today, -1),
        overTime: false,
        interval: '1h',
        breakdown: 'weekdayHour',
      },
    },
  };
}

/**
 * The instants the dashboard compares, in the location's zone: today up to now against the same
 * day a week before up to the same wall-clock time (09:32 against last Monday's 09:32, whatever a
 * DST change in between did), and this week so far against last week up to that same instant.
 */
export interface DayWindows {
  readonly zone: string;
  readonly now: number;
  /** Today's date in the zone (`YYYY-MM-DD`). */
  readonly today: string;
  readonly todayStart: number;
  readonly todayEnd: number;
  readonly lastWeekDayStart: number;
  readonly lastWeekDayEnd: number;
  /** Now's wall-clock time on the same weekday a week before. */
  readonly lastWeekUntil: number;
  /** This week's Monday, and the Monday before, at midnight. */
  readonly weekStart: number;
  readonly lastWeekStart: number;
}

export function dayWindows(zone: string, now: number): DayWindows {
  const today = todayIn(zone, now);
  const monday = presetRange('thisWeek', today).firstDay;
  const lastWeekDay = shiftDay(today, -7);
  const lastWeekUntil = sameTimeDaysBefore(now, zone, 7);
  return {
    zone,
    now,
    today,
    todayStart: startOfDay(today, zone),
    todayEnd: startOfDay(shiftDay(today, 1), zone),
    lastWeekDayStart: startOfDay(lastWeekDay, zone),
    lastWeekDayEnd: startOfDay(shiftDay(lastWeekDay, 1), zone),
    lastWeekUntil,
    weekStart: startOfDay(monday, zone),
    lastWeekStart: startOfDay(shiftDay(monday, -7), zone),
  };
}

/** The counts "so far" the dashboard compares, named as the `filters` report answers them. */
export interface SoFar {
  /** Today up to now, and the same day a week before up to the same time. */
  readonly today: number;
  readonly todayLastWeek: number;
  /** This week up to now, and last week up to the same time. */
  readonly week: number;
  readonly lastWeek: number;
}

/** One report of four counts: today and this week up to now, and the same spans a week before. */
export function soFarRequest(locationId: string, w: DayWindows): ReportRequest {
  const range = (from: number, to: number) => ({
    type: 'range' as const,
    field: 'timestamp',
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  return {
    source: 'movementEvents',
    locationIds: [locationId],
    filters: [range(w.lastWeekStart, w.now)],
    aggregations: [
      {
        type: 'filters',
        filters: {
          today: range(w.todayStart, w.now),
          todayLastWeek: range(w.lastWeekDayStart, w.lastWeekUntil),
          week: range(w.weekStart, w.now),
          lastWeek: range(w.lastWeekStart, w.lastWeekUntil),
        },
      },
    ],
  };
}

/** A change and its share of the base (undefined when the base is 0: no percentage of nothing). */
export interface Change {
  readonly delta: number;
  readonly share: number | undefined;
}

export const change = (now: number, before: number): Change => ({
  delta: now - before,
  share: before === 0 ? undefined : (now - before) / before,
});

export interface WeekRow {
  readonly weekday: string;
  /** This week's count: so far for today, null after today. */
  readonly thisWeek: number | null;
  /** Last week's same day: up to the same time for today, whole for every other day. */
  readonly lastWeek: number;
  /** Last week's same day in full (for today, beside the part compared). */
  readonly lastWeekWhole: number;
  readonly change: Change | null;
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
  readonly total: Change;
  /** The instant "now" of the comparison (epoch ms). */
  readonly now: number;
}

/**
 * Day by day (Monday first), this week's counts beside last week's. Today is not over: it is compared
 * with last week's same day up to the same time, and the totals are this week up to now against last
 * week up to the same time, never a part of a day beside a whole one.
 */
export function compareWeeks(
  thisWeek: TimeSeriesAnswer,
  lastWeek: TimeSeriesAnswer,
  daysSoFar: number,
  soFar: SoFar,
  now: number,
): WeekComparison {
  const mine = thisWeek.series[0]?.values ?? [];
  const theirs = lastWeek.series[0]?.values ?? [];
  const rows = WEEKDAYS.map((weekday, i): WeekRow => {
    const today = i === daysSoFar - 1;
    const whole = theirs[i] ?? 0;
    const count = today ? soFar.today : i < daysSoFar ? (mine[i] ?? 0) : null;
    const before = today ? soFar.todayLastWeek : whole;
    return {
      weekday,
      thisWeek: count,
      lastWeek: before,
      lastWeekWhole: whole,
      change: count === null ? null : change(count, before),
      today,
    };
  });
  return {
    rows,
    daysSoFar,
    thisWeekTotal: soFar.week,
    lastWeekSameTime: soFar.lastWeek,
    lastWeekTotal: theirs.reduce<number>((sum, v) => sum + (v ?? 0), 0),
    total: change(soFar.week, soFar.lastWeek),
    now,
  };
}

/**
 * The two weeks as one time series on this week's days, for the chart: last week dashed in this week's colour; today,
 * not over, left out.
 */
export function weeksAsSeries(thisWeek: TimeSeriesAnswer, comparison: WeekComparison): TimeSeriesAnswer {
  return {
    kind: 'timeSeries',
    times: thisWeek.times,
    series: [
      { name: 'this week', values: comparison.rows.map((r) => (r.today ? null : r.thisWeek)) },
      { name: 'last week', values: comparison.rows.map((r) => r.lastWeekWhole), earlier: true, pairOf: 0 },
    ],
  };
}

export const HOURS = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);

/** A weekday × hour answer (`monday 08:00`: n) as 7 rows of 24 counts; a key the answer leaves out had none. */
export function heatGrid(answer: NamedNumbersAnswer): number[][] {
  const values = new Map(answer.entries);
  return WEEKDAYS.map((day) => HOURS.map((hour) => values.get(`${day} ${hour}`) ?? 0));
}

/**
 * Occupancy over today per sensor group, with the same day last week beside each (in the group's
 * colour, dashed): one series of `occupancy` per group and day, on today's bucket times (last week's
 * buckets in order, so a DST change between the two days shifts last week's by an hour). A closed
 * bucket, and a bucket of today after now, has no value (a gap).
 */
export function occupancySeries(
  today: OccupancyHistory,
  lastWeek: OccupancyHistory | undefined,
  now: number,
): TimeSeriesAnswer {
  const groups = today.insights.occupancy ?? [];
  const times = (groups[0]?.buckets ?? []).map((b) => Date.parse(b.timestamp));
  const series: Series[] = [];
  for (const group of groups) {
    // Today's buckets after now are not known yet: a gap, never a value.
    const at = series.length;
    const name = group.sensorGroup.name;
    series.push({
      name,
      values: group.buckets.map((b, i) => ((times[i] as number) > now ? null : (b.occupancy ?? null))),
      heading: { group: name, label: 'today' },
    });
    const before = lastWeek?.insights.occupancy?.find((g) => g.sensorGroup.id === group.sensorGroup.id);
    if (before)
      series.push({
        name: `${name}, a week before`,
        values: times.map((_, i) => before.buckets[i]?.occupancy ?? null),
        earlier: true,
        pairOf: at,
        heading: { group: name, label: 'a week before' },
      });
  }
  return { kind: 'timeSeries', times, series };
}
