import type { AggResult } from '../../stores/store';
import { PROFILE_KEYS, type AggNode } from '../plan/plan';

/**
 * Series naming (spec shapes 3 and 4). Each terms or filters bucket contributes its key as a name
 * part; nested, filter and reverseNested add none. The separator after a part is the keyJoiner of
 * the aggregation that made it (default one space). Direction keys (crossedPaths.end/start) move to
 * the end. Stats append `<joiner><stat>`; with no part at all a count series is named `count`.
 */
export interface SeriesValue {
  readonly name: string;
  /** Position in the result tree: orders columns and properties the same way on every engine. */
  readonly sortKey: readonly (string | number)[];
  readonly value: number;
  readonly isStat: boolean;
}

interface Part {
  readonly text: string;
  readonly joiner: string;
  readonly direction: boolean;
}

export interface CollectOptions {
  /** Keep series whose count is 0 (object shape) or leave them out (histogram shape). */
  readonly keepZeroCounts: boolean;
}

/** Every series value below `result` (the result of pipeline stage i), given its bucket's count. */
export function collectSeries(
  pipeline: readonly AggNode[],
  i: number,
  result: AggResult | undefined,
  count: number,
  options: CollectOptions,
): SeriesValue[] {
  const out: SeriesValue[] = [];
  walk(pipeline, i, result, count, [], [], options, out);
  return out;
}

function walk(
  pipeline: readonly AggNode[],
  i: number,
  result: AggResult | undefined,
  count: number,
  parts: readonly Part[],
  sortKey: readonly (string | number)[],
  options: CollectOptions,
  out: SeriesValue[],
): void {
  const node = pipeline[i];
  if (!result || !node) {
    if (count !== 0 || options.keepZeroCounts)
      out.push({ name: seriesName(parts) ?? 'count', sortKey, value: count, isStat: false });
    return;
  }
  switch (result.kind) {
    case 'single':
      return walk(pipeline, i + 1, result.sub, result.count, parts, sortKey, options, out);
    case 'terms':
    case 'filters': {
      const joiner = node.kind === 'terms' || node.kind === 'filters' ? node.joiner : ' ';
      const direction = node.kind === 'terms' && node.field.direction === true;
      // A profile's keys go in clock order (monday before friday), other terms keys in code-unit order.
      const profileKeys = node.kind === 'terms' && node.profile ? PROFILE_KEYS[node.profile.unit] : undefined;
      const sortKeyOf = (key: string): string | number => (profileKeys ? profileKeys.indexOf(key) : key);
      const buckets =
        result.kind === 'terms'
          ? [...result.buckets].sort((a, b) => compareKeys(sortKeyOf(a.key), sortKeyOf(b.key)))
          : result.buckets;
      buckets.forEach((b, index) => {
        const part = { text: b.key, joiner, direction };
        const key = result.kind === 'terms' ? sortKeyOf(b.key) : index;
        walk(pipeline, i + 1, b.sub, b.count, [...parts, part], [...sortKey, key], options, out);
      });
      return;
    }
    case 'stats': {
      if (node.kind !== 'stats') return;
      const prefix = seriesName(parts);
      const joiner = orderParts(parts).at(-1)?.joiner ?? '';
      const push = (stat: string, index: number, value: number | null | undefined) => {
        if (value === undefined || value === null) return;
        out.push({
          name: prefix === undefined ? stat : prefix + joiner + stat,
          sortKey: [...sortKey, index],
          value,
          isStat: true,
        });
      };
      node.stats.forEach((stat, index) => push(stat, index, statValue(result, stat)));
      // Percentiles after the other stats, in the node's order; absent over no values, as min and max.
      node.percentiles?.forEach((p, k) => push(p.name, node.stats.length + k, result.percentiles?.[k]));
      return;
    }
    case 'histogram':
      throw new Error('a dateHistogram is only allowed as the first stage');
  }
}

function statValue(r: Extract<AggResult, { kind: 'stats' }>, stat: string): number | undefined {
  switch (stat) {
    case 'count':
      return r.count;
    case 'sum':
      return answeredSum(r.sum);
    case 'avg':
      return r.count > 0 ? answeredSum(r.sum) / r.count : undefined;
    case 'min':
      return r.min ?? undefined;
    case 'max':
      return r.max ?? undefined;
    default:
      return undefined;
  }
}

/**
 * The significant digits of an answered sum: DBL_DIG, the most that every double keeps through a decimal round trip.
 */
export const SUM_DIGITS = 15;

/**
 * A stats sum as the service answers it, and the sum every `avg` divides: an integer as it is,
 * anything else rounded to {@link SUM_DIGITS} significant digits. The engines add the same doubles
 * in different orders and groupings (OpenSearch per shard, then the shards' sums in the order and
 * number of the shards searched, empty ones included, each step with Kahan's compensation; DuckDB
 * per month; a split report per slice, then the slices), and a sum of fractions can differ in its
 * last bit between two of them: 0.15 + 0.3 is 0.44999999999999996 added once, 0.45 when a later
 * add of an empty shard's 0 applies the compensation. A double's 17th digit is noise of the order
 * of addition, not data: at 15 digits every such path gives the one value, and a sum of decimals
 * gives the decimal (0.45), whichever engine, shard layout, slices or rollups computed it.
 */
export function answeredSum(sum: number): number {
  return Number.isInteger(sum) || !Number.isFinite(sum) ? sum : Number(sum.toPrecision(SUM_DIGITS));
}

const orderParts = (parts: readonly Part[]): Part[] => [
  ...parts.filter((p) => !p.direction),
  ...parts.filter((p) => p.direction),
];

function seriesName(parts: readonly Part[]): string | undefined {
  if (parts.length === 0) return undefined;
  const ordered = orderParts(parts);
  return ordered.map((p, idx) => (idx < ordered.length - 1 ? p.text + p.joiner : p.text)).join('');
}

/** Code-unit order: deterministic and engine-independent (engines may collate differently). */
export function compareKeys(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareSortKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    const c = compareKeys(a[k] as string | number, b[k] as string | number);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
