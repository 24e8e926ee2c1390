import { type AccessScope, requireGranted } from '../access/scope';
import { NotFoundError, ValidationError } from '../errors';
import { utilization } from '../locations/capacity';
import { byId, LOCATION_ID } from '../locations/model';
import type { LiveView, LocationStore } from '../locations/store';
import { MAX_ENTRY_AGE_MS, REFRESH_PERIOD_MS } from '../locations/occupancy-entry';
import { currentOpenPeriod } from './opening-hours';
import type { ReportEngine } from '../stores/store';
import { type SensorHealth, sensorHealth } from '../sensor-health/health';

/** The insight kinds `filter` may name (the spec's occupancy; health: docs/sensor-health.md). */
export const INSIGHT_KINDS = ['occupancy', 'health'] as const;
export type InsightKind = (typeof INSIGHT_KINDS)[number];

/** Where the refresh is expected to have written, after each scheduled start (cron 0/5). */
export const REFRESH_SETTLE_MS = 60_000;

/** JSON Pointer of the query parameter in problem+json errors (as `parseOrThrow(..., '/query')` makes). */
export const FILTER_POINTER = '/query/filter';

export interface OccupancyItem {
  readonly sensorGroup: { readonly id: number; readonly name: string };
  readonly occupancy: number;
  /** The group's capacity now, when it has one. */
  readonly capacity?: number;
  /** occupancy ÷ capacity, rounded half up to 3 decimals (shared/locations/capacity.ts), with `capacity`. */
  readonly utilization?: number;
}

export interface LiveInsights {
  readonly insights: { readonly occupancy?: readonly OccupancyItem[]; readonly health?: SensorHealth };
}

/**
 * `filter` → the kinds asked for (of `kinds`: the live ones by default; the history has occupancy only):
 * comma-separated, whitespace around names and repeated names tolerated; missing, empty or naming an unknown kind is a
 * 400 naming the query parameter.
 */
export function parseInsightKinds<K extends string = InsightKind>(
  filter: string | undefined,
  kinds: readonly K[] = INSIGHT_KINDS as unknown as readonly K[],
): K[] {
  const allowed = `allowed: ${kinds.join(', ')}`;
  if (filter === undefined)
    throw new ValidationError([
      { path: FILTER_POINTER, message: `is required (comma-separated insight kinds; ${allowed})` },
    ]);
  const names = [
    ...new Set(
      filter
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n.length > 0),
    ),
  ];
  if (names.length === 0)
    throw new ValidationError([{ path: FILTER_POINTER, message: `must name at least one insight kind; ${allowed}` }]);
  const unknown = names.filter((n) => !(kinds as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new ValidationError(
      unknown.map((n) => ({ path: FILTER_POINTER, message: `unknown insight kind '${n.slice(0, 64)}'; ${allowed}` })),
    );
  }
  return names as K[];
}

export interface LiveOptions {
  /** How often the refresh runs. @default REFRESH_PERIOD_MS (5 minutes, the spec's) */
  readonly refreshPeriodMs?: number;
  /** The report engine, asked only for `health` (occupancy is answered from the cache alone). */
  readonly engine?: () => Promise<ReportEngine>;
}

/**
 * The live insights of one of the organization's locations at `now` (epoch ms), from the cache.
 * An entry is shown when its group is open now, it was counted from the current open period, and it
 * is at most three refresh periods old (and never more than 15 minutes); otherwise the group is left
 * out (closed or data unavailable). A group with a capacity also answers it and its utilization,
 * with the capacity of now (a change shows at once, before the next refresh). 404 for an unknown
 * location, another organization's and one outside the scope's grant (its existence is not revealed).
 */
export async function liveInsights(
  store: Pick<LocationStore, 'getLiveView'>,
  scope: Pick<AccessScope, 'organizationId' | 'locationIds'>,
  locationId: string,
  kinds: readonly InsightKind[],
  now: number,
  options: LiveOptions = {},
): Promise<{ readonly body: LiveInsights; readonly maxAgeSeconds: number }> {
  // An id no location can have (e.g. longer than a DynamoDB key allows) is unknown without asking.
  if (LOCATION_ID.test(locationId)) requireGranted(scope, locationId);
  const view = LOCATION_ID.test(locationId) ? await store.getLiveView(scope.organizationId, locationId) : undefined;
  if (!view) throw new NotFoundError(`There is no location '${locationId.slice(0, 128)}'.`);
  const period = options.refreshPeriodMs ?? REFRESH_PERIOD_MS;
  const insights: { occupancy?: OccupancyItem[]; health?: SensorHealth } = {};
  if (kinds.includes('occupancy')) insights.occupancy = currentOccupancy(view, now, period);
  if (kinds.includes('health')) {
    if (!options.engine) throw new Error('no report engine for health');
    insights.health = await sensorHealth(await options.engine(), view, now);
  }
  return { body: { insights }, maxAgeSeconds: maxAgeSeconds(now, period) };
}

/** The shown entries, ordered by sensor group id. */
export function currentOccupancy(view: LiveView, now: number, refreshPeriodMs = REFRESH_PERIOD_MS): OccupancyItem[] {
  const maxAge = Math.min(MAX_ENTRY_AGE_MS, 3 * refreshPeriodMs);
  const entries = new Map(view.occupancy.map((e) => [e.sensorGroupId, e]));
  return [...view.sensorGroups].sort(byId).flatMap((group) => {
    const period = currentOpenPeriod(group.openingHours, view.location.timezone, now);
    const entry = entries.get(group.id);
    if (!period || !entry) return [];
    if (Date.parse(entry.openedAt) !== period.start) return [];
    const age = now - Date.parse(entry.refreshedAt);
    if (age > maxAge || age < -REFRESH_PERIOD_MS) return [];
    const base = { sensorGroup: { id: group.id, name: group.name }, occupancy: entry.occupancy };
    return [
      group.capacity === undefined
        ? base
        : { ...base, capacity: group.capacity, utilization: utilization(entry.occupancy, group.capacity) },
    ];
  });
}

/**
 * Seconds a client may keep the answer: until the next refresh has written, i.e. the next instant
 * `k × 5 min + REFRESH_SETTLE_MS` after `now` (refreshes start on the 5-minute marks, cron 0/5).
 * Re-fetching at the mark itself would return the old data with a fresh max-age. With a shorter
 * period (`npm start -- --refresh-seconds N`), refreshes start whenever the server does: the answer
 * may be kept for one period, less the settling time scaled to it.
 */
export function maxAgeSeconds(now: number, refreshPeriodMs = REFRESH_PERIOD_MS): number {
  if (refreshPeriodMs !== REFRESH_PERIOD_MS) return Math.max(0, Math.floor(refreshPeriodMs / 2000));
  const next =
    Math.floor((now - REFRESH_SETTLE_MS) / REFRESH_PERIOD_MS) * REFRESH_PERIOD_MS +
    REFRESH_PERIOD_MS +
    REFRESH_SETTLE_MS;
  return Math.max(0, Math.floor((next - now) / 1000));
}
