import { randomUUID } from 'node:crypto';
import { ValidationError } from '../errors';
import { ConflictError, PreconditionFailedError, WriteTooLargeError } from './errors';
import { canonical } from './canonical';
import { nextCapacityHistory } from './capacity';
import { changeEntry, diffLocations, type ChangeAction, type LocationState } from './changes';
import { byId, type Location, type SensorGroup } from './model';
import type { LocationInput } from './schema';
import { currentLocation, stored, type StoredLocation } from './read';

export type { StoredLocation } from './read';
import { type LocationStore, type LocationWrite, LocationWriteConflictError } from './store';

/**
 * Writes of locations, by the administration API (functions/manage-locations.ts) and the import
 * (./import.ts) alike: the input is the desired state (validated by ./schema.ts and ./checks.ts),
 * and each write is one transaction with its change log entry (LocationStore.writeLocation). The
 * rules that the issue and the docs fix live here, once:
 *
 * - A location's revision counts its writes and is its ETag; a replacement or deletion may name
 *   the revision it expects (If-Match), and a write that lost a race is refused, never merged.
 * - A write that changes nothing writes nothing (no revision, no log entry).
 * - A deleted location leaves a deletion record; its id is refused to a creation unless the
 *   creation says it reuses it (its documents stay in the report store and would count as the new
 *   location's), and its revisions go on from where they stopped.
 * - Capacity changes append to the group's history at the write's time (./capacity.ts).
 */

/** Who writes, and when. */
export interface WriteContext {
  readonly organizationId: string;
  /** `createdBy` / `updatedBy` and the log's `by`: the token's subject, or an import's `--actor`. */
  readonly actor: string | null;
  readonly now: Date;
}

/**
 * What an If-Match asks: the revision (or one of the revisions) it names, or `*` (the location exists, whatever its
 * revision).
 */
export type ExpectedRevision = number | readonly number[] | '*';

type Store = Pick<LocationStore, 'getLocationWithGroups' | 'findDeletedLocation' | 'writeLocation'>;

/**
 * The most actions of a location write besides its groups': the location, the deletion record (or its check), the log
 * entry.
 */
const FIXED_ACTIONS = 3;
const MAX_GROUP_ACTIONS = 100 - FIXED_ACTIONS;

/**
 * POST /locations: a new location, from the caller's desired state. 409 when the id is taken, or
 * belonged to a deleted location and `reuseDeletedId` is not set.
 */
export async function createLocation(
  store: Store,
  context: WriteContext,
  input: LocationInput,
  options: { readonly reuseDeletedId?: boolean } = {},
): Promise<StoredLocation> {
  const id = input.id ?? randomUUID();
  return create(store, context, id, input, options.reuseDeletedId ?? false);
}

async function create(
  store: Store,
  context: WriteContext,
  id: string,
  input: LocationInput,
  reuseDeletedId: boolean,
): Promise<StoredLocation> {
  const org = context.organizationId;
  const [existing, deleted] = await Promise.all([
    store.getLocationWithGroups(org, id),
    store.findDeletedLocation(org, id),
  ]);
  if (existing) throw locationExists(id);
  if (deleted && !reuseDeletedId) throw locationDeleted(id, deleted.deletedAt);
  const now = context.now.toISOString();
  const location: Location = {
    id,
    name: input.name ?? id,
    organizationId: org,
    type: input.type,
    timezone: input.timezone,
    createdBy: context.actor,
    updatedBy: context.actor,
    createdAt: now,
    updatedAt: now,
  };
  const groups = desiredGroups(input, [], now);
  const revision = (deleted?.revision ?? 0) + 1;
  const after: StoredLocation = { location, sensorGroups: groups, revision };
  await write(store, {
    organizationId: org,
    locationId: id,
    expects: deleted ? { kind: 'overDeleted', revision: deleted.revision } : { kind: 'new' },
    location: { location, revision },
    putGroups: groups,
    deleteGroupIds: [],
    change: change(revision, context, deleted ? 'recreated' : 'created', undefined, after),
  });
  return after;
}

/**
 * PUT /locations/{locationId}: the location becomes the desired state. 404 for an unknown location,
 * 412 when `expected` names another revision (or the location changed while this was written). A
 * replacement that changes nothing writes nothing and answers the location as it is.
 */
export async function replaceLocation(
  store: Store,
  context: WriteContext,
  id: string,
  input: LocationInput,
  expected: ExpectedRevision,
): Promise<{ readonly location: StoredLocation; readonly changed: boolean }> {
  const current = await currentLocation(store, context.organizationId, id);
  checkExpected(current, expected);
  return update(store, context, current, input);
}

async function update(
  store: Store,
  context: WriteContext,
  current: StoredLocation,
  input: LocationInput,
): Promise<{ readonly location: StoredLocation; readonly changed: boolean }> {
  const now = context.now.toISOString();
  const groups = desiredGroups(input, current.sensorGroups, now);
  const desired = {
    location: { name: input.name ?? current.location.name, type: input.type, timezone: input.timezone },
    sensorGroups: groups,
  };
  if (diffLocations(current, desired).length === 0) return { location: current, changed: false };
  const revision = current.revision + 1;
  const location: Location = { ...current.location, ...desired.location, updatedBy: context.actor, updatedAt: now };
  const after: StoredLocation = { location, sensorGroups: groups, revision };
  // Compared as canonical JSON: DynamoDB does not keep the order of a map's keys.
  const before = new Map(current.sensorGroups.map((g) => [g.id, canonical(g)]));
  await write(store, {
    organizationId: context.organizationId,
    locationId: current.location.id,
    expects: { kind: 'revision', revision: current.revision },
    location: { location, revision },
    putGroups: groups.filter((g) => before.get(g.id) !== canonical(g)),
    deleteGroupIds: current.sensorGroups.filter((g) => !groups.some((n) => n.id === g.id)).map((g) => g.id),
    change: change(revision, context, 'updated', current, after),
  });
  return { location: after, changed: true };
}

/**
 * DELETE /locations/{locationId}: the location and its groups go, a deletion record stays (with the
 * change log). 404 for an unknown location, 412 when `expected` (optional) names another revision.
 * The occupancy cache of the location is cleared afterwards (not part of the transaction: it is a
 * cache, and an entry left behind by a failure expires within a day and is never shown for a
 * location that does not exist).
 */
export async function deleteLocation(
  store: Store & Pick<LocationStore, 'clearOccupancy'>,
  context: WriteContext,
  id: string,
  expected?: ExpectedRevision,
): Promise<void> {
  const current = await currentLocation(store, context.organizationId, id);
  if (expected !== undefined) checkExpected(current, expected);
  const revision = current.revision + 1;
  await write(store, {
    organizationId: context.organizationId,
    locationId: id,
    expects: { kind: 'revision', revision: current.revision },
    putGroups: [],
    deleteGroupIds: current.sensorGroups.map((g) => g.id),
    deleted: {
      id,
      organizationId: context.organizationId,
      deletedAt: context.now.toISOString(),
      deletedBy: context.actor,
      revision,
    },
    change: change(revision, context, 'deleted', current, undefined),
  });
  await store.clearOccupancy(context.organizationId, id);
}

export type SaveOutcome = 'created' | 'recreated' | 'updated' | 'unchanged';

/**
 * The import's write of one location: created when new, replaced when it exists (whatever its
 * revision: the file is the desired state), unchanged when equal. A deleted id is refused (409)
 * unless `reuseDeletedIds`.
 */
export async function saveLocation(
  store: Store,
  context: WriteContext,
  id: string,
  input: LocationInput,
  options: { readonly reuseDeletedIds?: boolean } = {},
): Promise<{ readonly location: StoredLocation; readonly outcome: SaveOutcome }> {
  const current = await store.getLocationWithGroups(context.organizationId, id);
  if (!current) {
    const deleted = await store.findDeletedLocation(context.organizationId, id);
    return {
      location: await create(store, context, id, input, options.reuseDeletedIds ?? false),
      outcome: deleted ? 'recreated' : 'created',
    };
  }
  const { location, changed } = await update(store, context, stored(current), input);
  return { location, outcome: changed ? 'updated' : 'unchanged' };
}

/** The input's groups, each with its capacity history carried on from the current group of its id. */
function desiredGroups(input: LocationInput, current: readonly SensorGroup[], now: string): SensorGroup[] {
  const old = new Map(current.map((g) => [g.id, g]));
  return (input.sensorGroups ?? [])
    .map((g): SensorGroup => {
      const capacity = g.capacity ?? undefined;
      const history = nextCapacityHistory(old.get(g.id)?.capacityHistory, capacity, now);
      return {
        id: g.id,
        name: g.name,
        ...(capacity !== undefined ? { capacity } : {}),
        ...(history.length > 0 ? { capacityHistory: history } : {}),
        lines: g.lines.map((l) => ({
          trackingCameraId: l.trackingCameraId,
          lineId: l.lineId,
          inDirection: l.inDirection,
        })),
        openingHours: g.openingHours,
      };
    })
    .sort(byId);
}

function checkExpected(current: StoredLocation, expected: ExpectedRevision): void {
  if (expected === '*') return;
  const revisions = typeof expected === 'number' ? [expected] : expected;
  if (!revisions.includes(current.revision)) throw stale(current);
}

function change(
  revision: number,
  context: WriteContext,
  action: ChangeAction,
  before: LocationState | undefined,
  after: LocationState | undefined,
) {
  return changeEntry({
    revision,
    at: context.now.toISOString(),
    by: context.actor,
    action,
    changes: diffLocations(before, after),
  });
}

async function write(store: Pick<LocationStore, 'writeLocation'>, w: LocationWrite): Promise<void> {
  const groupActions = w.putGroups.length + w.deleteGroupIds.length;
  if (groupActions > MAX_GROUP_ACTIONS)
    throw new WriteTooLargeError(w.putGroups.length, w.deleteGroupIds.length, MAX_GROUP_ACTIONS);
  try {
    await store.writeLocation(w);
  } catch (e) {
    if (!(e instanceof LocationWriteConflictError)) throw e;
    if (e.reason === 'exists') throw locationExists(w.locationId);
    if (e.reason === 'deleted') throw locationDeleted(w.locationId);
    throw new PreconditionFailedError(
      `Location '${w.locationId}' changed while this request was being written; read it again (its ETag) and send the change with that.`,
    );
  }
}

const stale = (current: StoredLocation) =>
  new PreconditionFailedError(
    `If-Match does not name the current revision of location '${current.location.id}' (its ETag is "${current.revision}"); read it again and send the change with that ETag.`,
  );

const locationExists = (id: string) =>
  new ConflictError(`Location '${id}' exists already; change it with PUT /locations/${id}.`, { reason: 'exists' });

function locationDeleted(id: string, deletedAt?: string): ConflictError {
  return new ConflictError(
    `Location '${id}' was deleted${deletedAt ? ` at ${deletedAt}` : ''}, and its documents remain: a location created with this id would count them as its own. Choose another id, or send the request again with reuseDeletedId=true to take the id back knowingly.`,
    { reason: 'deleted', ...(deletedAt ? { deletedAt } : {}) },
  );
}

/** A body's `organizationId` and `id` must agree with the caller's organization and the path. */
export function checkIdentity(input: LocationInput, organizationId: string, pathId?: string): void {
  const errors = [];
  if (input.organizationId !== undefined && input.organizationId.toLowerCase() !== organizationId.toLowerCase()) {
    errors.push({
      path: '/organizationId',
      message: `must be the organization of the token (${organizationId}), or left out`,
    });
  }
  if (pathId !== undefined && input.id !== undefined && input.id !== pathId)
    errors.push({ path: '/id', message: `must be the location of the path (${pathId}), or left out` });
  if (errors.length > 0) throw new ValidationError(errors);
}
