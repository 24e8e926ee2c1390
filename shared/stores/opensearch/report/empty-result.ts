import type { AggNode, DateHistogramAggNode } from '../../../report/plan/plan';
import { createRounding } from '../../../report/histogram/rounding';
import { histogramKeys } from '../../../report/histogram/keys';
import type { AggResult } from '../../store';

/**
 * The result of a pipeline over no documents at all, as OpenSearch answers it when indices exist but
 * nothing matches: a bounded histogram still spans its range (empty buckets carrying the empty
 * sub-results), filters keep their named buckets at 0, stats count 0. Used when no index of the
 * collection exists yet, where OpenSearch returns no aggregations at all.
 */
export function emptyResult(pipeline: readonly AggNode[], i: number, maxBuckets: number): AggResult {
  const node = pipeline[i] as AggNode;
  const sub = i + 1 < pipeline.length ? emptyResult(pipeline, i + 1, maxBuckets) : undefined;
  const withSub = <T extends object>(o: T) => (sub ? { ...o, sub } : o);
  switch (node.kind) {
    case 'dateHistogram':
      return {
        kind: 'histogram',
        buckets: boundedHistogramKeys(node, maxBuckets).map((key) => withSub({ key, count: 0 })),
      };
    case 'terms':
      return { kind: 'terms', buckets: [] };
    case 'filters':
      return { kind: 'filters', buckets: node.buckets.map((b) => withSub({ key: b.name, count: 0 })) };
    case 'stats':
      return {
        kind: 'stats',
        count: 0,
        min: null,
        max: null,
        sum: 0,
        ...(node.percentiles ? { percentiles: node.percentiles.map(() => null) } : {}),
      };
    case 'nested':
    case 'filter':
    case 'reverseNested':
      return withSub({ kind: 'single' as const, count: 0 });
  }
}

/** The bucket keys of a histogram with both bounds ([] without); TooManyBucketsError beyond maxBuckets. */
export function boundedHistogramKeys(node: DateHistogramAggNode, maxBuckets: number): number[] {
  const from = node.bounds?.from;
  const to = node.bounds?.to;
  if (from === undefined || to === undefined) return [];
  return histogramKeysOver(node, from, to - 1, maxBuckets);
}

/** The bucket keys of a histogram from the instant `first` to the instant `last`, both included. */
export function histogramKeysOver(
  node: DateHistogramAggNode,
  first: number,
  last: number,
  maxBuckets: number,
): number[] {
  if (first > last) return [];
  return histogramKeys(createRounding(node.interval, node.timeZone, first, last), first, last, maxBuckets);
}
