import * as z from 'zod/mini';
import { described, named } from '../../openapi/registry';
import { fieldName, NAME } from './common';
import { NestedPathSchema, RangeBoundSchema } from './vocabulary';

/**
 * Filters of the request language. Field names and value types are checked against the field
 * catalog when the plan is built (plan/build-plan.ts), where the collection is known.
 */

/** `{ "type": "terms", "field": "label", "values": ["car", "truck"] }`: the field equals one of the values. */
export const TermsFilterSchema = named(
  z.strictObject({
    type: described(z.literal('terms'), 'The kind of filter.'),
    field: fieldName(
      'A keyword field: of the document in `filters`, of the nested items in `nestedFilters` and inside a `nested` aggregation.',
    ),
    values: described(
      z.array(z.string().check(z.maxLength(512))).check(z.minLength(1), z.maxLength(1000)),
      'The values the field may equal (1 to 1000, each at most 512 characters): the filter holds when it equals any of them.',
    ),
  }),
  'TermsFilter',
  'Holds when a keyword field equals one of the values.',
);

const RANGE_BOUND = z.optional(z.union([z.number(), z.string()]));

/**
 * `{ "type": "range", "field": "timestamp", "from": "...", "to": "..." }`: half-open, from inclusive,
 * to exclusive. Numbers for numeric fields, ISO 8601 strings with an offset or Z for date fields.
 */
export const RangeFilterSchema = named(
  z.strictObject({
    type: described(z.literal('range'), 'The kind of filter.'),
    field: fieldName('A number or date field.'),
    from: described(
      RANGE_BOUND,
      'The lower bound, inclusive. Left out: no lower bound (but `from` and `to` may not both be left out).',
      RangeBoundSchema,
    ),
    to: described(
      RANGE_BOUND,
      'The upper bound, exclusive (so a range ending at midnight holds nothing of the next day); after `from`.',
      RangeBoundSchema,
    ),
  }),
  'RangeFilter',
  'Holds when a number or date field lies in [from, to): `from` inclusive, `to` exclusive; either may be left out, not both.',
);

export const FilterSchema = named(
  z.discriminatedUnion('type', [TermsFilterSchema, RangeFilterSchema]),
  'Filter',
  'A condition on one field, by `type`: terms (equal to one of some values) or range.',
);

/** Documents with at least one nested item at `path` that matches all of `filters`. */
export const NestedFilterSchema = named(
  z.strictObject({
    path: described(NAME, 'The nested items the filters apply to.', NestedPathSchema),
    filters: described(
      z.array(FilterSchema).check(z.minLength(1), z.maxLength(50)),
      'Filters on fields of those items (1 to 50), all of which one item must pass.',
    ),
  }),
  'NestedFilter',
  'Keeps the documents that have at least one nested item at `path` passing every filter; a `nested` aggregation on the same path then counts only such items.',
);

export type FilterInput = z.infer<typeof FilterSchema>;
