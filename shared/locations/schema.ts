import * as z from 'zod/mini';
import { described, named } from '../openapi/registry';
import { canonicalTimeZone } from '../time/zones';
import { LOCATION_ID, WEEKDAYS } from './model';

/**
 * zod/mini schemas of the locations domain: what the import file may hold, what `POST /locations`
 * and `PUT /locations/{locationId}` take, and therefore what the table may hold. Semantic checks
 * that span several values (overlapping hours, duplicate ids) are in ./checks.ts so that every error
 * of a file or a body is reported at once. The descriptions are the OpenAPI document's.
 */

export { LOCATION_ID };
export const LocationIdSchema = z
  .string()
  .check(
    z.regex(LOCATION_ID, 'must be 1 to 128 characters: letters, digits, . _ ~ - (starting with a letter or digit)'),
  );

const WALL_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const WALL_TIME_OR_END = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;

export const OpeningIntervalSchema = named(
  z.strictObject({
    open: described(
      z.string().check(z.regex(WALL_TIME, 'must be HH:MM from 00:00 to 23:59')),
      'When the area opens, `HH:MM` in the location’s time zone.',
    ),
    close: described(
      z.string().check(z.regex(WALL_TIME_OR_END, 'must be HH:MM from 00:00 to 24:00')),
      'When it closes, `HH:MM` (`24:00`: the end of the day); earlier than `open`, it closes on the next day (overnight).',
    ),
  }),
  'OpeningInterval',
  'One opening interval of a day, wall-clock time in the location’s time zone.',
);

const dayIntervals = z.optional(z.array(OpeningIntervalSchema).check(z.maxLength(6, 'must have at most 6 intervals')));

/** `{ "monday": [{ "open": "08:00", "close": "20:00" }], ... }`; absent days are closed. */
export const OpeningHoursSchema = named(
  z.strictObject(
    Object.fromEntries(
      WEEKDAYS.map((d) => [
        d,
        described(
          dayIntervals,
          `Opening intervals on ${d[0]!.toUpperCase()}${d.slice(1)}s (at most 6, not overlapping); absent or empty: closed all day.`,
        ),
      ]),
    ) as Record<(typeof WEEKDAYS)[number], typeof dayIntervals>,
  ),
  'OpeningHours',
  'Opening hours per weekday in the location’s time zone. Occupancy is counted from each opening; a closed group has no live entry.',
);

const name128 = z
  .string()
  .check(z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters'));

export const CountingLineSchema = named(
  z.strictObject({
    trackingCameraId: described(name128, 'The camera that sees the line (`trackingCameraId` of its movement events).'),
    lineId: described(name128, 'The line (`crossedPaths.id` of the events).'),
    inDirection: described(
      z.enum(['A', 'B']),
      'The direction (`crossedPaths.end`) that means "in": a crossing towards it counts as an entry, the other way as an exit.',
    ),
  }),
  'CountingLine',
  'A line whose crossings count the people of a sensor group.',
);

/** Upper bound of sensor group ids (they are DynamoDB sort keys, zero-padded to 10 digits). */
export const MAX_SENSOR_GROUP_ID = 2_147_483_647;

/** Largest capacity of a sensor group (people or spots): a stadium fits, a typo of three zeros too many does not. */
export const MAX_CAPACITY = 1_000_000;

/**
 * What the service writes and answers but never takes from a request: accepted (so that an answer can be sent back as
 * it is) and ignored.
 */
const readOnly = (what: string) =>
  described(
    z.optional(z.nullable(z.string().check(z.maxLength(128, 'must be at most 128 characters')))),
    `${what} Set by the service: ignored when sent.`,
  );

export const CapacityChangeSchema = named(
  z.strictObject({
    since: described(z.string(), 'From when (ISO 8601 UTC).'),
    capacity: described(z.nullable(z.number()), 'The capacity from then on; null: none.'),
  }),
  'CapacityChange',
  'One entry of a capacity history: written by the service when a write changes the capacity.',
);

export const SensorGroupSchema = named(
  z.strictObject({
    id: described(
      z
        .int()
        .check(
          z.minimum(0, 'must be an integer ≥ 0'),
          z.maximum(MAX_SENSOR_GROUP_ID, `must be at most ${MAX_SENSOR_GROUP_ID}`),
        ),
      'The id of the group within its location (`sensorGroup.id` of live insights), unique there.',
    ),
    name: described(name128, 'What people call the area.'),
    capacity: described(
      z.optional(
        z.nullable(
          z
            .int()
            .check(
              z.minimum(1, `must be an integer from 1 to ${MAX_CAPACITY}`),
              z.maximum(MAX_CAPACITY, `must be an integer from 1 to ${MAX_CAPACITY}`),
            ),
        ),
      ),
      'How many people (or spots) the area holds; absent or null: none, and no utilization. A change is kept with its time, so a past period uses the capacity in force then.',
    ),
    capacityHistory: described(
      z.optional(z.array(CapacityChangeSchema).check(z.maxLength(1000, 'must have at most 1000 entries'))),
      'The capacities in force over time, oldest first. Set by the service: ignored when sent.',
    ),
    lines: described(
      z
        .array(CountingLineSchema)
        .check(z.minLength(1, 'must have at least 1 line'), z.maxLength(200, 'must have at most 200 lines')),
      'The lines that count it (1 to 200), each camera’s line once.',
    ),
    openingHours: described(OpeningHoursSchema, 'When the area is open.'),
  }),
  'SensorGroup',
  'An occupancy area of a location: counted by its lines, reset at each opening, with an optional capacity.',
);

export const TimeZoneSchema = z
  .string()
  .check(z.refine((v) => canonicalTimeZone(v) !== undefined, 'must be an IANA time zone name such as Europe/Berlin'));

const actor = z.optional(z.nullable(name128));

/** Most sensor groups per location. */
export const MAX_SENSOR_GROUPS = 50;

/**
 * One location, the desired state: of an import file, and of the body of `POST /locations` and
 * `PUT /locations/{locationId}` alike, so that a file and a request are refused for the same reasons
 * (the cross-checks of ./checks.ts too). `id` is generated (deterministically, see ./ids.ts) when
 * absent. `organizationId` is required in a file (./import.ts) and must be the caller's in a
 * request. `createdBy` and `updatedBy` are honoured from a file written into a table directly (the
 * import's own actor otherwise) and ignored in a request (the token's subject); `createdAt`,
 * `updatedAt` and the groups' `capacityHistory` are the service's and ignored, so that what
 * `GET /locations/{locationId}` answered can be sent back as it is.
 */
export const LocationInputSchema = named(
  z.strictObject({
    id: described(
      z.optional(LocationIdSchema),
      'The id (1 to 128 letters, digits, `.` `_` `~` `-`), as in `/locations/{locationId}`. POST: generated (a UUID) when absent; PUT: the path’s, when sent.',
    ),
    name: described(
      z.optional(name128),
      'What people call it. A new location without one is called by its id; a replacement without one keeps the name it had.',
    ),
    organizationId: described(
      z.optional(z.uuid('must be a UUID')),
      'The organization: the caller’s (a request naming another is refused); required in an import file.',
    ),
    type: described(name128, 'What kind of place it is (free text: `store`, `shopping-mall`, …).'),
    timezone: described(TimeZoneSchema, 'The IANA time zone (`Europe/Berlin`) of its opening hours.'),
    createdBy: described(
      actor,
      'Who created it. Set by the service from the token: ignored when sent (honoured from an import file written into a table directly).',
    ),
    updatedBy: described(
      actor,
      'Who changed it last. Set by the service from the token: ignored when sent (honoured from an import file written into a table directly).',
    ),
    createdAt: readOnly('When it was created.'),
    updatedAt: readOnly('When it was changed last.'),
    sensorGroups: described(
      z.optional(
        z
          .array(SensorGroupSchema)
          .check(z.maxLength(MAX_SENSOR_GROUPS, `must have at most ${MAX_SENSOR_GROUPS} sensor groups`)),
      ),
      `Its sensor groups (at most ${MAX_SENSOR_GROUPS}, ids unique): the whole list, so a group left out is removed.`,
    ),
  }),
  'LocationInput',
  'A location as POST and PUT take it, and as an import file lists it: the whole desired state. What GET answers may be sent back as it is (the fields the service sets are ignored).',
);

/** The whole import file: `{ "locations": [...] }`. */
export const ImportFileSchema = z.strictObject({
  locations: z.array(LocationInputSchema).check(z.maxLength(10_000, 'must have at most 10000 locations')),
});

export type LocationInput = z.infer<typeof LocationInputSchema>;
export type ImportFile = z.infer<typeof ImportFileSchema>;
