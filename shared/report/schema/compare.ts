import * as z from 'zod/mini';
import { described, named } from '../../openapi/registry';
import { timeZoneInput, TimeZoneNameSchema } from './vocabulary';

/** `<n><unit>`, n from 1 to 999, unit d w M q y: how much earlier the compared period lies. */
export const COMPARE_OFFSET = /^[1-9]\d{0,2}[dwMqy]$/;

/**
 * `compare`: the same report over an earlier period, answered beside the report's own period and
 * aligned bucket by bucket (docs/request-language.md#period-over-period-comparison).
 */
export const CompareSchema = named(
  z.strictObject({
    offset: described(
      z
        .string()
        .check(z.regex(COMPARE_OFFSET, 'must be <n>d, <n>w, <n>M, <n>q or <n>y, n from 1 to 999 (1w: a week earlier)')),
      "How much earlier the compared period lies, on the calendar of the report's time zone: `<n>d` days, `<n>w` weeks, `<n>M` months, `<n>q` quarters or `<n>y` years, n from 1 to 999. A month earlier than March 31 is February 29 (or 28): a day the earlier month lacks becomes its last day.",
    ),
    timeZone: described(
      timeZoneInput(),
      "The IANA time zone whose calendar the offset follows. With a dateHistogram it is the histogram's `timeZone` (left out, or the same zone); without one, `UTC` by default.",
      TimeZoneNameSchema,
    ),
  }),
  'Compare',
  'Asks for the same report over an earlier period as well: the timestamp range of `filters` moved `offset` earlier. The answer pairs the two periods bucket by bucket (`current` and `previous`). Needs a timestamp range filter with both `from` and `to`.',
);

export type CompareInput = z.infer<typeof CompareSchema>;
