/**
 * What a timestamp the service takes in must be, said once for every place that takes one (ingest's
 * documents, the history's `from` and `to`): the words of the 400 are the same everywhere.
 */

/** The one message for a timestamp that is not ISO 8601 with `Z` or an offset. */
export const TIMESTAMP_FORMAT_MESSAGE =
  'must be an ISO 8601 timestamp with Z or an offset, e.g. 2024-03-31T00:00:00+02:00';

/**
 * The earliest instant stored or bucketed: 1970-01-01T00:00:00Z. Before it, the time zone database
 * gives many zones their local mean time (Berlin +00:53:28), so a day or an hour of a location's
 * time zone would start at an instant no clock showed, and the database itself keeps no promise
 * about offsets before 1970. No camera or sensor saw anything then.
 */
const TIMESTAMP_FLOOR_MS = 0;
const TIMESTAMP_FLOOR = '1970-01-01T00:00:00Z';
export const TIMESTAMP_FLOOR_MESSAGE = `must be ${TIMESTAMP_FLOOR} or later (no time zone has reliable offsets before it)`;

/**
 * Whether a valid timestamp's epoch ms is at or after the floor (NaN, for text that is none, passes: its format is
 * refused on its own).
 */
export const isNotBeforeFloor = (ms: number): boolean => !(ms < TIMESTAMP_FLOOR_MS);
