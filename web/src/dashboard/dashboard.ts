import type { Location } from '#shared/locations/model';
import type { OccupancyHistory } from '#shared/occupancy/history';
import { livePanel } from '../live';
import { readAnswer, type NamedNumbersAnswer, type TimeSeriesAnswer } from '../model/answer';
import { type ExplorerApi, ProblemError } from '../model/api';
import { compareWeeks, dashboardReports, heatGrid, occupancySeries, sameTimeLastWeek, weeksAsSeries } from '../model/dashboard';
import { emptyReason, withoutFuture } from '../model/honest';
import { presetRange } from '../model/presets';
import { buildRequest, type ReportForm } from '../model/request';
import { shiftDay, startOfDay, todayIn } from '../model/time';
import { fromQuery, type ReportState, toQuery } from '../model/url-state';
import { toCsv } from '../model/csv';
import { drawHeatmap } from './heatmap';
import { el, formatNumber, Panel } from './panel';
import { drawWeekTable, weekSummary } from './week';
import { HOURS } from '../model/dashboard';
import { WEEKDAYS } from '#shared/locations/model';

const byId = (id: string) => document.getElementById(id) as HTMLElement;

/** Why a panel has nothing: no access reads differently from a failure. */
function failed(panel: Panel, e: unknown): void {
  const status = e instanceof ProblemError ? e.problem.status : undefined;
  if (status === 401 || status === 403 || status === 404) panel.empty(`No access: ${e instanceof ProblemError ? e.problem.detail : ''}`);
  else panel.empty(`Could not be loaded: ${e instanceof ProblemError ? `${e.problem.title}: ${e.problem.detail}` : 'the service could not be reached.'}`);
}

/**
 * The dashboard of one location (`?view=dashboard&location=…`): occupancy now and over today (beside
 * the same day last week), crossings per hour today, this week against last week, the busiest hours.
 * Days are the location's, in its time zone. Each report panel links to the builder with its report.
 */
export function startDashboard(api: ExplorerApi, locations: readonly Location[]): void {
  const select = byId('dash-location') as HTMLSelectElement;
  select.replaceChildren(...locations.map((l) => el('option', { value: l.id, textContent: `${l.id} (${l.timezone})` })));
  const live = livePanel(api, { body: byId('dash-live-body'), status: byId('dash-live-status') });
  const panels = {
    occupancy: new Panel(byId('dash-occupancy'), 'occupancy-today'),
    entries: new Panel(byId('dash-entries'), 'crossings-per-hour-today'),
    week: new Panel(byId('dash-week'), 'week-over-week'),
    busiest: new Panel(byId('dash-busiest'), 'busiest-hours'),
  };
  // A location chosen while the previous one's panels still load: their late answers are dropped.
  let generation = 0;
  class Stale extends Error {}
  const fresh = <T>(mine: number) => (value: T): T => {
    if (mine !== generation) throw new Stale();
    return value;
  };
  const report = async (state: ReportState, mine: number) => readAnswer(fresh<{ body: unknown }>(mine)(await api.report(buildRequest(state.form as ReportForm).request)).body, 'zero');

  async function occupancy(location: Location, today: string, now: number, mine: number): Promise<void> {
    const panel = panels.occupancy;
    panel.loading();
    const day = (d: string) => [startOfDay(d, location.timezone), startOfDay(shiftDay(d, 1), location.timezone)] as const;
    const [t, w] = fresh<OccupancyHistory[]>(mine)(await Promise.all([day(today), day(shiftDay(today, -7))].map(([from, to]) => api.occupancyHistory(location.id, from, to, '15m').then((r) => r.json() as Promise<OccupancyHistory>))));
    const answer = occupancySeries(t as OccupancyHistory, w, now);
    if (answer.series.length === 0) return panel.empty('No data: this location has no sensor groups.');
    if (answer.series.every((s) => s.values.every((v) => v === null))) return panel.empty('Closed: no sensor group was open today up to now, nor on the same day last week.');
    panel.drawChart(answer, location.timezone, `Occupancy per sensor group today, every 15 minutes, beside the same day last week (${location.timezone})`);
    panel.done('Occupancy at the end of each 15 minutes; a gap is a closed group or a time after now.');
  }

  async function entries(state: ReportState, range: { from: number; to: number }, now: number, zone: string, mine: number): Promise<void> {
    const panel = panels.entries;
    panel.loading();
    const { answer } = withoutFuture(await report(state, mine), now);
    const why = emptyReason(answer, range, now);
    if (why) panel.empty(why);
    else {
      const total = (answer as TimeSeriesAnswer).series.reduce((sum, s) => sum + s.values.reduce<number>((a, v) => a + (v ?? 0), 0), 0);
      panel.drawChart(answer, zone, `Line crossings per hour today by line and direction (${zone})`);
      panel.done(`${formatNumber(total)} crossings today up to now. Hours after now are left empty.`);
    }
    panel.openInBuilder(state);
  }

  async function week(location: Location, today: string, thisWeek: ReportState, lastWeek: ReportState, daysSoFar: number, now: number, zone: string, mine: number): Promise<void> {
    const panel = panels.week;
    panel.loading();
    const zoneOf = thisWeek.form.timeZone as string;
    const weekStart = startOfDay(lastWeek.form.firstDay as string, zoneOf);
    const dayStart = startOfDay(shiftDay(today, -7), zoneOf);
    // The same wall-clock time a week ago (a DST change in between moves it by the change, not the clock).
    const until = dayStart + (now - startOfDay(today, zoneOf));
    const [both, sameTime] = await Promise.all([
      report(thisWeek, mine) as Promise<TimeSeriesAnswer>,
      api.report(sameTimeLastWeek(location.id, weekStart, dayStart, until)).then((r) => fresh<{ week: number; day: number }>(mine)(r.body as { week: number; day: number })),
    ]);
    // One report with `compare: 1w`: its days, then the week before's, paired by rank.
    const current: TimeSeriesAnswer = { ...both, series: both.series.filter((s) => !s.earlier) };
    const before: TimeSeriesAnswer = { ...both, series: both.series.filter((s) => s.earlier) };
    const comparison = compareWeeks(current, before, daysSoFar, sameTime, now);
    panel.drawChart(withoutFuture(weeksAsSeries(current!, comparison), now).answer, zone, 'Movement events per day, this week and last week');
    panel.appendTable((table) => drawWeekTable(table, comparison), 'This week against last week', true);
    panel.done(weekSummary(comparison));
    panel.openInBuilder(thisWeek);
  }

  async function busiest(state: ReportState, mine: number): Promise<void> {
    const panel = panels.busiest;
    panel.loading();
    const answer = (await report(state, mine)) as NamedNumbersAnswer;
    const grid = heatGrid(answer);
    const { firstDay, lastDay, timeZone } = state.form;
    if (grid.flat().every((n) => n === 0)) panel.empty('No data: nothing was recorded in the four weeks before today.');
    else {
      panel.appendTable((table) => drawHeatmap(table, grid, `Movement events by day of week and hour, ${firstDay} to ${lastDay} (${timeZone}), four of each weekday.`), 'Busiest hours', true);
      panel.csv(toCsv([['day', ...HOURS], ...grid.map((row, d) => [WEEKDAYS[d] as string, ...row])]));
      panel.done(`Darker is busier; the busiest hour is ${busiestHour(grid)}.`);
    }
    panel.openInBuilder(state);
  }

  function load(locationId: string): void {
    const location = locations.find((l) => l.id === locationId) ?? locations[0];
    if (!location) {
      byId('dash-title').textContent = 'No locations';
      return;
    }
    select.value = location.id;
    const now = Date.now();
    const zone = location.timezone;
    const today = todayIn(zone, now);
    byId('dash-title').textContent = `${location.id}: today, ${today} (${zone})`;
    live.show(location.id);
    const reports = dashboardReports(location.id, zone, today);
    const daysSoFar = daysAfter(presetRange('thisWeek', today).firstDay, today) + 1;
    const range = { from: startOfDay(today, zone), to: startOfDay(shiftDay(today, 1), zone) };
    const mine = ++generation;
    const settle = (panel: Panel) => (e: unknown) => {
      if (!(e instanceof Stale) && mine === generation) failed(panel, e);
    };
    void occupancy(location, today, now, mine).catch(settle(panels.occupancy));
    void entries(reports.entries, range, now, zone, mine).catch(settle(panels.entries));
    void week(location, today, reports.thisWeek, reports.lastWeek, daysSoFar, now, zone, mine).catch(settle(panels.week));
    void busiest(reports.busiest, mine).catch(settle(panels.busiest));
  }

  select.addEventListener('change', () => {
    history.pushState(null, '', toQuery({ view: 'dashboard', location: select.value }));
    load(select.value);
  });
  window.addEventListener('popstate', () => {
    const state = fromQuery(location.search);
    if (state.view === 'dashboard') load(state.location ?? '');
  });
  const first = fromQuery(location.search);
  load(first.view === 'dashboard' ? (first.location ?? '') : '');
}

/** Whole days from a to b (b not before a). */
function daysAfter(a: string, b: string): number {
  let n = 0;
  while (shiftDay(a, n) < b) n++;
  return n;
}

function busiestHour(grid: readonly (readonly number[])[]): string {
  let best = [0, 0];
  grid.forEach((row, d) => row.forEach((n, h) => (n > (grid[best[0]!]![best[1]!] ?? 0) ? (best = [d, h]) : undefined)));
  return `${WEEKDAYS[best[0]!]} ${HOURS[best[1]!]}`;
}
