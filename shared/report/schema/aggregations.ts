import * as z from 'zod/mini';
import { FilterSchema } from './filters';

/**
 * The aggregation kinds. Every kind accepts `keyJoiner`: the separator placed after the name part
 * that the aggregation contributes (only terms and filters contribute parts; see shape/series.ts).
 */

const keyJoiner = z.optional(z.string().check(z.maxLength(16)));
const fieldName = z.string().check(z.minLength(1), z.maxLength(128));

/** Fixed `<n>s|m|h|d` or calendar `1w|1M|1q|1y`. */
export const HISTOGRAM_INTERVAL = /^(?:[1-9]\d{0,5}[smhd]|1[wMqy])$/;

export const TermsAggregationSchema = z.strictObject({
  type: z.literal('terms'),
  field: fieldName,
  keyJoiner,
});

export const StatsAggregationSchema = z.strictObject({
  type: z.literal('stats'),
  field: fieldName,
  min: z.optional(z.boolean()),
  max: z.optional(z.boolean()),
  avg: z.optional(z.boolean()),
  sum: z.optional(z.boolean()),
  count: z.optional(z.boolean()),
  keyJoiner,
});

export const DateHistogramAggregationSchema = z.strictObject({
  type: z.literal('dateHistogram'),
  field: z.optional(fieldName),
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

export const FiltersAggregationSchema = z.strictObject({
  type: z.literal('filters'),
  filters: z.record(z.string().check(z.minLength(1), z.maxLength(128)), FilterSchema),
  keyJoiner,
});

export const NestedAggregationSchema = z.strictObject({
  type: z.literal('nested'),
  path: fieldName,
  keyJoiner,
});

export const ReverseNestedAggregationSchema = z.strictObject({
  type: z.literal('reverseNested'),
  path: z.optional(fieldName),
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
