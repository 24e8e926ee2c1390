import { combineSources } from '../answer-source';
import type { AggResult, Bucket, EngineResult, StatsResult } from '../../stores/store';

/**
 * Exact merge of slice results into the result the unsplit plan would have given. Slices partition
 * the documents (disjoint timestamp ranges), so every value is a sum over slices: bucket counts add
 * up by key, stats add count and sum and take the least min and greatest max (the shaper derives avg
 * as sum / count, never an average of averages). Aligned slices never share a histogram bucket; if
 * one ever does (an edge in a DST transition), merging it by key keeps the answer exact anyway.
 */

/**
 * The merged result of slices run in time order; `truncated` when any slice cut terms keys; the
 * source `rollup`, `raw` or `mixed` as the slices were answered (combineSources).
 */
export function mergeResults(results: readonly EngineResult[]): EngineResult {
  if (results.length === 0) return { root: { kind: 'histogram', buckets: [] }, truncated: false };
  return {
    root: mergeAll(results.map((r) => r.root)),
    truncated: results.some((r) => r.truncated),
    ...combineSources(results),
  };
}

/** Several results of one pipeline stage, merged into one. All must be of the same kind. */
export function mergeAll(nodes: readonly AggResult[]): AggResult {
  const first = nodes[0];
  if (!first) throw new Error('nothing to merge');
  if (nodes.length === 1) return first;
  const mismatch = nodes.find((n) => n.kind !== first.kind);
  if (mismatch) throw new Error(`cannot merge a ${mismatch.kind} result into a ${first.kind} result`);
  switch (first.kind) {
    case 'histogram': {
      const histograms = nodes as (typeof first)[];
      // Aligned slices in time order: their buckets follow one another, so they only need joining.
      if (inSequence(histograms)) return { kind: 'histogram', buckets: histograms.flatMap((n) => n.buckets) };
      const buckets = mergeBuckets(histograms.flatMap((n) => n.buckets));
      return { kind: 'histogram', buckets: buckets.sort((a, b) => a.key - b.key) };
    }
    case 'terms':
    case 'filters':
      return { kind: first.kind, buckets: mergeBuckets((nodes as (typeof first)[]).flatMap((n) => n.buckets)) };
    case 'single': {
      const singles = nodes as (typeof first)[];
      const sub = mergeSubs(singles);
      return { kind: 'single', count: singles.reduce((s, n) => s + n.count, 0), ...(sub ? { sub } : {}) };
    }
    case 'stats':
      return mergeStats(nodes as StatsResult[]);
  }
}

/** True when every key is greater than the one before it, across the histograms in order. */
function inSequence(histograms: readonly { readonly buckets: readonly Bucket<number>[] }[]): boolean {
  let last = -Infinity;
  for (const h of histograms) {
    for (const b of h.buckets) {
      if (!(b.key > last)) return false;
      last = b.key;
    }
  }
  return true;
}

/** Buckets grouped by key (first-seen order), counts summed and sub-results merged. */
function mergeBuckets<K>(buckets: readonly Bucket<K>[]): Bucket<K>[] {
  const groups = new Map<K, Bucket<K>[]>();
  for (const b of buckets) {
    const group = groups.get(b.key);
    if (group) group.push(b);
    else groups.set(b.key, [b]);
  }
  return [...groups.values()].map((group) => {
    const [only] = group;
    if (group.length === 1 && only) return only;
    const sub = mergeSubs(group);
    return { key: (only as Bucket<K>).key, count: group.reduce((s, b) => s + b.count, 0), ...(sub ? { sub } : {}) };
  });
}

function mergeSubs(parents: readonly { readonly sub?: AggResult }[]): AggResult | undefined {
  const subs = parents.flatMap((p) => (p.sub ? [p.sub] : []));
  return subs.length === 0 ? undefined : mergeAll(subs);
}

/** count and sum add up (sum compensated, as the engines sum); min and max ignore empty slices. */
export function mergeStats(stats: readonly StatsResult[]): StatsResult {
  const seen = stats.filter((s) => s.count > 0);
  // The plan refuses percentiles with splitInterval: no merge of slices gives a percentile.
  if (stats.some((s) => s.percentiles)) throw new Error('percentiles cannot be merged across slices');
  return {
    kind: 'stats',
    count: stats.reduce((c, s) => c + s.count, 0),
    min: seen.length === 0 ? null : Math.min(...seen.map((s) => s.min as number)),
    max: seen.length === 0 ? null : Math.max(...seen.map((s) => s.max as number)),
    sum: compensatedSum(stats.map((s) => s.sum)),
  };
}

/**
 * Neumaier's compensated sum: exact whenever the values are integers below 2^53 (counts, durations),
 * and for fractional values as close as the engines' own Kahan sums (the last bit may differ).
 */
export function compensatedSum(values: readonly number[]): number {
  let sum = 0;
  let compensation = 0;
  for (const v of values) {
    const t = sum + v;
    compensation += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  return sum + compensation;
}
