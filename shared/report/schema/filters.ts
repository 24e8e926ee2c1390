import * as z from 'zod/mini';
import { NAME } from './common';

/**
 * Filters of the request language. Field names and value types are checked against the field
 * catalog when the plan is built (plan/build-plan.ts), where the collection is known.
 */

/** `{ "type": "terms", "field": "label", "values": ["car", "truck"] }`: the field equals one of the values. */
export const TermsFilterSchema = z.strictObject({
  type: z.literal('terms'),
  field: NAME,
  values: z.array(z.string().check(z.maxLength(512))).check(z.minLength(1), z.maxLength(1000)),
});

const RANGE_BOUND = z.optional(z.union([z.number(), z.string()]));

/**
 * `{ "type": "range", "field": "timestamp", "from": "...", "to": "..." }`: half-open, from inclusive,
 * to exclusive. Numbers for numeric fields, ISO 8601 strings with an offset or Z for date fields.
 */
export const RangeFilterSchema = z.strictObject({
  type: z.literal('range'),
  field: NAME,
  from: RANGE_BOUND,
  to: RANGE_BOUND,
});

export const FilterSchema = z.discriminatedUnion('type', [TermsFilterSchema, RangeFilterSchema]);

/** Documents with at least one nested item at `path` that matches all of `filters`. */
export const NestedFilterSchema = z.strictObject({
  path: NAME,
  filters: z.array(FilterSchema).check(z.minLength(1), z.maxLength(50)),
});

export type TermsFilterInput = z.infer<typeof TermsFilterSchema>;
export type RangeFilterInput = z.infer<typeof RangeFilterSchema>;
export type FilterInput = z.infer<typeof FilterSchema>;
export type NestedFilterInput = z.infer<typeof NestedFilterSchema>;
