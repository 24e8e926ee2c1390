import * as z from 'zod/mini';
import { NAME, OPTIONAL_FLAG, OPTIONAL_NAME } from './common';
import { FilterSchema } from './filters';

/**
 * The aggregation kinds. Every kind accepts `keyJoiner`: the separator placed after the name part
 * that the aggregation contributes (only terms and filters contribute parts; see shape/series.ts).
 */

const keyJoiner = z.optional(z.string().check(z.maxLength(16)));

/** Fixed `<n>s|m|h|d` or calendar `1w|1M|1q|1y`. */
export const HISTOGRAM_INTERVAL = /^(?:[1-9]\d{0,5}[smhd]|1[wMqy])$/;

export const TermsAggregationSchema = z.strictObject({
  type: z.literal('terms'),
  field: NAME,
  keyJoiner,
});

export const StatsAggregationSchema = z.strictObject({
  type: z.literal('stats'),
  field: NAME,
  min: OPTIONAL_FLAG,
  max: OPTIONAL_FLAG,
  avg: OPTIONAL_FLAG,
  sum: OPTIONAL_FLAG,
  count: OPTIONAL_FLAG,
  keyJoiner,
});

export const DateHistogramAggregationSchema = z.strictObject({
  type: z.literal('dateHistogram'),
  field: OPTIONAL_NAME,
  interval: z.string().check(
    z.regex(HISTOGRAM_INTERVAL, 'must be <n>s, <n>m, <n>h or <n>d (fixed, n from 1) or 1w, 1M, 1q, 1y (calendar)'),
  ),
  timeZone: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  keyJoiner,
});

export const FilterAggregationSchema = z.strictObject({
  type: z.literal('filter'),
  filter: FilterSchema,
  keyJoiner,
});

/**
 * The one bucket name refused: zod builds a record into a plain object and skips this key (an
 * assignment would set the prototype), so its filter would vanish unchecked; and every bucket name
 * becomes a property name of the answer, where JavaScript clients trip on it the same way. A 400
 * names it (the path ends in `/__proto__`) instead of a silently smaller report.
 */
export const RESERVED_BUCKET_NAME = '__proto__';

const withoutReservedName = z.custom<unknown>((value) => !(typeof value === 'object' && value !== null && Object.hasOwn(value, RESERVED_BUCKET_NAME)), {
  message: `"${RESERVED_BUCKET_NAME}" is reserved; name the bucket otherwise`,
  path: [RESERVED_BUCKET_NAME],
});

export const FiltersAggregationSchema = z.strictObject({
  type: z.literal('filters'),
  filters: z.pipe(withoutReservedName, z.record(NAME, FilterSchema)),
  keyJoiner,
});

export const NestedAggregationSchema = z.strictObject({
  type: z.literal('nested'),
  path: NAME,
  keyJoiner,
});

export const ReverseNestedAggregationSchema = z.strictObject({
  type: z.literal('reverseNested'),
  path: OPTIONAL_NAME,
  keyJoiner,
});

export const AggregationSchema = z.discriminatedUnion('type', [
  TermsAggregationSchema,
  StatsAggregationSchema,
  DateHistogramAggregationSchema,
  FilterAggregationSchema,
  FiltersAggregationSchema,
  NestedAggregationSchema,
  ReverseNestedAggregationSchema,
]);

export type AggregationInput = z.infer<typeof AggregationSchema>;
