import { type AccessScope, requireGranted, withinGrant } from '../access/scope';
import { byId, LOCATION_ID, type Location, type LocationWithGroups } from './model';
import type { LocationStore } from './store';
import { NotFoundError } from '../errors';

/** The reads of locations under a scope: what the caller's organization has, within its grant. */

/** `GET /locations`: the organization's locations the scope may see, ordered by id. */
export async function listVisibleLocations(
  store: Pick<LocationStore, 'listLocations'>,
  scope: Pick<AccessScope, 'organizationId' | 'locationIds'>,
): Promise<Location[]> {
  if (scope.locationIds?.length === 0) return [];
  return withinGrant(scope, await store.listLocations(scope.organizationId));
}

/**
 * One location the scope may see, with its groups and revision: 404 for an id no location can have,
 * an unknown one, another organization's, and one outside the grant (the same answer for all).
 */
export async function readLocation(
  store: Pick<LocationStore, 'getLocationWithGroups'>,
  scope: Pick<AccessScope, 'organizationId' | 'locationIds'>,
  id: string,
): Promise<StoredLocation> {
  if (!LOCATION_ID.test(id)) throw new NotFoundError(`There is no location '${id.slice(0, 128)}'.`);
  requireGranted(scope, id);
  return currentLocation(store, scope.organizationId, id);
}

/** A location as stored: the location, its groups in id order, its revision. */
export type StoredLocation = Required<LocationWithGroups>;

/** The location, or 404 (unknown, or another organization's: the same answer). */
export async function currentLocation(
  store: Pick<LocationStore, 'getLocationWithGroups'>,
  organizationId: string,
  id: string,
): Promise<StoredLocation> {
  const found = await store.getLocationWithGroups(organizationId, id);
  if (!found) throw new NotFoundError(`There is no location '${id.slice(0, 128)}'.`);
  return stored(found);
}

export const stored = (l: LocationWithGroups): StoredLocation => ({
  location: l.location,
  sensorGroups: [...l.sensorGroups].sort(byId),
  revision: l.revision ?? 0,
});
