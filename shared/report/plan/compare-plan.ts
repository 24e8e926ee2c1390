import { shiftEarlier } from '../../time/calendar-shift';
import { isNotBeforeFloor, TIMESTAMP_FLOOR_MESSAGE } from '../../time/timestamps';
import { canonicalTimeZone } from '../../time/zones';
import type { AggregationInput } from '../schema/aggregations';
import type { CompareInput } from '../schema/compare';
import type { FieldChecker } from './field-checker';
import type { AggNode, Compare, TimeRange } from './plan';
import { parseAmount } from './time';

/**
 * The request's `compare` → the plan's, errors recorded in `check`. It moves the timestamp range of
 * `filters`: it needs one with both ends, and a timestamp range inside a stage, which would not move,
 * is refused rather than silently empty in the earlier period. The offset follows the histogram's
 * calendar (one zone for buckets and shift), or `timeZone` (UTC by default) without a histogram.
 */
export function comparePlan(
  check: FieldChecker,
  input: CompareInput,
  pipeline: readonly AggNode[],
  aggs: readonly AggregationInput[],
  timeRange?: TimeRange,
): Compare {
  if (timeRange?.from === undefined || timeRange.to === undefined) {
    check.error(
      '/compare',
      'compare needs a range filter on timestamp with both from and to: the period to compare with an earlier one',
    );
  }
  aggs.forEach((agg, i) => {
    const named =
      agg.type === 'filter'
        ? [['filter', agg.filter] as const]
        : agg.type === 'filters'
          ? Object.entries(agg.filters).map(([k, f]) => [`filters/${k}`, f] as const)
          : [];
    for (const [where, f] of named) {
      if (f.field === 'timestamp')
        check.error(
          `/aggregations/${i}/${where}/field`,
          'compare moves only the timestamp range of filters; a timestamp filter in a stage would not move to the earlier period',
        );
    }
  });
  const histogram = pipeline[0]?.kind === 'dateHistogram' ? pipeline[0] : undefined;
  const asked = input.timeZone === undefined ? undefined : canonicalTimeZone(input.timeZone);
  if (input.timeZone !== undefined && !asked)
    check.error('/compare/timeZone', 'must be an IANA time zone name such as Europe/Berlin or UTC');
  if (histogram && asked && asked !== histogram.timeZone) {
    check.error(
      '/compare/timeZone',
      `must be left out or be the dateHistogram's timeZone (${histogram.timeZone}): buckets and offset follow one calendar`,
    );
  }
  const compare: Compare = {
    offset: parseAmount(input.offset) as Compare['offset'],
    timeZone: histogram?.timeZone ?? asked ?? 'UTC',
  };
  // The earlier period is bucketed as the report's own is: it must start at the floor or later too.
  const from = timeRange?.from;
  if (from !== undefined && (input.timeZone === undefined || asked)) {
    const earlier = shiftEarlier(from, compare.offset, compare.timeZone);
    if (!isNotBeforeFloor(earlier)) {
      check.error(
        '/compare/offset',
        `moves the period's start to ${new Date(earlier).toISOString()}; the earlier period's start ${TIMESTAMP_FLOOR_MESSAGE}`,
      );
    }
  }
  return compare;
}
