import { TooManyBucketsError } from '../errors';
import type { AggResult } from '../stores/store';
import type { AggNode } from './plan/plan';

/** OpenSearch's default `search.max_buckets`. */
export const DEFAULT_MAX_BUCKETS = 65_535;

/**
 * The number OpenSearch compares with `search.max_buckets` for this result, so that DuckDB refuses
 * exactly the reports OpenSearch refuses (422 too many buckets).
 *
 * What OpenSearch 2.19 counts (MultiBucketConsumer; only at the final reduce on the coordinating
 * node; error when the running count exceeds the limit, so exactly `max_buckets` passes), checked
 * against a node with `search.max_buckets=2000` (histogram × terms, × filters, × filters × filters,
 * × nested × terms × reverse_nested × terms, one and two shards):
 * - every bucket of a multi-bucket aggregation (date_histogram, terms, filters) in the reduced
 *   tree; terms only the buckets kept after `size`; filters every named bucket, empty ones too;
 * - single-bucket aggregations (filter, nested, reverse_nested) and stats: nothing themselves;
 * - date_histogram with `min_doc_count: 0`: each empty bucket once (its sub-aggregations are a
 *   shared empty template, not counted per bucket), plus that template once (`reducedEmptySubAggs`:
 *   the buckets of any filters aggregations in it, recursively), even when no bucket is empty.
 */
export function countBuckets(pipeline: readonly AggNode[], root: AggResult): number {
  if (root.kind !== 'histogram') return countTree(root);
  let total = root.buckets.length + emptyTemplateBuckets(pipeline, 1);
  for (const b of root.buckets) if (b.count > 0 && b.sub) total += countTree(b.sub);
  return total;
}

function countTree(r: AggResult | undefined): number {
  if (!r) return 0;
  switch (r.kind) {
    case 'histogram':
    case 'terms':
    case 'filters':
      return r.buckets.reduce((sum, b) => sum + countTree(b.sub), r.buckets.length);
    case 'single':
      return countTree(r.sub);
    case 'stats':
      return 0;
  }
}

/**
 * The fewest buckets OpenSearch can count for this pipeline, whatever the documents: the histogram's
 * `histogramKeys` buckets (when the first stage is one) and its empty-bucket template, and every
 * `filters` bucket under every bucket that exists regardless of the data (filters buckets exist even
 * when empty; terms buckets only with documents, so nothing below a terms stage counts here).
 * Above the limit, the report is refused before any document is read: `[filters(100)] × 3` are
 * 1,010,100 buckets however few documents match, and would otherwise cost documents × 10^6.
 */
export function minimumBuckets(pipeline: readonly AggNode[], histogramKeys = 0): number {
  return pipeline[0]?.kind === 'dateHistogram'
    ? histogramKeys + emptyTemplateBuckets(pipeline, 1)
    : emptyTemplateBuckets(pipeline, 0);
}

/**
 * How many times the bucket limit one query's answer may hold whatever the documents. The limit
 * counts an empty histogram bucket once with its template once, but the answer carries the template
 * in every empty bucket: OpenSearch writes each one's sub-aggregations out, and both engines read
 * them back. A fine histogram over `filters` stages therefore costs keys × template with no document
 * at all (a 30-minute histogram over a year with two `filters` stages of 100 is 17,568 keys × 10,101,
 * 177 million buckets, while the limit’s count is 27,668). Four times the limit is about 260,000
 * buckets with OpenSearch's default: answers of a few tens of MB at most, read in a couple of seconds.
 */
export const EXPANSION_FACTOR = 4;

/** The buckets of a query's answer whatever the documents: every histogram bucket with the template in it. */
export function expandedBuckets(pipeline: readonly AggNode[], histogramKeys = 0): number {
  return pipeline[0]?.kind === 'dateHistogram'
    ? histogramKeys * (1 + emptyTemplateBuckets(pipeline, 1))
    : emptyTemplateBuckets(pipeline, 0);
}

/**
 * Refuses (422 TooManyBucketsError) a report that exceeds the bucket limit whatever the documents,
 * before either engine reads one: by the limit's own count (minimumBuckets), or by what the answer
 * would hold (expandedBuckets, EXPANSION_FACTOR times the limit).
 */
export function refuseBeyondBucketFloor(pipeline: readonly AggNode[], histogramKeys: number, maxBuckets: number): void {
  if (
    minimumBuckets(pipeline, histogramKeys) > maxBuckets ||
    expandedBuckets(pipeline, histogramKeys) > EXPANSION_FACTOR * maxBuckets
  ) {
    throw new TooManyBucketsError(maxBuckets);
  }
}

/**
 * The most buckets one report's answer may hold, split or not, whatever the engine's own limit:
 * what this service builds, renders and sends in one answer (the slices' results held together,
 * merged, shaped into rows, rendered as up to tens of MB of JSON, compressed), within a Lambda's and
 * the local server's memory. EXPANSION_FACTOR × OpenSearch's default limit: 262,140.
 */
export const MAX_ANSWER_BUCKETS = EXPANSION_FACTOR * DEFAULT_MAX_BUCKETS;

/**
 * Refuses (422) a split report, from the request alone, before any slice runs:
 * - TooManyBucketsError when its slices together would carry more than EXPANSION_FACTOR times the
 *   engine's limit in their empty-bucket templates: every slice is within the per-query floor, but
 *   `filters` stages of 100 × 100 under a year of half hours would otherwise run (and merge) 400
 *   slices of template. Only the template counts here: slices exist to carry more histogram buckets
 *   than one query may.
 * - AnswerBucketsError when its answer would hold more than `maxAnswerBuckets`: every time bucket
 *   with the buckets of its `filters` stages under it (expandedBuckets). A 1 s histogram over 30 days
 *   is 2,592,000 rows (400 slices of 6,480 each), a body of hundreds of MB to build, render and
 *   measure, whatever the data.
 */
export function refuseBeyondSplitFloor(
  pipeline: readonly AggNode[],
  histogramKeys: number,
  maxBuckets: number,
  maxAnswer = MAX_ANSWER_BUCKETS,
): void {
  const histogram = pipeline[0]?.kind === 'dateHistogram' ? pipeline[0] : undefined;
  const template = histogram ? emptyTemplateBuckets(pipeline, 1) : 0;
  if (histogramKeys * template > EXPANSION_FACTOR * maxBuckets) {
    throw new TooManyBucketsError(
      maxBuckets,
      undefined,
      `Each of its ${histogramKeys} time buckets would carry the ${template} buckets of its filters stages, ` +
        `${histogramKeys * template} in all: more than ${EXPANSION_FACTOR * maxBuckets} (${EXPANSION_FACTOR} × the bucket limit of ${maxBuckets}), ` +
        'however the report is split. Use a coarser dateHistogram interval, a shorter time range, or fewer filters buckets.',
    );
  }
  const answer = expandedBuckets(pipeline, histogramKeys);
  if (answer <= maxAnswer) return;
  const under = template > 0 ? `, each with the ${n(template)} buckets of its filters stages under it,` : '';
  throw new AnswerBucketsError(
    maxAnswer,
    `Its ${n(histogramKeys)} time buckets${under} make ${n(answer)} buckets: more than the ${n(maxAnswer)} an answer may hold, however the report is split. ` +
      `Use a coarser dateHistogram interval or a shorter time range${template > 0 ? ', or fewer filters buckets' : ''}.`,
    `"${histogram?.interval.text ?? ''}" makes ${n(histogramKeys)} time buckets over the time range; at most ${n(Math.floor(maxAnswer / (1 + template)))} fit in one answer`,
  );
}

/** Every bucket a result holds: an empty histogram bucket with its template, a terms bucket with what is under it. */
export function resultBuckets(root: AggResult): number {
  return countTree(root);
}

/**
 * 422: the whole answer of a (split) report would hold more than its `maxAnswerBuckets`
 * (MAX_ANSWER_BUCKETS), known from the request (refuseBeyondSplitFloor) or from the slices as they
 * come back (the keys of `terms` stages). Never retried with a finer cut: slices cannot shrink an
 * answer. Names the histogram interval as the field to change.
 */
export class AnswerBucketsError extends TooManyBucketsError {
  constructor(maxAnswerBuckets: number, detail: string, intervalMessage: string, options?: ErrorOptions) {
    super(
      undefined,
      {
        ...options,
        extensions: { maxAnswerBuckets, errors: [{ path: '/aggregations/0/interval', message: intervalMessage }] },
      },
      `This report's answer would be too large. ${detail}`,
    );
  }
}

const n = (x: number): string => x.toLocaleString('en');

/**
 * Buckets of the sub-aggregations of an empty histogram bucket (stage i onwards): the filters
 * buckets that exist whatever the data, as `minimumBuckets` counts them.
 */
function emptyTemplateBuckets(pipeline: readonly AggNode[], i: number): number {
  const node = pipeline[i];
  if (!node || node.kind === 'terms' || node.kind === 'stats' || node.kind === 'dateHistogram') return 0;
  const below = emptyTemplateBuckets(pipeline, i + 1);
  return node.kind === 'filters' ? node.buckets.length * (1 + below) : below;
}
