import type { AggResult, Bucket, StatsResult } from '../../../store';
import type { AggNode } from '../../../../report/plan/plan';
import type { ResultRow } from '../result-row';
import { compareUtf8, mergeShardKeys } from './merge-sort';
import { hazenPercentile } from '../../../../report/percentiles/hazen';

const EMPTY_STATS: StatsResult = { kind: 'stats', count: 0, min: null, max: null, sum: 0 };

/**
 * Rebuilds the engine-neutral result tree from per-shard rows by reducing the shards the way
 * OpenSearch's coordinating node does (shard results in index order; terms and histogram buckets
 * merged with a priority queue; sums added in that order), so that even floating-point sums agree
 * with OpenSearch to the last bit. Buckets without documents are present where OpenSearch has them:
 * histogram keys from `histogramKeys`, every filters bucket, single-bucket stages.
 */
export function readResult(
  pipeline: readonly AggNode[],
  rows: readonly ResultRow[],
  histogramKeys: readonly number[] = [],
): { root: AggResult; truncated: boolean } {
  const reducer = new ShardReducer(pipeline, rows, histogramKeys);
  const shards = [...new Set(rows.filter((r) => r.what !== 'cut' && r.what !== 'pct').map((r) => r.shard))].sort(
    (a, b) => a - b,
  );
  return { root: reducer.reduce(0, [], shards), truncated: rows.some((r) => r.what === 'cut' && r.n > 0) };
}

const pathKey = (lvl: number, keys: readonly string[]): string => JSON.stringify([lvl, ...keys]);

type PerShard<T> = Map<number, T>;

function addTo<T>(map: Map<string, PerShard<T>>, key: string, shard: number, value: T): void {
  const perShard = map.get(key) ?? new Map<number, T>();
  perShard.set(shard, value);
  map.set(key, perShard);
}

class ShardReducer {
  private readonly counts = new Map<string, PerShard<number>>();
  private readonly stats = new Map<string, PerShard<ResultRow>>();
  /** `pct` rows by path: every shard's values at once. */
  private readonly percentiles = new Map<string, ResultRow>();
  /** Per parent path: each shard's bucket keys (terms: also the `x` keys beyond the cap). */
  private readonly lists = new Map<string, PerShard<string[]>>();

  constructor(
    private readonly pipeline: readonly AggNode[],
    rows: readonly ResultRow[],
    private readonly histogramKeys: readonly number[],
  ) {
    for (const row of rows) {
      if (row.what === 'stats') addTo(this.stats, pathKey(row.lvl, row.keys), row.shard, row);
      if (row.what === 'pct') this.percentiles.set(pathKey(row.lvl, row.keys), row);
      if (row.what === 'n') addTo(this.counts, pathKey(row.lvl, row.keys), row.shard, row.n);
      const kind = pipeline[row.lvl]?.kind;
      if ((row.what === 'n' || row.what === 'x') && (kind === 'terms' || kind === 'dateHistogram')) {
        const parent = pathKey(row.lvl, row.keys.slice(0, -1));
        const list = this.lists.get(parent)?.get(row.shard) ?? [];
        list.push(row.keys.at(-1) as string);
        addTo(this.lists, parent, row.shard, list);
      }
    }
  }

  /** The result of stage i in the bucket `path`, from the shards in `order` (reduce order). */
  reduce(i: number, path: readonly string[], order: readonly number[]): AggResult {
    const node = this.pipeline[i] as AggNode;
    const count = (keys: readonly string[]): number => sum(this.counts.get(pathKey(i, keys)));
    const bucket = <K>(key: K, keys: readonly string[], shards: readonly number[]): Bucket<K> => {
      const sub = i + 1 < this.pipeline.length ? this.reduce(i + 1, keys, shards) : undefined;
      return sub ? { key, count: count(keys), sub } : { key, count: count(keys) };
    };
    switch (node.kind) {
      case 'dateHistogram': {
        const merged = new Map(
          this.merge(i, path, order, (a, b) => Number(a) - Number(b)).map((m) => [Number(m.key), m.shards]),
        );
        return {
          kind: 'histogram',
          buckets: this.histogramKeys.map((k) => bucket(k, [...path, String(k)], merged.get(k) ?? [])),
        };
      }
      case 'terms': {
        const kept = this.merge(i, path, order, compareUtf8).filter((m) =>
          this.counts.has(pathKey(i, [...path, m.key])),
        );
        return { kind: 'terms', buckets: kept.map((m) => bucket(m.key, [...path, m.key], m.shards)) };
      }
      case 'filters':
        return {
          kind: 'filters',
          buckets: node.buckets.map((b, index) => bucket(b.name, [...path, String(index)], order)),
        };
      case 'stats': {
        const stats = reduceStats(order.map((shard) => this.stats.get(pathKey(i, path))?.get(shard)));
        if (!node.percentiles) return stats;
        const row = this.percentiles.get(pathKey(i, path));
        const n = row?.n ?? 0;
        const pv = row?.pv ?? [];
        return {
          ...stats,
          percentiles: node.percentiles.map((p, k) =>
            hazenPercentile(p.percent, n, pv[2 * k] ?? null, pv[2 * k + 1] ?? null),
          ),
        };
      }
      case 'filter':
      case 'nested':
      case 'reverseNested': {
        const sub = i + 1 < this.pipeline.length ? this.reduce(i + 1, path, order) : undefined;
        return sub ? { kind: 'single', count: count(path), sub } : { kind: 'single', count: count(path) };
      }
    }
  }

  private merge(
    i: number,
    path: readonly string[],
    order: readonly number[],
    compare: (a: string, b: string) => number,
  ) {
    const perShard = this.lists.get(pathKey(i, path));
    const lists = order.map((shard) => ({ shard, keys: [...(perShard?.get(shard) ?? [])].sort(compare) }));
    return mergeShardKeys(lists, compare);
  }
}

function sum(perShard: PerShard<number> | undefined): number {
  let total = 0;
  for (const n of perShard?.values() ?? []) total += n;
  return total;
}

/**
 * Per-shard stats → one result, as InternalStats.reduce: counts added, min/max compared, sums added
 * in reduce order with Kahan summation (OpenSearch's CompensatedSum).
 */
function reduceStats(shards: readonly (ResultRow | undefined)[]): StatsResult {
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  let total = 0;
  let delta = 0;
  for (const s of shards) {
    if (!s) continue;
    count += s.n;
    if (s.mn !== null) min = Math.min(min, s.mn);
    if (s.mx !== null) max = Math.max(max, s.mx);
    const value = s.sm ?? 0;
    if (!Number.isFinite(value)) {
      total += value;
      continue;
    }
    const corrected = value + delta;
    const updated = total + corrected;
    delta = corrected - (updated - total);
    total = updated;
  }
  if (count === 0) return EMPTY_STATS;
  return {
    kind: 'stats',
    count,
    min: Number.isFinite(min) ? min : null,
    max: Number.isFinite(max) ? max : null,
    sum: total,
  };
}
