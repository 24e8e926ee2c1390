import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { requireAdmin, requireGranted } from '#shared/access/scope';
import { ValidationError } from '#shared/errors';
import {
  checkIdentity,
  createLocation,
  deleteLocation,
  replaceLocation,
  type StoredLocation,
} from '#shared/locations/admin';
import { listChangePage, parseChangeQuery } from '#shared/locations/change-page';
import { validateLocationInput } from '#shared/locations/import';
import { readLocation } from '#shared/locations/read';
import { toLocationResource } from '#shared/locations/resource';
import type { LocationStore } from '#shared/locations/store';
import { locationStore } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { refreshTrigger, type RefreshTrigger } from '#commons/clients/refresh-trigger';
import { ifMatchOf, revisionEtag } from '#commons/http/preconditions';
import { type FamilyRequest, type FamilyRoute, routeFamily } from '#commons/http/route-family';

/** Largest location body: 50 groups of 200 lines fit with room to spare. */
export const MAX_LOCATION_BODY_BYTES = 1024 * 1024;

export interface ManageLocationsDeps {
  readonly store: Provider<LocationStore>;
  /**
   * Refreshes a changed location's occupancy at once (locally in-process; in AWS the refresh function, invoked
   * asynchronously).
   */
  readonly refresh: () => RefreshTrigger;
  /** @default Date.now */
  readonly now?: () => number;
}

type Request = FamilyRequest<ManageLocationsDeps>;

/**
 * The location resource (one Lambda for the family): `GET /locations/{locationId}` (with its strong
 * ETag), `POST /locations` (201), `PUT /locations/{locationId}` (If-Match required: 428, 412),
 * `DELETE /locations/{locationId}` (204; If-Match honoured when sent) and
 * `GET /locations/{locationId}/changes`. Reads need any user's token within the grant; writes the
 * admin role (creating and deleting: an admin of the whole organization). The rules are in
 * shared/locations/admin.ts, shared with the import.
 */
export function createManageLocationsHandler(
  deps: ManageLocationsDeps = { store: locationStore, refresh: refreshTrigger },
) {
  return routeFamily('manage-locations', LOCATION_ROUTES, deps);
}

/** The family's routes, by their keys in functions/routes.ts. */
export const LOCATION_ROUTES: Readonly<Record<string, FamilyRoute<ManageLocationsDeps>>> = {
  'GET /locations/{locationId}': { purpose: 'read', run: getLocation },
  'POST /locations': { purpose: 'admin', bodyMaxBytes: MAX_LOCATION_BODY_BYTES, run: postLocation },
  'PUT /locations/{locationId}': { purpose: 'admin', bodyMaxBytes: MAX_LOCATION_BODY_BYTES, run: putLocation },
  'DELETE /locations/{locationId}': { purpose: 'admin', run: removeLocation },
  'GET /locations/{locationId}/changes': { purpose: 'read', run: getChanges },
};

async function getLocation({ event, scope, deps }: Request) {
  const stored = await readLocation(await deps.store(), scope, pathId(event));
  return answer(200, stored);
}

async function postLocation({ event, scope, deps, body }: Request) {
  requireAdmin(scope, 'Creating a location', { organizationWide: true });
  const reuseDeletedId = booleanQuery(event.queryStringParameters?.reuseDeletedId, 'reuseDeletedId');
  const input = validateLocationInput(body);
  checkIdentity(input, scope.organizationId);
  const stored = await createLocation(await deps.store(), context(scope, deps), input, { reuseDeletedId });
  await refreshNow(deps, scope.organizationId, stored.location.id);
  return answer(201, stored, { Location: `/locations/${encodeURIComponent(stored.location.id)}` });
}

async function putLocation({ event, scope, deps, body }: Request) {
  const id = pathId(event);
  requireAdmin(scope, 'Changing a location');
  const store = await deps.store();
  // Outside the grant, unknown or another organization's: 404 before the precondition is looked at.
  await readLocation(store, scope, id);
  const expected = ifMatchOf(event, true, `PUT /locations/${id}`)!;
  const input = validateLocationInput(body);
  checkIdentity(input, scope.organizationId, id);
  const { location, changed } = await replaceLocation(store, context(scope, deps), id, input, expected);
  if (changed) await refreshNow(deps, scope.organizationId, id);
  return answer(200, location);
}

async function removeLocation({ event, scope, deps }: Request): Promise<APIGatewayProxyStructuredResultV2> {
  const id = pathId(event);
  requireAdmin(scope, 'Deleting a location', { organizationWide: true });
  const store = await deps.store();
  await readLocation(store, scope, id);
  await deleteLocation(store, context(scope, deps), id, ifMatchOf(event, false, `DELETE /locations/${id}`));
  return { statusCode: 204, headers: { 'Cache-Control': 'no-store' } };
}

async function getChanges({ event, scope, deps }: Request) {
  const id = pathId(event);
  requireGranted(scope, id);
  const page = await listChangePage(
    await deps.store(),
    scope.organizationId,
    id,
    parseChangeQuery(event.queryStringParameters),
  );
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-cache' },
    body: JSON.stringify(page),
  };
}

const pathId = (event: Request['event']): string => event.pathParameters?.locationId ?? '';

const context = (scope: Request['scope'], deps: ManageLocationsDeps) => ({
  organizationId: scope.organizationId,
  actor: scope.subject,
  now: new Date((deps.now ?? Date.now)()),
});

function answer(
  statusCode: number,
  stored: StoredLocation,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'private, no-cache',
      ETag: revisionEtag(stored.revision),
      ...headers,
    },
    body: JSON.stringify(toLocationResource(stored)),
  };
}

/** `true` or `false` (absent: false); anything else a 400 naming the parameter. */
function booleanQuery(value: string | undefined, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ValidationError([{ path: `/query/${name}`, message: 'must be true or false' }]);
}

/** A failed trigger does not fail the write: the schedule refreshes the location within a period anyway. */
async function refreshNow(deps: ManageLocationsDeps, organizationId: string, locationId: string): Promise<void> {
  try {
    await deps.refresh()(organizationId, locationId);
  } catch (e) {
    const { logger } = await import('#commons/powertools/logger');
    logger.warn('refresh after a location change failed', { organizationId, locationId, error: e as Error });
  }
}

export const handler = createManageLocationsHandler();
