/**
 * The locations domain: a location (the spec's fields, exactly) and the sensor groups configured
 * under it for live occupancy. Plain data, engine- and store-neutral.
 */

/** A location as stored and as answered by `GET /locations` (the spec's fields, in the spec's order). */
export interface Location {
  readonly id: string;
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

/** One counting line: line `lineId` as seen by camera `trackingCameraId`; crossing it ending on `inDirection` means "in". */
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

/** An occupancy area of a location: counted by its lines, reset at each opening. */
export interface SensorGroup {
  readonly id: number;
  readonly name: string;
  readonly lines: readonly CountingLine[];
  readonly openingHours: OpeningHours;
}

/** A location with its sensor groups (ordered by id). */
export interface LocationWithGroups {
  readonly location: Location;
  readonly sensorGroups: readonly SensorGroup[];
}

/** The response shape of one location: exactly the spec's fields, in the spec's order. */
export function toLocationResponse(l: Location): Location {
  return {
    id: l.id,
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
export const byId = <T extends { readonly id: string | number }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
