import { ForbiddenError, NotFoundError } from '../errors';

/**
 * Who may do what, resolved once from the verified token (functions/commons/http/identity.ts) into
 * one plain object that every store and engine call takes: no handler filters by hand.
 *
 * - `viewer` reads (locations, live, history, reports); a token without a role is a viewer.
 * - `admin` reads, and manages locations and gateways (ingest clients).
 * - `ingest` is a machine client's: it may only write documents (POST /ingest/{collection}).
 *
 * The location grant narrows everything the caller sees to the listed locations of its organization
 * (a store manager sees their store). Absent: every location of the organization. Docs:
 * docs/access.md.
 */
export type Role = 'viewer' | 'admin' | 'ingest';

export interface AccessScope {
  readonly organizationId: string;
  readonly role: Role;
  /**
   * The token's subject (`sub`): who makes a change (`createdBy`, `updatedBy`, the change log); null when the token has
   * none.
   */
  readonly subject: string | null;
  /**
   * The locations the caller may see, sorted and without repeats; undefined: every location of the
   * organization. An empty list sees nothing.
   */
  readonly locationIds?: readonly string[];
}

/** Whether the scope may see the location (its organization's, and within its grant). */
export function grants(scope: Pick<AccessScope, 'locationIds'>, locationId: string): boolean {
  return scope.locationIds === undefined || scope.locationIds.includes(locationId);
}

/**
 * The location as the caller may address it on a path: outside the grant it is a 404, the answer an
 * unknown location and another organization's get, so that a store manager's token tells nothing of
 * the other stores.
 */
export function requireGranted(scope: Pick<AccessScope, 'locationIds'>, locationId: string): void {
  if (!grants(scope, locationId)) throw new NotFoundError(`There is no location '${locationId.slice(0, 128)}'.`);
}

/** The locations of `all` the scope may see (all of them without a grant), in their order. */
export function withinGrant<T extends { readonly id: string }>(
  scope: Pick<AccessScope, 'locationIds'>,
  all: readonly T[],
): T[] {
  return scope.locationIds === undefined ? [...all] : all.filter((l) => grants(scope, l.id));
}

/**
 * 403 unless the scope is an admin's. `organizationWide`: the request concerns the organization as
 * a whole (creating or deleting a location, gateways), which an admin limited to some locations may
 * not do.
 */
export function requireAdmin(
  scope: AccessScope,
  what: string,
  options: { readonly organizationWide?: boolean } = {},
): void {
  if (scope.role !== 'admin')
    throw new ForbiddenError(`${what} needs the admin role; this token's role is ${scope.role}.`);
  if (options.organizationWide && scope.locationIds !== undefined) {
    throw new ForbiddenError(
      `${what} needs an admin of the whole organization; this token is limited to ${describeGrant(scope.locationIds)}.`,
    );
  }
}

/** `the locations a, b` / `no location`, for messages. */
export function describeGrant(locationIds: readonly string[]): string {
  if (locationIds.length === 0) return 'no location';
  const shown = locationIds.slice(0, 10).join(', ');
  return `the location${locationIds.length === 1 ? '' : 's'} ${shown}${locationIds.length > 10 ? ` (and ${locationIds.length - 10} more)` : ''}`;
}
