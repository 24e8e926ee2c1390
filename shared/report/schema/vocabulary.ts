import * as z from 'zod/mini';
import { named } from '../../openapi/registry';
import { CATALOG, COLLECTIONS, NESTED_PATHS, type Collection, type FieldDef } from '../../documents/fields';
import { TIME_ZONE_PATTERN } from '../../time/zones';

/**
 * The request language's words, from the field catalog, as named schemas: which collections, which
 * fields each has, which nested paths, what a timestamp is. `source` validates with
 * CollectionSchema; the others are what the OpenAPI document shows in place of the plain strings
 * that zod checks (`documentAs`), because the service checks field names and paths later, against the
 * collection, with messages that name what is allowed at that place.
 */

export const CollectionSchema = named(
  z.enum(COLLECTIONS),
  'Collection',
  'A collection of documents: movement events, parking lot stats or parking events.',
);

const describeField = (f: FieldDef): string =>
  [
    f.name,
    ` (${f.kind}`,
    f.nestedPath ? `, in nested ${f.nestedPath} items` : '',
    f.deprecated ? ', deprecated' : '',
    ')',
  ].join('');

/** `movementEvents` → `MovementEventsField`: the component of that collection's field names. */
export const fieldComponentOf = (collection: Collection): string =>
  `${collection[0]!.toUpperCase()}${collection.slice(1)}Field`;

/** One enum of field names per collection. */
export const FIELD_SCHEMAS: Readonly<Record<Collection, z.ZodMiniEnum>> = Object.fromEntries(
  COLLECTIONS.map((c) => {
    const fields = [...CATALOG[c].values()];
    const names = fields.map((f) => f.name) as [string, ...string[]];
    return [c, named(z.enum(names), fieldComponentOf(c), `A field of ${c}: ${fields.map(describeField).join(', ')}.`)];
  }),
) as Record<Collection, z.ZodMiniEnum>;

/**
 * Any collection's field name: the union of the per-collection enums, since `source` may be left out
 * and is then inferred from the fields themselves.
 */
export const FieldNameSchema = named(
  z.union(COLLECTIONS.map((c) => FIELD_SCHEMAS[c]) as [z.ZodMiniEnum, ...z.ZodMiniEnum[]]),
  'FieldName',
  'A field name of one of the collections. The request reads one collection (`source`, or the one that has every field named), and each place takes fields of a kind: the service answers 400 naming the fields allowed there.',
);

export const NestedPathSchema = named(
  z.enum(NESTED_PATHS),
  'NestedPath',
  'A nested document path: `crossedPaths` and `polygons` (items of movement events).',
);

export const TimestampSchema = named(
  z.iso.datetime({ offset: true }),
  'Timestamp',
  'An RFC 3339 date-time with `Z` or an offset, fractions allowed (`2024-03-01T00:00:00Z`, `2024-03-01T01:00:00.5+01:00`), from 1970-01-01T00:00:00Z on; a bound finer than a millisecond is rounded up to the next millisecond.',
);

export const RangeBoundSchema = named(
  z.union([z.number(), TimestampSchema]),
  'RangeBound',
  'A bound of a range: a number for a number field, a Timestamp for a date field (`timestamp`, `startingTimestamp`).',
);

/**
 * A `timeZone` as zod checks it (1 to 64 characters: the plan builder then refuses a zone ICU does
 * not know, naming the field, as one message for every such place), and the component the OpenAPI
 * document shows for it, with the pattern of a zone name, so that a client validating against the
 * document refuses `+01:00` before sending it.
 */
export const timeZoneInput = () => z.optional(z.string().check(z.minLength(1), z.maxLength(64)));

export const TimeZoneNameSchema = named(
  z.string().check(z.minLength(1), z.maxLength(64), z.regex(TIME_ZONE_PATTERN)),
  'TimeZone',
  "An IANA time zone name (`Europe/Berlin`, `America/New_York`, `UTC`); offsets such as `+01:00` are refused, since they ignore daylight saving time. A name the service's time zone database does not know is a 400 naming the field.",
);
