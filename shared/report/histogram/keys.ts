import { TooManyBucketsError } from '../../errors';
import type { Rounding } from './rounding';

/**
 * Bucket keys from the bucket holding `lo` to the one holding `hi` (inclusive), as OpenSearch fills
 * empty buckets (`nextRoundingValue`). More than `maxBuckets` keys: TooManyBucketsError, since the
 * histogram alone would break OpenSearch's `search.max_buckets`.
 */
export function histogramKeys(rounding: Rounding, lo: number, hi: number, maxBuckets: number): number[] {
  const keys: number[] = [];
  const last = rounding.round(hi);
  for (let k = rounding.round(lo); k <= last; k = rounding.next(k)) {
    if (keys.length >= maxBuckets) throw new TooManyBucketsError(maxBuckets);
    keys.push(k);
  }
  return keys;
}

/** OpenSearch's default `search.max_buckets` (Amazon OpenSearch Service keeps it). */
export const DEFAULT_MAX_BUCKETS = 65_535;
