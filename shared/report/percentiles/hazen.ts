/**
 * The percentile both engines answer: OpenSearch's `percentiles` aggregation (a t-digest) while a
 * bucket holds at most {@link EXACT_PERCENTILE_VALUES} values, where it is exact, computed here from
 * the sorted values the way the t-digest computes it, operation for operation, so that DuckDB's
 * answer is the same double to the last bit.
 *
 * OpenSearch 2.19 keeps a percentiles bucket in `TDigestState`, an `AVLTreeDigest` of t-digest 3.2
 * (lib/t-digest-3.2.jar). Its `add` merges a value into a centroid only when the centroid's count plus
 * one is at most `4·n·q·(1−q) / compression` (n the values added so far), which is below 2 while
 * n < 2·compression: up to 2·compression values every centroid holds one value, on every shard and
 * after the coordinating node's merge (which adds the shards' centroids the same way). Over singletons
 * its `quantile(p / 100)` is the linear interpolation between the points ((i + ½) / n, x_i) of the
 * sorted values x_0..x_{n−1}, held at x_0 and x_{n−1} beyond them: Hyndman and Fan's definition 5
 * (Hazen's). Beyond that count the digest merges values (with a random tie-break): an approximation,
 * docs/request-language.md says how close.
 */

/** The compression the OpenSearch engine asks for: the t-digest's size, and half its exact range. */
export const PERCENTILES_COMPRESSION = 500;

/**
 * How far OpenSearch's estimate may be from the exact percentile beyond EXACT_PERCENTILE_VALUES
 * values, as a fraction of the bucket's values in rank: the value it answers is one whose rank is
 * within this of p/100 · n. The t-digest gives no hard bound; a centroid holds at most about
 * n / compression values where it merges them, and test/integration/conformance/percentiles.test.ts
 * checks this tolerance on 20 × EXACT_PERCENTILE_VALUES values.
 */
export const PERCENTILE_RANK_TOLERANCE = 0.005;

/** The most percentiles one stats stage may ask for (`median` included). */
export const MAX_PERCENTILES = 10;

/** Up to this many values in a bucket, OpenSearch's percentiles are exact (see above). */
export const EXACT_PERCENTILE_VALUES = 2 * PERCENTILES_COMPRESSION;

/**
 * The 0-based position i of the sorted values whose neighbours x_i, x_{i+1} a percentile of n ≥ 2
 * values interpolates between (clamped to 0..n−2; 0 for a single value). `index − 1.5` is exact in doubles for index ≥
 * 0.75 (both are multiples of index's ulp), and below 0.75 the position is 0 anyway; DuckDB computes the
 * same expression (percentile-sql.ts).
 */
export function percentilePosition(percent: number, n: number): number {
  const index = (percent / 100) * n;
  return Math.max(Math.min(Math.floor(index - 1.5) + 1, n - 2), 0);
}

/**
 * The t-digest's answer over n singleton centroids, given x_i and x_{i+1} at the position
 * {@link percentilePosition} (`next` null when n = 1); null over no values (OpenSearch: NaN, written null).
 */
export function hazenPercentile(percent: number, n: number, at: number | null, next: number | null): number | null {
  if (n === 0 || at === null) return null;
  if (n === 1) return at;
  const index = (percent / 100) * n;
  const i = percentilePosition(percent, n);
  const high = next ?? at;
  // AVLTreeDigest.quantile: before the first centroid's middle, between min and it (min is x_0 here).
  if (index < 0.5) return (at * index + at * (0.5 - index)) / 0.5;
  const weightSoFar = i + 0.5;
  if (weightSoFar + 1 > index) return weightedAverage(at, weightSoFar + 1 - index, high, index - weightSoFar);
  // Past the last centroid's middle: between it and max, both x_{n−1}.
  const left = index - (n - 0.5);
  return weightedAverage(high, 0.5 - left, high, left);
}

/** AbstractTDigest.weightedAverage: the weighted mean, kept between the two values. */
function weightedAverage(x1: number, w1: number, x2: number, w2: number): number {
  if (x1 > x2) return weightedAverage(x2, w2, x1, w1);
  const x = (x1 * w1 + x2 * w2) / (w1 + w2);
  return Math.max(x1, Math.min(x, x2));
}
