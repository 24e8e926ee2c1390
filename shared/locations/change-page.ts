import { NotFoundError, ValidationError } from '../errors';
import type { LocationChange } from './changes';
import { LOCATION_ID } from './model';
import type { LocationStore } from './store';

/** `GET /locations/{locationId}/changes`: the change log, newest first, a page at a time. */

export const DEFAULT_CHANGE_PAGE = 50;
export const MAX_CHANGE_PAGE = 200;

export interface ChangeQuery {
  readonly limit: number;
  /** Changes before this revision (the `next` link of the page before). */
  readonly before?: number;
}

export interface ChangeLogPage {
  readonly changes: readonly LocationChange[];
  /** The next (older) page, when there may be one: a path with its query. */
  readonly next?: string;
}

/** `limit` (1 to 200, default 50) and `before` (a revision ≥ 1); anything else a 400 naming it. */
export function parseChangeQuery(query: Readonly<Record<string, string | undefined>> | undefined): ChangeQuery {
  const errors = [];
  const limit = query?.limit === undefined ? DEFAULT_CHANGE_PAGE : wholeNumber(query.limit);
  if (limit === undefined || limit < 1 || limit > MAX_CHANGE_PAGE)
    errors.push({ path: '/query/limit', message: `must be a whole number from 1 to ${MAX_CHANGE_PAGE}` });
  const before = query?.before === undefined ? undefined : wholeNumber(query.before);
  if (query?.before !== undefined && (before === undefined || before < 1))
    errors.push({
      path: '/query/before',
      message: 'must be a revision, a whole number from 1 (the `next` link gives it)',
    });
  if (errors.length > 0) throw new ValidationError(errors);
  return { limit: limit!, ...(before !== undefined ? { before } : {}) };
}

const wholeNumber = (text: string): number | undefined => (/^\d{1,10}$/.test(text) ? Number(text) : undefined);

/**
 * A page of the log. A deleted location keeps its log (the deletion is its last entry); an id
 * with neither a location nor a log is a 404, as for every other route of a location.
 */
export async function listChangePage(
  store: Pick<LocationStore, 'listChanges' | 'getLocationWithGroups'>,
  organizationId: string,
  locationId: string,
  query: ChangeQuery,
): Promise<ChangeLogPage> {
  if (!LOCATION_ID.test(locationId)) throw new NotFoundError(`There is no location '${locationId.slice(0, 128)}'.`);
  const changes = await store.listChanges(organizationId, locationId, {
    limit: query.limit,
    ...(query.before !== undefined ? { beforeRevision: query.before } : {}),
  });
  if (
    changes.length === 0 &&
    query.before === undefined &&
    !(await store.getLocationWithGroups(organizationId, locationId))
  ) {
    throw new NotFoundError(`There is no location '${locationId.slice(0, 128)}'.`);
  }
  const oldest = changes[changes.length - 1];
  const more = changes.length === query.limit && oldest !== undefined && oldest.revision > 1;
  return {
    changes,
    ...(more
      ? { next: `/locations/${encodeURIComponent(locationId)}/changes?before=${oldest.revision}&limit=${query.limit}` }
      : {}),
  };
}
