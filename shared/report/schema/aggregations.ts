import * as z from 'zod/mini';
import { described, named } from '../../openapi/registry';
import { fieldName, NAME, OPTIONAL_FLAG, OPTIONAL_NAME } from './common';
import { FilterSchema } from './filters';
import { NestedPathSchema, timeZoneInput, TimeZoneNameSchema } from './vocabulary';
import { EXACT_PERCENTILE_VALUES, MAX_PERCENTILES } from '../percentiles/hazen';

/**
 * The aggregation kinds. Every kind accepts `keyJoiner`: the separator placed after the name part
 * that the aggregation contributes (only terms and filters contribute parts; see shape/series.ts).
 */

const keyJoiner = described(
  z.optional(z.string().check(z.maxLength(16))),
  'The separator written after the name part this stage contributes to series names (terms and filters stages contribute one); at most 16 characters, one space by default.',
);

const kind = <T extends string>(name: T) => described(z.literal(name), 'The kind of aggregation.');

/** Fixed `<n>s|m|h|d` or calendar `1w|1M|1q|1y`. */
export const HISTOGRAM_INTERVAL = /^(?:[1-9]\d{0,5}[smhd]|1[wMqy])$/;

export const TermsAggregationSchema = named(
  z.strictObject({
    type: kind('terms'),
    field: fieldName(
      'A keyword field of the level this stage is at: the document, or the items of the enclosing `nested` stage.',
    ),
    keyJoiner,
  }),
  'TermsAggregation',
  'One bucket per value of a keyword field, every value up to the cap (`X-Report-Truncated` says when some were left out); the value is a name part.',
);

const stat = (name: string, meaning: string) =>
  described(OPTIONAL_FLAG, `Whether to answer the ${meaning} (\`<name parts> ${name}\`).`);

export const StatsAggregationSchema = named(
  z.strictObject({
    type: kind('stats'),
    field: fieldName('A number field of the level this stage is at.'),
    min: stat('min', 'smallest value'),
    max: stat('max', 'largest value'),
    avg: stat('avg', 'average (sum / count of the bucket); the only stat answered when none is set'),
    sum: stat('sum', 'sum (0 over no values)'),
    count: stat('count', 'number of values (0 over none)'),
    median: stat('median', 'median, percentile 50 as `percentiles` computes it (absent over no values)'),
    percentiles: described(
      z.optional(
        z
          .array(
            z
              .number()
              .check(z.gte(0, 'must be a percent from 0 to 100'), z.lte(100, 'must be a percent from 0 to 100')),
          )
          .check(z.minLength(1), z.maxLength(MAX_PERCENTILES)),
      ),
      `Percentiles to answer, 1 to ${MAX_PERCENTILES} distinct percents from 0 to 100 with at most 2 decimals (\`[50, 90, 99.9]\`), each as \`<name parts> p<percent>\` (\`p90\`, \`p99.9\`), absent over no values. Exact (Hazen's definition: linear between the sorted values at ranks (i + ½) / n) while a bucket holds at most ${EXACT_PERCENTILE_VALUES} values; beyond, OpenSearch estimates them (a t-digest), see the request language's "Percentiles". Not with \`splitInterval\`.`,
    ),
    keyJoiner,
  }),
  'StatsAggregation',
  'Statistics of a number field, only as the last stage: the stats set to true and the percentiles asked for (avg alone by default); at least one.',
);

export const DateHistogramAggregationSchema = named(
  z.strictObject({
    type: kind('dateHistogram'),
    field: described(
      OPTIONAL_NAME,
      'The field of the buckets: `timestamp`, the only one allowed, which is also the default.',
      z.literal('timestamp'),
    ),
    interval: described(
      z
        .string()
        .check(
          z.regex(
            HISTOGRAM_INTERVAL,
            'must be <n>s, <n>m, <n>h or <n>d (fixed, n from 1) or 1w, 1M, 1q, 1y (calendar)',
          ),
        ),
      'The bucket length: `<n>s`, `<n>m`, `<n>h` or `<n>d` (n from 1, a fixed length aligned to the epoch in local time) or `1d`, `1w` (from Monday), `1M`, `1q`, `1y`, which follow the calendar of `timeZone`.',
    ),
    timeZone: described(
      timeZoneInput(),
      'The IANA time zone the buckets are aligned in (`Europe/Berlin`); `UTC` by default. Bucket timestamps are always written in UTC.',
      TimeZoneNameSchema,
    ),
    keyJoiner,
  }),
  'DateHistogramAggregation',
  'Time buckets, only as the first stage: the answer is then an array of buckets (shape 1). With a timestamp range filter the buckets span the whole range.',
);

/** The units of a profile stage, and the keys each makes (in the order answers list them). */
export const PROFILE_UNITS = ['hour', 'weekday'] as const;

export const ProfileAggregationSchema = named(
  z.strictObject({
    type: kind('profile'),
    unit: described(
      z.enum(PROFILE_UNITS),
      'What to group by: `hour`, the local hour of day (keys `00:00` to `23:00`), or `weekday`, the local day of the week (keys `monday` to `sunday`).',
    ),
    timeZone: described(
      timeZoneInput(),
      "The IANA time zone whose wall clock gives each document's hour or weekday (`Europe/Berlin`); `UTC` by default.",
      TimeZoneNameSchema,
    ),
    keyJoiner,
  }),
  'ProfileAggregation',
  'One bucket per local hour of day or day of week that has documents (a daily or weekly profile); the hour (`00:00`..`23:00`) or weekday (`monday`..`sunday`) is a name part, listed in clock order. Only on documents, not inside a `nested` stage.',
);

export const FilterAggregationSchema = named(
  z.strictObject({
    type: kind('filter'),
    filter: described(FilterSchema, 'The filter the documents (or nested items) of the bucket pass.', FilterSchema),
    keyJoiner,
  }),
  'FilterAggregation',
  'Narrows to one bucket of what passes the filter; adds no name part.',
);

/**
 * The one bucket name refused: zod builds a record into a plain object and skips this key (an
 * assignment would set the prototype), so its filter would vanish unchecked; and every bucket name
 * becomes a property name of the answer, where JavaScript clients trip on it the same way. A 400
 * names it (the path ends in `/__proto__`) instead of a silently smaller report.
 */
export const RESERVED_BUCKET_NAME = '__proto__';

const withoutReservedName = z.custom<unknown>(
  (value) => !(typeof value === 'object' && value !== null && Object.hasOwn(value, RESERVED_BUCKET_NAME)),
  {
    message: `"${RESERVED_BUCKET_NAME}" is reserved; name the bucket otherwise`,
    path: [RESERVED_BUCKET_NAME],
  },
);

export const FiltersAggregationSchema = named(
  z.strictObject({
    type: kind('filters'),
    filters: described(
      z.pipe(withoutReservedName, z.record(NAME, FilterSchema)),
      `One bucket per entry (1 to 100), in request order, empty ones included: the entry's name (1 to 128 characters, not "${RESERVED_BUCKET_NAME}") is the bucket's name part, its filter what the bucket holds.`,
    ),
    keyJoiner,
  }),
  'FiltersAggregation',
  'Named buckets, one per filter; each name is a name part.',
);

export const NestedAggregationSchema = named(
  z.strictObject({
    type: kind('nested'),
    path: described(
      NAME,
      'The nested items to step into; the stages after this one count them, and only those that pass the `nestedFilters` of the same path.',
      NestedPathSchema,
    ),
    keyJoiner,
  }),
  'NestedAggregation',
  'Steps into nested items: the stages after it count items, not documents; adds no name part.',
);

export const ReverseNestedAggregationSchema = named(
  z.strictObject({
    type: kind('reverseNested'),
    path: described(
      OPTIONAL_NAME,
      'An enclosing nested path to step back to. Left out, it steps back to the document, which is the only way today: no collection nests items inside items, so any path is refused.',
      NestedPathSchema,
    ),
    keyJoiner,
  }),
  'ReverseNestedAggregation',
  'Steps back from nested items to the document, only inside a `nested` stage: the stages after it count documents again; adds no name part.',
);

export const AggregationSchema = named(
  z.discriminatedUnion('type', [
    TermsAggregationSchema,
    StatsAggregationSchema,
    DateHistogramAggregationSchema,
    ProfileAggregationSchema,
    FilterAggregationSchema,
    FiltersAggregationSchema,
    NestedAggregationSchema,
    ReverseNestedAggregationSchema,
  ]),
  'Aggregation',
  'A stage of the pipeline, by `type`: each stage splits or narrows the buckets of the one before it.',
);

export type AggregationInput = z.infer<typeof AggregationSchema>;
