import * as z from 'zod/mini';

/**
 * Filters of the request language. Field names and value types are checked against the field
 * catalog when the plan is built (plan/build-plan.ts), where the collection is known.
 */

const fieldName = z.string().check(z.minLength(1), z.maxLength(128));

/** `{ "type": "terms", "field": "label", "values": ["car", "truck"] }`: the field equals one of the values. */
export const TermsFilterSchema = z.strictObject({
  type: z.literal('terms'),
  field: fieldName,
  values: z.array(z.string().check(z.maxLength(512))).check(z.minLength(1), z.maxLength(1000)),
});

/**
 * `{ "type": "range", "field": "timestamp", "from": "...", "to": "..." }`: half-open, from inclusive,
 * to exclusive. Numbers for numeric fields, ISO 8601 strings with an offset or Z for date fields.
 */
export const RangeFilterSchema = z.strictObject({
  type: z.literal('range'),
  field: fieldName,
  from: z.optional(z.union([z.number(), z.string()])),
  to: z.optional(z.union([z.number(), z.string()])),
});

export const FilterSchema = z.discriminatedUnion('type', [TermsFilterSchema, RangeFilterSchema]);

/** Documents with at least one nested item at `path` that matches all of `filters`. */
export const NestedFilterSchema = z.strictObject({
  path: fieldName,
  filters: z.array(FilterSchema).check(z.minLength(1), z.maxLength(50)),
});

export type TermsFilterInput = z.infer<typeof TermsFilterSchema>;
export type RangeFilterInput = z.infer<typeof RangeFilterSchema>;
export type FilterInput = z.infer<typeof FilterSchema>;
export type NestedFilterInput = z.infer<typeof NestedFilterSchema>;
