import type { Location } from '#shared/locations/model';
import type { OccupancyHistory } from '#shared/occupancy/history-model';
import { WEEKDAYS } from '#shared/locations/model';
import { readAnswer, type NamedNumbersAnswer, type TimeSeriesAnswer } from '../model/answer';
import { type ExplorerApi, type LocationDetail, ProblemError } from '../model/api';
import { clockTime, clockTimeIn, longDate } from '../model/clock';
import {
  change,
  compareWeeks,
  dashboardReports,
  dayWindows,
  type DayWindows,
  HOURS,
  heatGrid,
  occupancySeries,
  type SoFar,
  soFarRequest,
  weeksAsSeries,
} from '../model/dashboard';
import { emptyReason, withoutFuture } from '../model/honest';
import { crossingsByLine, crossingsInOut, entriesAndExits, type GroupLines } from '../model/lines';
import { buildRequest, type ReportForm } from '../model/request';
import { nowNumbers, PEAK_INTERVAL, peakOf, type LiveGroup } from '../model/tiles';
import { fromQuery, type ReportState, toQuery } from '../model/url-state';
import { toCsv } from '../model/csv';
import { nameOf } from '../model/names';
import { drawHeatmap } from './heatmap';
import { el, formatNumber, Panel } from './panel';
import { RefreshClock } from './refresh';
import { count, Tiles } from './tiles';
import { changeText, drawWeekTable, weekSummary } from './week';

const byId = (id: string) => document.getElementById(id) as HTMLElement;
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });

/** Why a panel has nothing: no access reads differently from a failure. */
function failed(panel: Panel, e: unknown): void {
  const status = e instanceof ProblemError ? e.problem.status : undefined;
  if (status === 401 || status === 403 || status === 404)
    panel.empty(`No access: ${e instanceof ProblemError ? e.problem.detail : ''}`);
  else
    panel.empty(
      `Could not be loaded: ${e instanceof ProblemError ? `${e.problem.title}: ${e.problem.detail}` : 'the service could not be reached.'}`,
    );
}

/** Narrower than this, the heat map turns: a row per hour, a column per weekday. */
const HEAT_MAP_TURNS_BELOW_PX = 640;

/**
 * The dashboard of one location (`?view=dashboard&location=…`): the headline tiles (people now and
 * the share of capacity, today so far against the same time last week, today's peak, entries today),
 * occupancy now and over today beside the same day last week, entries and exits per hour, this week
 * against last week, the busiest hours. Days and clock times are the location's, in its time zone,
 * named on the page. Everything of today is asked again when the live answer's max-age runs out
 * (RefreshClock); each report panel links to the builder with its report.
 */
export function startDashboard(api: ExplorerApi, locations: readonly Location[]): void {
  const select = byId('dash-location') as HTMLSelectElement;
  select.replaceChildren(
    ...locations.map((l) => el('option', { value: l.id, textContent: `${nameOf(l)} (${l.timezone})` })),
  );
  const tiles = new Tiles(byId('dash-tiles'));
  const panels = {
    live: new Panel(byId('dash-live'), 'occupancy-now'),
    occupancy: new Panel(byId('dash-occupancy'), 'occupancy-today'),
    entries: new Panel(byId('dash-entries'), 'entries-and-exits-today'),
    week: new Panel(byId('dash-week'), 'week-over-week'),
    busiest: new Panel(byId('dash-busiest'), 'busiest-hours'),
  };
  // A location chosen while the previous one's panels still load: their late answers are dropped.
  let generation = 0;
  class Stale extends Error {}
  const fresh =
    <T>(mine: number) =>
    (value: T): T => {
      if (mine !== generation) throw new Stale();
      return value;
    };
  const report = async (state: ReportState, mine: number) =>
    readAnswer(
      fresh<{ body: unknown }>(mine)(await api.report(buildRequest(state.form as ReportForm).request)).body,
      'zero',
    );
  const builder = (state: ReportState) => toQuery({ view: 'report', report: state });

  let location: Location | undefined;
  let detail: LocationDetail | undefined;
  let busiestDay: string | undefined;
  let lastWeekHistory: { readonly key: string; readonly answer: Promise<OccupancyHistory> } | undefined;

  /**
   * The areas with counting lines (`GET /locations/{id}`: which way each line counts as in); asked
   * again at a refresh while it could not be read. Undefined: not read.
   */
  async function countingGroups(): Promise<readonly GroupLines[] | undefined> {
    const id = location!.id;
    if (!detail) {
      const read = await api.location(id).catch(() => undefined);
      if (location?.id === id) detail = read;
    }
    return detail?.sensorGroups?.filter((g) => g.lines.length > 0);
  }

  async function live(w: DayWindows, mine: number): Promise<number | undefined> {
    const panel = panels.live;
    const { body, maxAgeSeconds } = await api.liveOccupancy(location!.id);
    fresh(mine)(body);
    const groups = (body.insights.occupancy ?? []) as readonly LiveGroup[];
    const now = nowNumbers(groups);
    const share =
      now.utilization === undefined
        ? ''
        : `${percent.format(now.utilization)} of capacity (${count(now.capacity!)}${now.partialCapacity ? ', areas with a capacity' : ''})`;
    if (groups.length === 0)
      tiles.unknown('now', 'No area is open with current data (closed, or no data yet).', '#dash-live');
    else
      tiles.show('now', {
        value: count(now.people),
        note: share || `${now.groups} ${now.groups === 1 ? 'area' : 'areas'} open; no capacity set`,
        href: '#dash-live',
      });
    panel.clear();
    if (groups.length === 0) panel.empty('No area is open with current data (closed, or no data yet).');
    else {
      const list = el('ul', { className: 'occupancy' });
      for (const g of groups) {
        const note = g.utilization === undefined ? '' : `${percent.format(g.utilization)} of ${count(g.capacity!)}`;
        list.append(
          el(
            'li',
            {},
            el('span', { className: 'name', textContent: g.sensorGroup.name }),
            el('span', { className: 'count', textContent: count(g.occupancy) }),
            el('span', { className: 'share', textContent: note }),
          ),
        );
      }
      panel.body.append(list);
      panel.done(`As of ${clockTimeIn(w.now, w.zone)}; the service counts every 5 minutes.`);
    }
    return maxAgeSeconds;
  }

  async function soFar(w: DayWindows, mine: number): Promise<SoFar> {
    const { body } = await api.report(soFarRequest(location!.id, w));
    const n = fresh<Record<string, number>>(mine)(body as Record<string, number>);
    const result: SoFar = {
      today: n.today ?? 0,
      todayLastWeek: n.todayLastWeek ?? 0,
      week: n.week ?? 0,
      lastWeek: n.lastWeek ?? 0,
    };
    const c = change(result.today, result.todayLastWeek);
    tiles.show('today', {
      value: count(result.today),
      note: `${changeText(c)} against last week up to the same time (${count(result.todayLastWeek)})`,
      href: builder(dashboardReports(location!.id, w.zone, w.today).today),
      ...(c.delta === 0 ? {} : { tone: c.delta > 0 ? 'up' : 'down' }),
    });
    return result;
  }

  async function occupancy(w: DayWindows, mine: number): Promise<void> {
    const panel = panels.occupancy;
    const day = (from: number, to: number) =>
      api.occupancyHistory(location!.id, from, to, PEAK_INTERVAL).then((r) => r.json() as Promise<OccupancyHistory>);
    // Last week's day is over: asked once per location and day, not at every refresh.
    const key = `${location!.id} ${w.lastWeekDayStart}`;
    if (lastWeekHistory?.key !== key) lastWeekHistory = { key, answer: day(w.lastWeekDayStart, w.lastWeekDayEnd) };
    lastWeekHistory.answer.catch(() => (lastWeekHistory = undefined));
    const [t, before] = fresh<OccupancyHistory[]>(mine)(
      await Promise.all([day(w.todayStart, w.todayEnd), lastWeekHistory.answer]),
    );
    const peak = peakOf(t as OccupancyHistory, w.now);
    if (peak)
      tiles.show('peak', {
        value: count(peak.people),
        note: `at ${clockTimeIn(peak.at, w.zone)}`,
        href: '#dash-occupancy',
      });
    else tiles.unknown('peak', 'No area was open today up to now.', '#dash-occupancy');
    const answer = occupancySeries(t as OccupancyHistory, before, w.now);
    if (answer.series.length === 0) return panel.empty('No data: this location has no sensor groups.');
    if (answer.series.every((s) => s.values.every((v) => v === null)))
      return panel.empty('Closed: no sensor group was open today up to now, nor on the same day last week.');
    panel.drawChart(
      answer,
      w.zone,
      `Occupancy per area today, every 5 minutes, beside the same day last week (dashed), in ${w.zone}`,
      { formatTime: clockTime },
    );
    panel.done(
      `People at each 5-minute mark up to ${clockTimeIn(w.now, w.zone)}; last week’s same day dashed. A gap is a closed area or a time after now.`,
    );
  }

  async function entries(w: DayWindows, mine: number): Promise<void> {
    const panel = panels.entries;
    const state = dashboardReports(location!.id, w.zone, w.today).entries;
    const range = { from: w.todayStart, to: w.todayEnd };
    const [crossings, counting] = await Promise.all([report(state, mine), countingGroups()]);
    const raw = withoutFuture(crossings, w.now).answer as TimeSeriesAnswer;
    const groups = counting ?? [];
    const answer = groups.length > 0 ? crossingsInOut(raw, groups) : crossingsByLine(raw);
    if (groups.length > 0) {
      const { entries: ins, exits } = entriesAndExits(raw, groups);
      tiles.show('entries', {
        value: count(ins),
        note: `${count(exits)} exits, over the counting lines of ${groups.length} ${groups.length === 1 ? 'area' : 'areas'}`,
        href: builder(state),
      });
    } else
      tiles.unknown(
        'entries',
        counting
          ? 'No area of this location has a counting line (the admin screen sets them).'
          : 'Which way is in could not be read for this location’s lines; the crossings are below.',
        builder(state),
      );
    const why = emptyReason(answer, range, w.now);
    if (why) panel.empty(why);
    else {
      panel.drawChart(
        answer,
        w.zone,
        `Line crossings per hour today, ${groups.length > 0 ? 'in and out per area' : 'by camera, line and direction'} (${w.zone})`,
        { formatTime: clockTime },
      );
      const total = raw.series.reduce((sum, s) => sum + s.values.reduce<number>((a, v) => a + (v ?? 0), 0), 0);
      panel.done(
        `${formatNumber(total)} crossings today up to ${clockTimeIn(w.now, w.zone)}. Hours after now are left empty.`,
      );
    }
    panel.openInBuilder(state);
  }

  async function week(w: DayWindows, so: Promise<SoFar>, mine: number): Promise<void> {
    const panel = panels.week;
    const state = dashboardReports(location!.id, w.zone, w.today).thisWeek;
    const [both, sameTime] = await Promise.all([report(state, mine) as Promise<TimeSeriesAnswer>, so]);
    // One report with `compare: 1w`: its days, then the week before's, paired by rank.
    const current: TimeSeriesAnswer = { ...both, series: both.series.filter((s) => !s.earlier) };
    const before: TimeSeriesAnswer = { ...both, series: both.series.filter((s) => s.earlier) };
    const daysSoFar = Math.round((w.todayStart - w.weekStart) / 86_400_000) + 1;
    const comparison = compareWeeks(current, before, daysSoFar, sameTime, w.now);
    panel.drawChart(
      withoutFuture(weeksAsSeries(current, comparison), w.now).answer,
      w.zone,
      'Movement events per day, this week and last week (dashed)',
      { table: false },
    );
    panel.appendTable((table) => drawWeekTable(table, comparison, w.zone), 'This week against last week', true);
    panel.done(weekSummary(comparison));
    panel.openInBuilder(state);
  }

  async function busiest(w: DayWindows, mine: number): Promise<void> {
    const panel = panels.busiest;
    const state = dashboardReports(location!.id, w.zone, w.today).busiest;
    const answer = (await report(state, mine)) as NamedNumbersAnswer;
    const grid = heatGrid(answer);
    const { firstDay, lastDay, timeZone } = state.form;
    panel.clear();
    if (grid.flat().every((n) => n === 0)) panel.empty('No data: nothing was recorded in the four weeks before today.');
    else {
      const caption = `Movement events by day of week and hour, ${firstDay} to ${lastDay} (${timeZone}), four of each weekday.`;
      const table = panel.appendTable(
        (t) => drawHeatmap(t, grid, caption, panel.section.clientWidth < HEAT_MAP_TURNS_BELOW_PX),
        'Busiest hours',
        true,
      );
      turnWithWidth(panel.section, (narrow) => drawHeatmap(table, grid, caption, narrow));
      panel.csv(toCsv([['day', ...HOURS], ...grid.map((row, d) => [WEEKDAYS[d] as string, ...row])]));
      panel.done(`Darker is busier; the busiest hour is ${busiestHour(grid)}.`);
    }
    panel.openInBuilder(state);
    busiestDay = w.today;
  }

  /** Everything of today, again; the busiest hours only on a new day. Resolves to the live answer's max-age. */
  async function refresh(first: boolean): Promise<number | undefined> {
    if (!location) return undefined;
    const mine = generation;
    const w = dayWindows(location.timezone, Date.now());
    showWhen(w);
    if (first) {
      tiles.loading();
      for (const p of Object.values(panels)) p.loading();
    }
    const settle = (panel: Panel, tile?: Parameters<Tiles['unknown']>[0]) => (e: unknown) => {
      if (e instanceof Stale || mine !== generation) return;
      failed(panel, e);
      if (tile) tiles.unknown(tile, 'Could not be loaded.');
    };
    const so = soFar(w, mine);
    so.catch(() => tiles.unknown('today', 'Could not be loaded.'));
    const done = [
      occupancy(w, mine).catch(settle(panels.occupancy, 'peak')),
      entries(w, mine).catch(settle(panels.entries, 'entries')),
      week(w, so, mine).catch(settle(panels.week)),
      ...(first || busiestDay !== w.today ? [busiest(w, mine).catch(settle(panels.busiest))] : []),
    ];
    const maxAge = await live(w, mine).catch((e) => void settle(panels.live, 'now')(e));
    await Promise.all(done);
    // The instant every number of the page counts up to, in a <time> (the browser tests ask the API for the same).
    if (mine === generation)
      byId('dash-updated').replaceChildren(
        'Updated ',
        el('time', { dateTime: new Date(w.now).toISOString(), textContent: clockTimeIn(w.now, w.zone) }),
      );
    return maxAge;
  }

  const clock = new RefreshClock((first) => refresh(first));

  function showWhen(w: DayWindows): void {
    byId('dash-title').textContent = nameOf(detail ?? location!);
    byId('dash-when').textContent = `${longDate(w.now, w.zone)} · times in ${w.zone}`;
  }

  async function load(locationId: string): Promise<void> {
    location = locations.find((l) => l.id === locationId) ?? locations[0];
    if (!location) {
      byId('dash-title').textContent = 'No locations';
      return;
    }
    clock.stop();
    const mine = ++generation;
    select.value = location.id;
    busiestDay = undefined;
    detail = undefined;
    detail = await api.location(location.id).catch(() => undefined);
    if (mine === generation) clock.start();
  }

  select.addEventListener('change', () => {
    history.pushState(null, '', toQuery({ view: 'dashboard', location: select.value }));
    void load(select.value);
  });
  window.addEventListener('popstate', () => {
    const state = fromQuery(window.location.search);
    if (state.view === 'dashboard') void load(state.location ?? '');
  });
  const first = fromQuery(window.location.search);
  void load(first.view === 'dashboard' ? (first.location ?? '') : '');
}

const turning = new WeakMap<HTMLElement, ResizeObserver>();

/** Calls `draw(narrow)` whenever the element's width crosses the heat map's turning point (one watcher per element). */
function turnWithWidth(element: HTMLElement, draw: (narrow: boolean) => void): void {
  turning.get(element)?.disconnect();
  let narrow = element.clientWidth < HEAT_MAP_TURNS_BELOW_PX;
  const observer = new ResizeObserver(() => {
    const now = element.clientWidth < HEAT_MAP_TURNS_BELOW_PX;
    if (now !== narrow) draw((narrow = now));
  });
  observer.observe(element);
  turning.set(element, observer);
}

function busiestHour(grid: readonly (readonly number[])[]): string {
  let best = [0, 0];
  grid.forEach((row, d) => row.forEach((n, h) => (n > (grid[best[0]!]![best[1]!] ?? 0) ? (best = [d, h]) : undefined)));
  return `${WEEKDAYS[best[0]!]} ${HOURS[best[1]!]}`;
}
