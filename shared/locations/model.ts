/**
 * The locations domain: a location (the spec's fields, exactly) and the sensor groups configured
 * under it for live occupancy. Plain data, engine- and store-neutral.
 */

/** A location as stored and as answered by `GET /locations` (the spec's fields, in the spec's order). */
export interface Location {
  readonly id: string;
  /**
   * What people call it (1 to 128 characters), shown instead of the id. A location imported before
   * names existed, or without one, is called by its id.
   */
  readonly name: string;
  /** UUID of the owning organization. */
  readonly organizationId: string;
  /** Free-text kind of location. */
  readonly type: string;
  /** IANA time zone name; opening hours of the location's sensor groups are in this zone. */
  readonly timezone: string;
  readonly createdBy: string | null;
  readonly updatedBy: string | null;
  /** ISO 8601 UTC with milliseconds. */
  readonly createdAt: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly updatedAt: string;
}

export type Direction = 'A' | 'B';

/**
 * One counting line: line `lineId` as seen by camera `trackingCameraId`; crossing it ending on `inDirection` means
 * "in".
 */
export interface CountingLine {
  readonly trackingCameraId: string;
  readonly lineId: string;
  readonly inDirection: Direction;
}

/** URL-safe, so that an id is usable as `{locationId}` without encoding (the import schema checks it). */
export const LOCATION_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * One opening interval of a day, wall-clock `HH:MM` in the location's time zone. `close` may be
 * `24:00` (end of the day); a `close` earlier than `open` ends on the next day (overnight).
 */
export interface OpeningInterval {
  readonly open: string;
  readonly close: string;
}

/** Opening intervals per weekday; a weekday that is absent or empty is closed all day. */
export type OpeningHours = Readonly<Partial<Record<Weekday, readonly OpeningInterval[]>>>;

/**
 * One entry of a sensor group's capacity history: from `since` on (ISO 8601 UTC with ms), the
 * capacity was `capacity` (null: none set). Written by the service whenever a write changes the
 * capacity, so that a utilization of a past period uses the capacity in force then.
 */
export interface CapacityChange {
  readonly since: string;
  readonly capacity: number | null;
}

/** An occupancy area of a location: counted by its lines, reset at each opening. */
export interface SensorGroup {
  readonly id: number;
  readonly name: string;
  /** How many people (or spots) the area holds; absent when not set (then no utilization). */
  readonly capacity?: number;
  /** The capacities in force over time, oldest first (./capacity.ts); absent or empty when never set. */
  readonly capacityHistory?: readonly CapacityChange[];
  readonly lines: readonly CountingLine[];
  readonly openingHours: OpeningHours;
}

/** A location with its sensor groups (ordered by id). */
export interface LocationWithGroups {
  readonly location: Location;
  readonly sensorGroups: readonly SensorGroup[];
  /**
   * How many writes the location has had (the administration API's ETag, `"<revision>"`): 1 after
   * its creation, one more per change. 0 for a location written before revisions were kept.
   * @default 0
   */
  readonly revision?: number;
}

/**
 * The response shape of one location in `GET /locations`: the spec's fields in the spec's order, `name` after the id.
 */
export function toLocationResponse(l: Location): Location {
  return {
    id: l.id,
    name: l.name,
    organizationId: l.organizationId,
    type: l.type,
    timezone: l.timezone,
    createdBy: l.createdBy ?? null,
    updatedBy: l.updatedBy ?? null,
    createdAt: isoMillis(l.createdAt),
    updatedAt: isoMillis(l.updatedAt),
  };
}

/** Any parseable timestamp → ISO 8601 UTC with milliseconds (`2024-05-01T08:00:00.000Z`). */
export function isoMillis(value: string | number | Date): string {
  return new Date(value).toISOString();
}

/** Code-unit order: deterministic across stores and engines. */
export const byId = <T extends { readonly id: string | number }>(a: T, b: T): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * What remains of a deleted location in the table: its id may not be taken again unawares, since
 * its documents stay in the report store (docs/locations-and-occupancy.md, "Deleting a location").
 */
export interface DeletedLocation {
  readonly id: string;
  readonly organizationId: string;
  /** ISO 8601 UTC with ms. */
  readonly deletedAt: string;
  readonly deletedBy: string | null;
  /** The revision of the deletion (the location's last). */
  readonly revision: number;
}
