import * as z from 'zod/mini';
import { COLLECTIONS } from '../fields';
import { AggregationSchema } from './aggregations';
import { NAME } from './common';
import { FilterSchema, NestedFilterSchema } from './filters';

/** `<n><unit>` with unit s m h d w M q y, or `auto`. */
export const SPLIT_INTERVAL = /^(?:[1-9]\d{0,5}[smhdwMqy]|auto)$/;

/** Limits that keep one request cheap to validate and compile. Documented in the README. */
export const REQUEST_LIMITS = { aggregations: 10, filters: 50, nestedFilters: 10, locationIds: 500 } as const;

/** The body of `POST /reports:query`. */
export const ReportRequestSchema = z.strictObject({
  source: z.optional(z.enum(COLLECTIONS)),
  locationIds: z.optional(
    z.array(NAME).check(z.minLength(1), z.maxLength(REQUEST_LIMITS.locationIds)),
  ),
  filters: z.optional(z.array(FilterSchema).check(z.maxLength(REQUEST_LIMITS.filters))),
  nestedFilters: z.optional(z.array(NestedFilterSchema).check(z.maxLength(REQUEST_LIMITS.nestedFilters))),
  aggregations: z.array(AggregationSchema).check(z.minLength(1), z.maxLength(REQUEST_LIMITS.aggregations)),
  splitInterval: z.optional(
    z.string().check(z.regex(SPLIT_INTERVAL, 'must be <n><unit>, n from 1, unit one of s m h d w M q y, or auto')),
  ),
});

export type ReportRequest = z.infer<typeof ReportRequestSchema>;
