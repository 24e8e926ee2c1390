import * as z from 'zod/mini';
import { ValidationError } from '../errors';
import { isNotBeforeFloor, TIMESTAMP_FLOOR_MESSAGE, TIMESTAMP_FORMAT_MESSAGE } from '../time/timestamps';
import { issuesToErrors } from '../validation';
import { fastParser, type FastParse } from './fast-parse';
import { oppositeDirection, type Collection } from './fields';

/**
 * The stored documents of the three collections, as the seed/ingest CLI, OpenSearch bulk indexing
 * and the DuckDB appender accept them. Field names are the catalog's (shared/documents/fields.ts);
 * every document carries `organizationId` and `locationId`. Objects are strict, as the index
 * mappings are (`dynamic: strict`): an unknown property is refused rather than silently dropped.
 */

/**
 * A lone surrogate (`"\ud800"` in JSON) is no character: each store would write U+FFFD in its
 * place, a value the client never sent. The line is refused instead, naming the field.
 */
const LONE_SURROGATE = /\p{Cs}/u;
const WELL_FORMED_MESSAGE =
  'must be well-formed Unicode text: a lone surrogate (such as \\ud800 without its pair) is not a character';
const text = z.string().check(
  z.minLength(1),
  z.maxLength(512),
  z.refine((s) => !LONE_SURROGATE.test(s), WELL_FORMED_MESSAGE),
);
/**
 * Each number by what it means (docs/ingest.md, "What each number may be"): a duration (a parking
 * stay, the time spent in a polygon) is seconds from 0 to {@link MAX_SECONDS}; a lot's occupied,
 * free and total spots are from 0 to {@link MAX_SPOTS}, occupied and free within total (fractions
 * allowed: a gateway may send a lot's average over its interval, 2.5 spots).
 * So no sum an engine computes can overflow (2^53 documents at the largest value stay below 1e25, a
 * double's range ends near 1.8e308), and every engine and path answers a finite number.
 */
const MAX_SECONDS = 1_000_000_000;
const MAX_SPOTS = 1_000_000;
const seconds = z
  .number()
  .check(
    z.refine(
      (v) => Number.isFinite(v) && v >= 0 && v <= MAX_SECONDS,
      `must be a number of seconds from 0 to ${MAX_SECONDS.toLocaleString('en-US')} (about 31 years)`,
    ),
  );
const spots = z
  .number()
  .check(
    z.refine(
      (v) => Number.isFinite(v) && v >= 0 && v <= MAX_SPOTS,
      `must be a number of spots from 0 to ${MAX_SPOTS.toLocaleString('en-US')}`,
    ),
  );
const isoFormat = z.iso.datetime({ offset: true, error: TIMESTAMP_FORMAT_MESSAGE });
const isoTimestamp = isoFormat.check(z.refine((t) => isNotBeforeFloor(Date.parse(t)), TIMESTAMP_FLOOR_MESSAGE));
const direction = z.enum(['A', 'B']);

const common = {
  /** Document id: the OpenSearch `_id`; writing the same id again (same month) replaces the document. */
  id: z.optional(text),
  organizationId: text,
  locationId: text,
  timestamp: isoTimestamp,
};

export const CrossedPathSchema = z.strictObject({
  id: text,
  end: direction,
  /** Deprecated: the inverse of `end`, derived when absent. */
  start: z.optional(direction),
});

export const PolygonSchema = z.strictObject({ id: text, value: seconds });

export const MovementEventSchema = z.strictObject({
  ...common,
  trackingCameraId: z.optional(text),
  label: z.optional(text),
  crossedPaths: z.optional(z.array(CrossedPathSchema)),
  polygons: z.optional(z.array(PolygonSchema)),
});

export const ParkingLotStatsSchema = z.strictObject({
  ...common,
  parkingLotId: z.optional(text),
  occupied: z.optional(spots),
  free: z.optional(spots),
  total: z.optional(spots),
});

export const ParkingEventSchema = z.strictObject({
  ...common,
  parkingLotId: z.optional(text),
  cameraId: z.optional(text),
  duration: z.optional(seconds),
  spotId: z.optional(text),
  startingTimestamp: z.optional(isoTimestamp),
});

export const DOCUMENT_SCHEMAS = {
  movementEvents: MovementEventSchema,
  parkingLotStats: ParkingLotStatsSchema,
  parkingEvents: ParkingEventSchema,
} as const satisfies Record<Collection, z.ZodMiniType>;

/** A document as written by a client (timestamps as ISO 8601 strings). */
export type DocumentInput<C extends Collection = Collection> = z.infer<(typeof DOCUMENT_SCHEMAS)[C]>;

interface DocumentBase {
  readonly id?: string;
  readonly organizationId: string;
  readonly locationId: string;
  /** Epoch ms. */
  readonly timestamp: number;
}

export interface MovementEventDocument extends DocumentBase {
  readonly trackingCameraId?: string;
  readonly label?: string;
  /** `start` is always present (derived from `end` when the input had none). */
  readonly crossedPaths?: readonly { readonly id: string; readonly end: 'A' | 'B'; readonly start: 'A' | 'B' }[];
  readonly polygons?: readonly { readonly id: string; readonly value: number }[];
}

export interface ParkingLotStatsDocument extends DocumentBase {
  readonly parkingLotId?: string;
  readonly occupied?: number;
  readonly free?: number;
  readonly total?: number;
}

export interface ParkingEventDocument extends DocumentBase {
  readonly parkingLotId?: string;
  readonly cameraId?: string;
  readonly duration?: number;
  readonly spotId?: string;
  /** Epoch ms. */
  readonly startingTimestamp?: number;
}

interface DocumentsByCollection {
  readonly movementEvents: MovementEventDocument;
  readonly parkingLotStats: ParkingLotStatsDocument;
  readonly parkingEvents: ParkingEventDocument;
}

/** A validated document as the engines store it: dates as epoch ms, crossedPaths[].start filled in. */
export type ReportDocument<C extends Collection = Collection> = DocumentsByCollection[C];

/**
 * Validates one document of a collection and normalizes it (dates to epoch ms, derived start).
 * Throws ValidationError listing every problem; `pathPrefix` (e.g. `/12`) locates it in a batch.
 */
export function parseDocument<C extends Collection>(collection: C, input: unknown, pathPrefix = ''): ReportDocument<C> {
  let data = FAST_PARSERS[collection]?.(input);
  if (data === undefined) {
    const schema = DOCUMENT_SCHEMAS[collection] as z.ZodMiniType;
    const result = schema.safeParse(input, { reportInput: true });
    if (!result.success) throw new ValidationError(issuesToErrors(schema, input, result.error.issues, pathPrefix));
    data = result.data;
  }
  if (collection === 'parkingLotStats') refuseBeyondTotal(data as ParkingLotStatsDocument, pathPrefix);
  return normalize(data as Record<string, unknown>, SORTED_FIELDS[collection]) as unknown as ReportDocument<C>;
}

/** A lot's occupied and free spots are each within its total (when the document gives the total). */
function refuseBeyondTotal(doc: ParkingLotStatsDocument, pathPrefix: string): void {
  const { total } = doc;
  if (total === undefined) return;
  const errors = (['occupied', 'free'] as const)
    .filter((name) => (doc[name] ?? 0) > total)
    .map((name) => ({
      path: `${pathPrefix}/${name}`,
      message: `must be at most total (${total}): a lot has no more ${name} spots than spots`,
    }));
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * What each leaf schema above accepts, for the fast parse of the common valid document
 * (./fast-parse.ts: zod's own output or "not sure", never another answer; the property test in
 * test/unit/documents/fast-parse.test.ts holds it to zod). The timestamp's pattern is zod's own.
 */
const ISO_PATTERN = (isoFormat._zod.def as unknown as { readonly pattern: RegExp }).pattern;
const LEAVES = new Map<z.ZodMiniType, (value: unknown) => boolean>([
  [text, (v) => typeof v === 'string' && v.length >= 1 && v.length <= 512 && !LONE_SURROGATE.test(v)],
  [seconds, (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_SECONDS],
  [spots, (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_SPOTS],
  [isoTimestamp, (v) => typeof v === 'string' && ISO_PATTERN.test(v) && isNotBeforeFloor(Date.parse(v))],
  [direction, (v) => v === 'A' || v === 'B'],
]);

/** Each collection's fast parse (undefined if its schema has a part the fast parse does not know: then zod alone). */
export const FAST_PARSERS = Object.fromEntries(
  Object.entries(DOCUMENT_SCHEMAS).map(([c, schema]) => [c, fastParser(schema, LEAVES)]),
) as Record<Collection, FastParse | undefined>;

/**
 * Each collection's fields in sorted order, as the identity's canonical JSON has them
 * (./identity.ts): a document built in this order is written as it is, not copied sorted.
 */
const SORTED_FIELDS = Object.fromEntries(
  Object.entries(DOCUMENT_SCHEMAS).map(([c, schema]) => [c, Object.keys(schema.shape).sort()]),
) as unknown as Record<Collection, readonly string[]>;

function normalize(doc: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of fields) {
    const value = doc[name];
    if (value === undefined) continue;
    // The schema checked the ISO 8601 form (years 1970-9999), which Date.parse reads to the millisecond.
    if (name === 'timestamp' || name === 'startingTimestamp') out[name] = Date.parse(value as string);
    else if (name === 'crossedPaths') {
      out[name] = (value as { id: string; end: 'A' | 'B'; start?: 'A' | 'B' }[]).map((p) => ({
        end: p.end,
        id: p.id,
        start: p.start ?? (oppositeDirection(p.end) as 'A' | 'B'),
      }));
    } else out[name] = value;
  }
  return out;
}
