import type { ReportEngine } from '../stores/store';
import type { LocationStore, RefreshUnit } from '../locations/store';
import { countCrossings, occupancyOf } from './crossings';
import type { OccupancyEntry } from '../locations/occupancy-entry';
import { currentOpenPeriod, type OpenPeriod } from './opening-hours';
import { runPool } from '../concurrency';
import { type AlertEvaluationDeps, evaluateAlerts, type RefreshedLocation } from '../alerts/evaluate';

/** The few logger methods the refresh uses (Powertools' Logger has them). */
export interface RefreshLogger {
  info(message: string, extra: Record<string, unknown>): void;
  error(message: string, extra: Record<string, unknown>): void;
}

export interface RefreshDeps {
  readonly store: Pick<LocationStore, 'listForRefresh' | 'putOccupancy' | 'deleteOccupancy'> &
    Partial<Pick<LocationStore, 'getLiveView'>>;
  readonly engine: ReportEngine;
  readonly logger?: RefreshLogger;
  /** Locations refreshed at the same time. @default 8 */
  readonly concurrency?: number;
  /** The alert rules evaluated after the refresh (docs/alerts.md), their state and where events go; absent: none. */
  readonly alerts?: Omit<AlertEvaluationDeps, 'engine' | 'logger'>;
}

export interface RefreshFailure {
  readonly organizationId: string;
  readonly locationId: string;
  readonly message: string;
}

/** What one run did; failures are counted here and logged, never thrown. */
export interface RefreshSummary {
  readonly refreshedAt: string;
  readonly locations: number;
  readonly refreshedLocations: number;
  readonly failedLocations: number;
  readonly entriesWritten: number;
  readonly entriesDeleted: number;
  readonly failures: readonly RefreshFailure[];
  /** Alert events handed to the sink by this run. */
  readonly alertEvents: number;
}

/**
 * One refresh of the occupancy cache at instant `now` (epoch ms): for every location and every
 * sensor group open at `now`, occupancy = max(0, ins − outs) since the start of its open period,
 * counted by the report engine; groups that are closed (or gone) lose their entry. Idempotent: the
 * same `now` writes the same entries. A failing location is logged and counted and the others go on.
 */
export async function refreshOccupancy(
  deps: RefreshDeps,
  now: number,
  only?: readonly LocationKey[],
): Promise<RefreshSummary> {
  const units = only ? await unitsOf(deps.store, only) : await deps.store.listForRefresh();
  const failures: RefreshFailure[] = [];
  let written = 0;
  let deleted = 0;
  const refreshed: RefreshedLocation[] = [];
  // Every failure is caught per location, so the pool never stops early.
  await runPool(units, deps.concurrency ?? 8, async (unit) => {
    try {
      const result = await refreshLocation(deps, unit, now);
      written += result.written;
      deleted += result.deleted;
      refreshed.push({ view: unit, entries: result.entries });
    } catch (e) {
      const failure = {
        organizationId: unit.location.organizationId,
        locationId: unit.location.id,
        message: (e as Error).message,
      };
      failures.push(failure);
      deps.logger?.error('occupancy refresh of a location failed', { ...failure, error: e as Error });
    }
  });
  // Then the alerts of the locations refreshed, from the numbers just written; a failure is logged, the refresh stands.
  let alertEvents = 0;
  if (deps.alerts) {
    try {
      const alerts = await evaluateAlerts({ ...deps.alerts, engine: deps.engine, logger: deps.logger }, refreshed, now);
      alertEvents = alerts.published;
    } catch (e) {
      deps.logger?.error('alert evaluation failed', { error: e as Error });
    }
  }
  return {
    refreshedAt: new Date(now).toISOString(),
    locations: units.length,
    refreshedLocations: units.length - failures.length,
    failedLocations: failures.length,
    entriesWritten: written,
    entriesDeleted: deleted,
    failures,
    alertEvents,
  };
}

/** A location of an organization. */
export interface LocationKey {
  readonly organizationId: string;
  readonly locationId: string;
}

/**
 * The refresh units of some locations only (a location just written: its occupancy refreshed at
 * once rather than at the next period), read one by one; a location that does not exist (deleted
 * meanwhile) has none.
 */
async function unitsOf(store: RefreshDeps['store'], keys: readonly LocationKey[]): Promise<RefreshUnit[]> {
  if (!store.getLiveView) throw new Error('refreshing some locations only needs the store’s getLiveView');
  const views = await Promise.all(keys.map((k) => store.getLiveView!(k.organizationId, k.locationId)));
  return views.flatMap((v) =>
    v
      ? [
          {
            location: v.location,
            sensorGroups: v.sensorGroups,
            cachedGroupIds: v.occupancy.map((e) => e.sensorGroupId).sort((a, b) => a - b),
          },
        ]
      : [],
  );
}

/** Counts first, then writes: a location whose counting fails keeps its previous entries untouched. */
export async function refreshLocation(
  deps: Pick<RefreshDeps, 'store' | 'engine'>,
  unit: RefreshUnit,
  now: number,
): Promise<{ written: number; deleted: number; entries: OccupancyEntry[] }> {
  const { location, sensorGroups, cachedGroupIds } = unit;
  const open = sensorGroups.flatMap((group) => {
    const period = currentOpenPeriod(group.openingHours, location.timezone, now);
    return period ? [{ group, period }] : [];
  });
  const scope = { organizationId: location.organizationId };
  const entries: OccupancyEntry[] = [];
  for (const [start, groups] of groupByStart(open)) {
    const counts = await countCrossings(
      deps.engine,
      scope,
      location.id,
      groups.flatMap((g) => g.group.lines),
      start,
      now,
    );
    for (const { group } of groups) {
      entries.push({
        organizationId: location.organizationId,
        locationId: location.id,
        sensorGroupId: group.id,
        name: group.name,
        occupancy: occupancyOf(group.lines, counts),
        openedAt: new Date(start).toISOString(),
        refreshedAt: new Date(now).toISOString(),
      });
    }
  }
  let written = 0;
  for (const entry of entries) if (await deps.store.putOccupancy(entry)) written++;
  const openIds = new Set(open.map((o) => o.group.id));
  const stale = cachedGroupIds.filter((id) => !openIds.has(id));
  for (const id of stale)
    await deps.store.deleteOccupancy(location.organizationId, location.id, id, new Date(now).toISOString());
  return { written, deleted: stale.length, entries };
}

/** Groups sharing an opening instant are counted by one report. */
function groupByStart<T extends { period: OpenPeriod }>(items: readonly T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const item of items) map.set(item.period.start, [...(map.get(item.period.start) ?? []), item]);
  return map;
}
