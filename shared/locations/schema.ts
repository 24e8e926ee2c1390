import * as z from 'zod/mini';
import { canonicalTimeZone } from '../time/zones';
import { LOCATION_ID, WEEKDAYS } from './model';

/**
 * zod/mini schemas of the locations domain: what the import file may hold, and therefore what the
 * table may hold. Semantic checks that span several values (overlapping hours, duplicate ids) are in
 * ./checks.ts so that every error of a file is reported at once.
 */

export { LOCATION_ID };
export const LocationIdSchema = z.string().check(
  z.regex(LOCATION_ID, 'must be 1 to 128 characters: letters, digits, . _ ~ - (starting with a letter or digit)'),
);

const WALL_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const WALL_TIME_OR_END = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;

export const OpeningIntervalSchema = z.strictObject({
  open: z.string().check(z.regex(WALL_TIME, 'must be HH:MM from 00:00 to 23:59')),
  close: z.string().check(z.regex(WALL_TIME_OR_END, 'must be HH:MM from 00:00 to 24:00')),
});

const dayIntervals = z.optional(z.array(OpeningIntervalSchema).check(z.maxLength(6, 'must have at most 6 intervals')));

/** `{ "monday": [{ "open": "08:00", "close": "20:00" }], ... }`; absent days are closed. */
export const OpeningHoursSchema = z.strictObject(
  Object.fromEntries(WEEKDAYS.map((d) => [d, dayIntervals])) as Record<(typeof WEEKDAYS)[number], typeof dayIntervals>,
);

const name128 = z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters'));

export const CountingLineSchema = z.strictObject({
  trackingCameraId: name128,
  lineId: name128,
  inDirection: z.enum(['A', 'B']),
});

/** Upper bound of sensor group ids (they are DynamoDB sort keys, zero-padded to 10 digits). */
export const MAX_SENSOR_GROUP_ID = 2_147_483_647;

export const SensorGroupSchema = z.strictObject({
  id: z.int().check(z.minimum(0, 'must be an integer ≥ 0'), z.maximum(MAX_SENSOR_GROUP_ID, `must be at most ${MAX_SENSOR_GROUP_ID}`)),
  name: name128,
  lines: z.array(CountingLineSchema).check(z.minLength(1, 'must have at least 1 line'), z.maxLength(200, 'must have at most 200 lines')),
  openingHours: OpeningHoursSchema,
});

export const TimeZoneSchema = z.string().check(
  z.refine((v) => canonicalTimeZone(v) !== undefined, 'must be an IANA time zone name such as Europe/Berlin'),
);

const actor = z.optional(z.nullable(name128));

/** One location of an import file. `id` is generated (deterministically, see ./ids.ts) when absent. */
export const LocationInputSchema = z.strictObject({
  id: z.optional(LocationIdSchema),
  organizationId: z.uuid('must be a UUID'),
  type: name128,
  timezone: TimeZoneSchema,
  createdBy: actor,
  updatedBy: actor,
  sensorGroups: z.optional(z.array(SensorGroupSchema).check(z.maxLength(50, 'must have at most 50 sensor groups'))),
});

/** The whole import file: `{ "locations": [...] }`. */
export const ImportFileSchema = z.strictObject({
  locations: z.array(LocationInputSchema).check(z.maxLength(10_000, 'must have at most 10000 locations')),
});

export type LocationInput = z.infer<typeof LocationInputSchema>;
export type ImportFile = z.infer<typeof ImportFileSchema>;
