import { NotFoundError, ValidationError } from '../errors';
import { byId, LOCATION_ID } from '../locations/model';
import type { LiveView, LocationStore } from '../locations/store';
import { MAX_ENTRY_AGE_MS, REFRESH_PERIOD_MS } from '../locations/occupancy-entry';
import { currentOpenPeriod } from './opening-hours';

/** The insight kinds `filter` may name (spec: only occupancy). */
export const INSIGHT_KINDS = ['occupancy'] as const;
export type InsightKind = (typeof INSIGHT_KINDS)[number];

/** Where the refresh is expected to have written, after each scheduled start (cron 0/5). */
export const REFRESH_SETTLE_MS = 60_000;

/** JSON Pointer of the query parameter in problem+json errors (as `parseOrThrow(..., '/query')` makes). */
export const FILTER_POINTER = '/query/filter';

export interface OccupancyItem {
  readonly sensorGroup: { readonly id: number; readonly name: string };
  readonly occupancy: number;
}

export interface LiveInsights {
  readonly insights: { readonly occupancy?: readonly OccupancyItem[] };
}

/**
 * `filter` → the kinds asked for: comma-separated, whitespace around names and repeated names
 * tolerated; missing, empty or naming an unknown kind is a 400 naming the query parameter.
 */
export function parseInsightKinds(filter: string | undefined): InsightKind[] {
  const allowed = `allowed: ${INSIGHT_KINDS.join(', ')}`;
  if (filter === undefined) throw new ValidationError([{ path: FILTER_POINTER, message: `is required (comma-separated insight kinds; ${allowed})` }]);
  const names = [...new Set(filter.split(',').map((n) => n.trim()).filter((n) => n.length > 0))];
  if (names.length === 0) throw new ValidationError([{ path: FILTER_POINTER, message: `must name at least one insight kind; ${allowed}` }]);
  const unknown = names.filter((n) => !(INSIGHT_KINDS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new ValidationError(unknown.map((n) => ({ path: FILTER_POINTER, message: `unknown insight kind '${n.slice(0, 64)}'; ${allowed}` })));
  }
  return names as InsightKind[];
}

/**
 * The live insights of one of the organization's locations at `now` (epoch ms), from the cache.
 * An entry is shown when its group is open now, it was counted from the current open period, and it
 * is at most three refresh periods old; otherwise the group is left out (closed or data unavailable).
 * 404 for an unknown location, and for another organization's (its existence is not revealed).
 */
export async function liveInsights(
  store: Pick<LocationStore, 'getLiveView'>,
  organizationId: string,
  locationId: string,
  kinds: readonly InsightKind[],
  now: number,
): Promise<{ readonly body: LiveInsights; readonly maxAgeSeconds: number }> {
  // An id no location can have (e.g. longer than a DynamoDB key allows) is unknown without asking.
  const view = LOCATION_ID.test(locationId) ? await store.getLiveView(organizationId, locationId) : undefined;
  if (!view) throw new NotFoundError(`There is no location '${locationId.slice(0, 128)}'.`);
  const insights: { occupancy?: OccupancyItem[] } = {};
  if (kinds.includes('occupancy')) insights.occupancy = currentOccupancy(view, now);
  return { body: { insights }, maxAgeSeconds: maxAgeSeconds(now) };
}

/** The shown entries, ordered by sensor group id. */
export function currentOccupancy(view: LiveView, now: number): OccupancyItem[] {
  const entries = new Map(view.occupancy.map((e) => [e.sensorGroupId, e]));
  return [...view.sensorGroups].sort(byId).flatMap((group) => {
    const period = currentOpenPeriod(group.openingHours, view.location.timezone, now);
    const entry = entries.get(group.id);
    if (!period || !entry) return [];
    if (Date.parse(entry.openedAt) !== period.start) return [];
    const age = now - Date.parse(entry.refreshedAt);
    if (age > MAX_ENTRY_AGE_MS || age < -REFRESH_PERIOD_MS) return [];
    return [{ sensorGroup: { id: group.id, name: group.name }, occupancy: entry.occupancy }];
  });
}

/**
 * Seconds a client may keep the answer: until the next refresh has written, i.e. the next instant
 * `k × 5 min + REFRESH_SETTLE_MS` after `now` (refreshes start on the 5-minute marks, cron 0/5).
 * Re-fetching at the mark itself would return the old data with a fresh max-age.
 */
export function maxAgeSeconds(now: number): number {
  const next = Math.floor((now - REFRESH_SETTLE_MS) / REFRESH_PERIOD_MS) * REFRESH_PERIOD_MS + REFRESH_PERIOD_MS + REFRESH_SETTLE_MS;
  return Math.max(0, Math.floor((next - now) / 1000));
}
