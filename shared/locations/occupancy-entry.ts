/**
 * One occupancy cache entry: the occupancy of one sensor group as computed by the last refresh.
 * `openedAt` is the start of the open period it was counted from, so that an entry is never shown
 * for a later period (after a closing, before the next refresh).
 */
export interface OccupancyEntry {
  readonly organizationId: string;
  readonly locationId: string;
  readonly sensorGroupId: number;
  readonly name: string;
  readonly occupancy: number;
  /** ISO 8601 UTC with ms: start of the open period counted from. */
  readonly openedAt: string;
  /** ISO 8601 UTC with ms: the instant the counts run up to (the refresh's "now"). */
  readonly refreshedAt: string;
}

/** The refresh runs every 5 minutes (spec, Limits). */
export const REFRESH_PERIOD_MS = 5 * 60_000;

/** Entries older than this are "data unavailable" and left out of live insights. */
export const MAX_ENTRY_AGE_MS = 3 * REFRESH_PERIOD_MS;
