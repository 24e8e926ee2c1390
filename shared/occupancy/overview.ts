import { listVisibleLocations } from '../locations/read';
import { runPool } from '../concurrency';
import type { Deadline } from '../report/deadline';
import type { AggResult, ReportEngine, Scope } from '../stores/store';
import { planFromRequest } from '../report/plan/plan-builder';
import type { AggregationInput } from '../report/schema/aggregations';
import type { ReportRequest } from '../report/schema/request';
import { byId, type Location } from '../locations/model';
import type { LocationStore } from '../locations/store';
import { addDays, localDateOf, localMsOf, localToInstant, sameTimeDaysBefore } from '../time/local-time';
import { utilization } from '../locations/capacity';
import { currentOccupancy, maxAgeSeconds, type OccupancyItem } from './live-insights';

/**
 * Every site at a glance (`GET /insights/overview`): for each location the caller may see, people
 * now (the live value of its open groups together) and how full it is (their capacities), and movement events today up
 * to now beside the same day a week before up to the same wall-clock time, hour by hour. One answer for all of them, so
 * a page of 500 sites makes one request, not a thousand.
 *
 * The counts come from ordinary report plans on the report engine (the same tenancy scope, compiler
 * and rollups as `POST /reports:query`): the locations are grouped by the days their zones give
 * (every zone with the same midnights and offsets today and a week ago shares one group), and each
 * group is counted in three plans per 100 locations: today's hours up to now, the hours of the same
 * day a week before, and that day's count up to the same time. A location's numbers are therefore
 * exactly those of a report over its own day in its own zone.
 */

export interface OverviewOccupancy {
  /** People in its open groups with current data, together (the live endpoint's entries summed). */
  readonly people: number;
  /** How many groups that is; 0 when every group is closed or without current data. */
  readonly groups: number;
  /** The capacities of those groups that have one, added up; absent when none of them has one. */
  readonly capacity?: number;
  /**
   * People in the groups with a capacity ÷ `capacity`, rounded half up to 3 decimals (as a group's);
   * with `capacity`. People in counted groups without a capacity are in `people` but not here.
   */
  readonly utilization?: number;
  /**
   * Each counted group as the live endpoint answers it (with its own capacity and utilization when it has one), by id.
   */
  readonly sensorGroups: readonly OccupancyItem[];
}

/**
 * A location's occupancy now from its groups' live entries: people in every counted group; capacity
 * and utilization over the groups that have a capacity (people over capacity together, so a large hall
 * weighs more than a small room). A group without a capacity is left out of both rather than
 * guessed; a client that wants to say the share is partial compares `sensorGroups` with and without
 * `capacity`. A closed group counts neither people nor capacity: "how full" is of what is open.
 */
export function occupancyOf(entries: readonly OccupancyItem[]): OverviewOccupancy {
  const people = entries.reduce((sum, e) => sum + e.occupancy, 0);
  const withCapacity = entries.filter((e) => e.capacity !== undefined);
  const base = { people, groups: entries.length };
  if (withCapacity.length === 0) return { ...base, sensorGroups: entries };
  const capacity = withCapacity.reduce((sum, e) => sum + (e.capacity as number), 0);
  const counted = withCapacity.reduce((sum, e) => sum + e.occupancy, 0);
  return { ...base, capacity, utilization: utilization(counted, capacity), sensorGroups: entries };
}

export interface OverviewDay {
  /** The local day's start (ISO 8601 UTC). */
  readonly from: string;
  /** Where the count stops: now for today, the same wall-clock time a week before for the other. */
  readonly to: string;
  /** Movement events in [from, to). */
  readonly count: number;
  /** Movement events per local hour from `from`: today up to now (the last hour so far), the other day whole. */
  readonly hourly: readonly number[];
}

export interface OverviewLocation {
  readonly id: string;
  readonly timezone: string;
  readonly occupancy: OverviewOccupancy;
  readonly today: OverviewDay;
  /** The same weekday a week before, counted up to the same wall-clock time; `hourly` is the whole day. */
  readonly lastWeek: OverviewDay;
}

export interface SitesOverview {
  /** The instant "now" of every count (ISO 8601 UTC). */
  readonly at: string;
  readonly locations: readonly OverviewLocation[];
}

export interface OverviewDeps {
  readonly store: Pick<LocationStore, 'listLocations' | 'getLiveView'>;
  readonly engine: ReportEngine;
}

/**
 * Locations per plan: a `filters` stage names each, and takes at most 100 buckets. A day has at most
 * 25 hours, so a plan holds at most 25 × 100 buckets, far under the engine's limit.
 */
export const LOCATIONS_PER_PLAN = 100;
/** Plans and store reads in flight at once. */
const CONCURRENCY = 4;
const LIVE_CONCURRENCY = 16;

/** The days of one location: today up to now, and the same day a week before. */
interface Days {
  readonly todayStart: number;
  readonly todayEnd: number;
  readonly lastWeekStart: number;
  readonly lastWeekEnd: number;
  readonly lastWeekUntil: number;
}

export function daysOf(zone: string, now: number): Days {
  const today = localDateOf(now, zone);
  const start = (days: number) => localToInstant(localMsOf(addDays(today, days)), zone);
  return {
    todayStart: start(0),
    todayEnd: start(1),
    lastWeekStart: start(-7),
    lastWeekEnd: start(-6),
    lastWeekUntil: sameTimeDaysBefore(now, zone, 7),
  };
}

/** The organization's locations (by id) with their live values and today's and last week's counts at `now`. */
export async function sitesOverview(
  deps: OverviewDeps,
  scope: Scope,
  now: number,
  options: { readonly deadline?: Deadline } = {},
): Promise<{ readonly body: SitesOverview; readonly maxAgeSeconds: number }> {
  // The locations the scope may see: its grant's, when it has one (docs/access.md).
  const locations = [...(await listVisibleLocations(deps.store, scope))].sort(byId);
  const [occupancy, counts] = await Promise.all([
    liveOf(deps.store, scope, locations, now),
    countsOf(deps.engine, scope, locations, now, options.deadline),
  ]);
  const body: SitesOverview = {
    at: new Date(now).toISOString(),
    locations: locations.map((l, i) => ({
      id: l.id,
      timezone: l.timezone,
      occupancy: occupancy[i] as OverviewOccupancy,
      ...(counts.get(l.id) as Pick<OverviewLocation, 'today' | 'lastWeek'>),
    })),
  };
  return { body, maxAgeSeconds: maxAgeSeconds(now) };
}

async function liveOf(
  store: OverviewDeps['store'],
  scope: Scope,
  locations: readonly Location[],
  now: number,
): Promise<OverviewOccupancy[]> {
  return runPool(locations, LIVE_CONCURRENCY, async (l) => {
    const view = await store.getLiveView(scope.organizationId, l.id);
    return occupancyOf(view ? currentOccupancy(view, now) : []);
  });
}

/** One group of locations whose zones give the same days, counted together. */
interface Batch {
  readonly zone: string;
  readonly days: Days;
  readonly ids: readonly string[];
}

function batchesOf(locations: readonly Location[], now: number): Batch[] {
  const groups = new Map<string, { zone: string; days: Days; ids: string[] }>();
  for (const l of locations) {
    const days = daysOf(l.timezone, now);
    const key = JSON.stringify(days);
    const group = groups.get(key) ?? { zone: l.timezone, days, ids: [] };
    group.ids.push(l.id);
    groups.set(key, group);
  }
  return [...groups.values()].flatMap((g) =>
    chunks(g.ids, LOCATIONS_PER_PLAN).map((ids) => ({ zone: g.zone, days: g.days, ids })),
  );
}

async function countsOf(
  engine: ReportEngine,
  scope: Scope,
  locations: readonly Location[],
  now: number,
  deadline?: Deadline,
): Promise<Map<string, Pick<OverviewLocation, 'today' | 'lastWeek'>>> {
  const counts = new Map<string, Pick<OverviewLocation, 'today' | 'lastWeek'>>();
  const run = (request: (grouping: Grouping) => ReportRequest) => byLocations(engine, scope, request, deadline);
  await runPool(batchesOf(locations, now), CONCURRENCY, async ({ zone, days, ids }) => {
    // Three plans, each of a shape the rollups answer (a range's ragged ends read from the documents):
    // today's hours so far; last week's whole day by the hour (the same plan all day, so a report
    // cache keeps it); last week's count up to the same time, without hours.
    const today = await run((g) => eventsRequest(ids, days.todayStart, Math.max(days.todayStart, now), g, zone));
    const before = await run((g) => eventsRequest(ids, days.lastWeekStart, days.lastWeekEnd, g, zone));
    const sofar = await run((g) => eventsRequest(ids, days.lastWeekStart, days.lastWeekUntil, g));
    const iso = (t: number) => new Date(t).toISOString();
    ids.forEach((id, k) => {
      const mine = hourlyOf(today, id, k);
      counts.set(id, {
        today: { from: iso(days.todayStart), to: iso(now), count: sum(mine), hourly: mine },
        lastWeek: {
          from: iso(days.lastWeekStart),
          to: iso(days.lastWeekUntil),
          count: countOf(sofar, id, k),
          hourly: hourlyOf(before, id, k),
        },
      });
    });
  });
  return counts;
}

/**
 * How a plan splits its locations: `terms locationId` (one grouping, what the engines do fastest),
 * or, when the engine's terms cap cut that (a cap below the plan's locations), one `filters` bucket
 * per location in order (`l0`, `l1`, …), which nothing cuts.
 */
export type Grouping = 'terms' | 'filters';

async function byLocations(
  engine: ReportEngine,
  scope: Scope,
  request: (grouping: Grouping) => ReportRequest,
  deadline?: Deadline,
): Promise<{ root: AggResult; grouping: Grouping }> {
  const options = deadline ? { deadline } : {};
  const terms = await engine.run(planFromRequest(request('terms')), scope, options);
  if (!terms.truncated) return { root: terms.root, grouping: 'terms' };
  return { root: (await engine.run(planFromRequest(request('filters')), scope, options)).root, grouping: 'filters' };
}

const range = (a: number, b: number) => ({
  type: 'range' as const,
  field: 'timestamp',
  from: new Date(a).toISOString(),
  to: new Date(b).toISOString(),
});

const locationStage = (ids: readonly string[], grouping: Grouping): AggregationInput =>
  grouping === 'terms'
    ? { type: 'terms', field: 'locationId' }
    : {
        type: 'filters',
        filters: Object.fromEntries(
          ids.map((id, k) => [`l${k}`, { type: 'terms', field: 'locationId', values: [id] }]),
        ),
      };

/** Movement events in [from, to) for each of `ids`; per local hour of `zone` when one is given. */
function eventsRequest(
  ids: readonly string[],
  from: number,
  to: number,
  grouping: Grouping,
  zone?: string,
): ReportRequest {
  const byLocation = locationStage(ids, grouping);
  return {
    source: 'movementEvents',
    locationIds: [...ids],
    filters: [range(from, to)],
    aggregations:
      zone === undefined ? [byLocation] : [{ type: 'dateHistogram', interval: '1h', timeZone: zone }, byLocation],
  };
}

/** A terms stage's counts by key, made once per stage. */
const termsCounts = new WeakMap<AggResult, ReadonlyMap<string, number>>();

/** The count of location `id` (the k-th of the plan) in a location stage's result; 0 when it has none. */
function countIn(stage: AggResult | undefined, grouping: Grouping, id: string, k: number): number {
  if (stage === undefined || (stage.kind !== 'terms' && stage.kind !== 'filters') || stage.kind !== grouping) return 0;
  if (grouping === 'filters') return stage.buckets[k]?.count ?? 0;
  let byKey = termsCounts.get(stage);
  if (!byKey) termsCounts.set(stage, (byKey = new Map(stage.buckets.map((b) => [b.key, b.count]))));
  return byKey.get(id) ?? 0;
}

/** Location `id`'s hourly counts from a histogram → location stage result. */
function hourlyOf(result: { root: AggResult; grouping: Grouping }, id: string, k: number): number[] {
  if (result.root.kind !== 'histogram') throw new Error(`unexpected ${result.root.kind} result at the hour stage`);
  return result.root.buckets.map((hour) => countIn(hour.sub, result.grouping, id, k));
}

/** Location `id`'s count from a location stage result. */
function countOf(result: { root: AggResult; grouping: Grouping }, id: string, k: number): number {
  if (result.root.kind !== result.grouping)
    throw new Error(`unexpected ${result.root.kind} result at the location stage`);
  return countIn(result.root, result.grouping, id, k);
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
