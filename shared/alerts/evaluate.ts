import { capacityAt } from '../locations/capacity';
import type { LocationWithGroups } from '../locations/model';
import type { OccupancyEntry } from '../locations/occupancy-entry';
import { type SensorHealth, sensorHealth } from '../sensor-health/health';
import type { ReportEngine } from '../stores/store';
import { type AlertEvent, type AlertEventType, type AlertSink, transitionId } from './events';
import { latestLotStats, type LotStats } from './lot-stats';
import type { AlertRule } from './rules';
import type { AlertState, AlertStore } from './store';

/**
 * The alert evaluator (docs/alerts.md), run after every occupancy refresh with the locations it
 * refreshed and the entries it wrote: for each rule of those locations, whether its condition starts
 * (not active, reaches the level), ends (active, below the clear level) or neither. A change is
 * committed first, with its event pending, by a write conditional on the state's revision: of two
 * evaluators only one commits it, and a restart finds it. The events are then handed to the sink and
 * cleared; a sink that fails leaves them pending, handed on (with the same ids) at the next run.
 */

/** What the refresh knows of one location at `now`. */
export interface RefreshedLocation {
  readonly view: LocationWithGroups;
  /** The entries the refresh wrote (the open groups' occupancy now). */
  readonly entries: readonly OccupancyEntry[];
}

export interface AlertEvaluationDeps {
  readonly store: Pick<AlertStore, 'listRules' | 'listStates' | 'putState'>;
  readonly sink: AlertSink;
  /** Sensor health and lot stats are read through it, only where a rule asks. */
  readonly engine: ReportEngine;
  readonly logger?: { error(message: string, extra: Record<string, unknown>): void };
}

export interface AlertEvaluationSummary {
  readonly rules: number;
  readonly published: number;
  /** Changes another evaluator committed first (nothing published by this one). */
  readonly lostRaces: number;
}

/** A rule's measurement: whether it reaches its level, whether it stays above its clear level, and what was seen. */
interface Measure {
  readonly reaches: boolean;
  readonly holds: boolean;
  readonly data: Omit<AlertEvent['data'], 'state' | 'ruleId' | 'locationId' | 'threshold'>;
  readonly threshold: number | undefined;
  readonly clear: number | undefined;
}

const TYPES: Record<AlertRule['spec']['kind'], AlertEventType> = {
  'occupancy-above': 'occupancy.above',
  'parking-full': 'parking.full',
  'sensor-silent': 'sensor.silent',
};

export async function evaluateAlerts(
  deps: AlertEvaluationDeps,
  locations: readonly RefreshedLocation[],
  now: number,
): Promise<AlertEvaluationSummary> {
  const byOrg = new Map<string, Map<string, RefreshedLocation>>();
  for (const l of locations) {
    const org = l.view.location.organizationId;
    byOrg.set(org, (byOrg.get(org) ?? new Map()).set(l.view.location.id, l));
  }
  let rules = 0;
  let published = 0;
  let lostRaces = 0;
  for (const [org, refreshed] of byOrg) {
    const [all, states] = await Promise.all([deps.store.listRules(org), deps.store.listStates(org)]);
    const reads = new Readings(deps.engine, now);
    for (const rule of all) {
      const at = refreshed.get(rule.spec.locationId);
      if (!at) continue;
      rules++;
      try {
        const state = states.get(rule.id) ?? { ruleId: rule.id, active: false, pending: [], revision: 0 };
        const outcome = await evaluateRule(deps, rule, state, await measure(rule, at, reads), now);
        published += outcome.published;
        if (outcome.lost) lostRaces++;
      } catch (e) {
        deps.logger?.error('alert rule evaluation failed', { organizationId: org, ruleId: rule.id, error: e as Error });
      }
    }
  }
  return { rules, published, lostRaces };
}

/** One rule: commit its change (if any) with the event pending, then publish whatever is pending and clear it. */
async function evaluateRule(
  deps: AlertEvaluationDeps,
  rule: AlertRule,
  state: AlertState,
  m: Measure,
  now: number,
): Promise<{ published: number; lost: boolean }> {
  const org = rule.organizationId;
  const iso = new Date(now).toISOString();
  let current = state;
  const change = !state.active && m.reaches ? 'started' : state.active && !m.holds ? 'ended' : undefined;
  if (change) {
    const startedAt = change === 'started' ? iso : (state.startedAt ?? iso);
    const event: AlertEvent = {
      type: TYPES[rule.spec.kind],
      id: transitionId(rule.id, startedAt, change),
      organizationId: org,
      occurredAt: iso,
      data: {
        state: change,
        ruleId: rule.id,
        locationId: rule.spec.locationId,
        ...m.data,
        ...((change === 'started' ? m.threshold : m.clear) !== undefined
          ? { threshold: (change === 'started' ? m.threshold : m.clear) as number }
          : {}),
      },
    };
    const next: AlertState = {
      ruleId: rule.id,
      active: change === 'started',
      startedAt,
      pending: [...state.pending, event],
      revision: state.revision + 1,
    };
    if (!(await deps.store.putState(org, next))) return { published: 0, lost: true };
    current = next;
  }
  if (current.pending.length === 0) return { published: 0, lost: false };
  await deps.sink.publish(current.pending);
  // Cleared only if no one changed it since: else the other writer's pending events stay theirs to hand on.
  await deps.store.putState(org, { ...current, pending: [], revision: current.revision + 1 });
  return { published: current.pending.length, lost: false };
}

/** The readings a run needs, each read once per location and only when a rule asks. */
class Readings {
  private readonly health = new Map<string, Promise<SensorHealth>>();
  private readonly lots = new Map<string, Promise<Map<string, LotStats>>>();
  constructor(
    private readonly engine: ReportEngine,
    private readonly now: number,
  ) {}
  healthOf(view: LocationWithGroups): Promise<SensorHealth> {
    const key = view.location.id;
    if (!this.health.has(key)) this.health.set(key, sensorHealth(this.engine, view, this.now));
    return this.health.get(key)!;
  }
  lotsOf(view: LocationWithGroups): Promise<Map<string, LotStats>> {
    const key = view.location.id;
    if (!this.lots.has(key)) this.lots.set(key, latestLotStats(this.engine, view.location, this.now));
    return this.lots.get(key)!;
  }
}

const percentOf = (value: number, capacity: number) => Math.round((value * 1000) / capacity) / 10;

async function measure(rule: AlertRule, at: RefreshedLocation, reads: Readings): Promise<Measure> {
  const spec = rule.spec;
  const none = { reaches: false, holds: false, threshold: undefined, clear: undefined };
  if (spec.kind === 'occupancy-above') {
    const entry = at.entries.find((e) => e.sensorGroupId === spec.sensorGroupId);
    const group = at.view.sensorGroups.find((g) => g.id === spec.sensorGroupId);
    // A closed (or deleted) group has no live occupancy: the condition does not hold.
    if (!entry || !group) return { ...none, data: { sensorGroupId: spec.sensorGroupId } };
    const value = entry.occupancy;
    const capacity = capacityAt(group, Date.parse(entry.refreshedAt));
    const data = {
      sensorGroupId: spec.sensorGroupId,
      value,
      ...(capacity ? { capacity, percent: percentOf(value, capacity) } : {}),
    };
    if (spec.count !== undefined) {
      return {
        reaches: value >= spec.count,
        holds: value >= (spec.clearCount ?? spec.count),
        data,
        threshold: spec.count,
        clear: spec.clearCount,
      };
    }
    // A percent of no capacity: never reached (docs/alerts.md).
    if (!capacity) return { ...none, data };
    const pct = spec.percent ?? 100;
    const clear = spec.clearPercent ?? pct;
    return {
      reaches: value * 100 >= pct * capacity,
      holds: value * 100 >= clear * capacity,
      data,
      threshold: pct,
      clear,
    };
  }
  if (spec.kind === 'parking-full') {
    const stats = (await reads.lotsOf(at.view)).get(spec.parkingLotId);
    if (!stats || stats.total <= 0) return { ...none, data: { parkingLotId: spec.parkingLotId } };
    const data = {
      parkingLotId: spec.parkingLotId,
      value: stats.occupied,
      capacity: stats.total,
      percent: percentOf(stats.occupied, stats.total),
    };
    return {
      reaches: stats.occupied * 100 >= spec.percent * stats.total,
      holds: stats.occupied * 100 >= spec.clearPercent * stats.total,
      data,
      threshold: spec.percent,
      clear: spec.clearPercent,
    };
  }
  const health = await reads.healthOf(at.view);
  const status = spec.cameraId
    ? health.cameras.find((c) => c.trackingCameraId === spec.cameraId)?.status
    : health.parkingLots.find((l) => l.parkingLotId === spec.parkingLotId)?.status;
  const silent = status === 'silent';
  const data = spec.cameraId ? { cameraId: spec.cameraId } : { parkingLotId: spec.parkingLotId as string };
  return { reaches: silent, holds: silent, data, threshold: undefined, clear: undefined };
}
