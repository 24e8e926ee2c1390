import * as z from 'zod/mini';
import { described, named } from '../../openapi/registry';
import { AggregationSchema } from './aggregations';
import { NAME } from './common';
import { FilterSchema, NestedFilterSchema } from './filters';
import { CollectionSchema } from './vocabulary';
import { CompareSchema } from './compare';

/** `<n><unit>` with unit s m h d w M q y, or `auto`. */
export const SPLIT_INTERVAL = /^(?:[1-9]\d{0,5}[smhdwMqy]|auto)$/;

/** Limits that keep one request cheap to validate and compile. Documented in the README. */
export const REQUEST_LIMITS = { aggregations: 10, filters: 50, nestedFilters: 10, locationIds: 500 } as const;

/** The body of `POST /reports:query`. */
export const ReportRequestSchema = named(
  z.strictObject({
    source: described(
      z.optional(CollectionSchema),
      'The collection to read. Left out, it is the one collection that has every field the request names (a 400 asks for it when several or none do).',
      CollectionSchema,
    ),
    locationIds: described(
      z.optional(z.array(NAME).check(z.minLength(1), z.maxLength(REQUEST_LIMITS.locationIds))),
      `Narrows the report to these locations of the caller's organization (1 to ${REQUEST_LIMITS.locationIds} ids); all of them when left out.`,
    ),
    filters: described(
      z.optional(z.array(FilterSchema).check(z.maxLength(REQUEST_LIMITS.filters))),
      `Filters on fields of the document (up to ${REQUEST_LIMITS.filters}), all of which must hold.`,
    ),
    nestedFilters: described(
      z.optional(z.array(NestedFilterSchema).check(z.maxLength(REQUEST_LIMITS.nestedFilters))),
      `Conditions on nested items (up to ${REQUEST_LIMITS.nestedFilters}): a document must have, for each entry, an item that passes all of its filters.`,
    ),
    aggregations: described(
      z.array(AggregationSchema).check(z.minLength(1), z.maxLength(REQUEST_LIMITS.aggregations)),
      `The pipeline (1 to ${REQUEST_LIMITS.aggregations} stages): each stage splits or narrows the buckets of the one before; dateHistogram only first, stats only last.`,
    ),
    splitInterval: described(
      z.optional(
        z.string().check(z.regex(SPLIT_INTERVAL, 'must be <n><unit>, n from 1, unit one of s m h d w M q y, or auto')),
      ),
      'Runs a long time series in slices of this length, merged exactly: `<n><unit>` with unit s, m, h, d, w, M, q or y (`1M`), or `auto`. Only when the first stage is dateHistogram and a timestamp range filter has both `from` and `to`. Slicing does not let an answer grow past what one may hold: at most 262,140 buckets in all (time buckets, the `filters` buckets under each, `terms` keys), else 422 `too-many-buckets` naming the interval, before any slice runs where the request says as much.',
    ),
    compare: described(
      z.optional(CompareSchema),
      'Also answers the report over an earlier period (`{ "offset": "1w" }`: the week before), paired with this one bucket by bucket; the answer is then `[{ "current": …, "previous": … }, …]` (or one such object without a dateHistogram). Both periods count toward the deadline and the bucket bound of one answer.',
      CompareSchema,
    ),
  }),
  'ReportRequest',
  'A report: which documents (source, locationIds, filters, nestedFilters) and how to count them (aggregations, a pipeline of stages).',
);

export type ReportRequest = z.infer<typeof ReportRequestSchema>;
