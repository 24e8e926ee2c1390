import { compareUtf8, mergeShardKeys } from '#shared/stores/duckdb/report/reduce/merge-sort';
import { readResult } from '#shared/stores/duckdb/report/reduce/read';
import type { ResultRow } from '#shared/stores/duckdb/report/result-row';
import { buildPlan } from '#shared/report/plan/build-plan';

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('merging shard buckets as OpenSearch does', () => {
  test('takes shards with equal keys out of the priority queue in heap order, not shard order', () => {
    // Prepare: three shards (March, April, October) each with keys z1, z2. Worked through Lucene's
    // PriorityQueue by hand: z1 comes out mar, apr, oct; z2 then oct, apr, mar.
    const lists = [202403, 202404, 202410].map((shard) => ({ shard, keys: ['z1', 'z2'] }));
    // Act
    const merged = mergeShardKeys(lists, byKey);
    // Assess
    expect(merged).toEqual([
      { key: 'z1', shards: [202403, 202404, 202410] },
      { key: 'z2', shards: [202410, 202404, 202403] },
    ]);
  });

  test('leaves out shards without buckets and merges keys in order', () => {
    const merged = mergeShardKeys(
      [
        { shard: 1, keys: ['b', 'd'] },
        { shard: 2, keys: [] },
        { shard: 3, keys: ['a', 'd'] },
      ],
      byKey,
    );
    expect(merged.map((m) => m.key)).toEqual(['a', 'b', 'd']);
    expect(merged.find((m) => m.key === 'd')?.shards).toHaveLength(2);
  });

  test('orders keyword keys by UTF-8 bytes, as Lucene does, not by UTF-16 code units', () => {
    // U+FF5E (fullwidth tilde) is one UTF-16 unit above the surrogates of U+1F600, but a smaller code point.
    expect(['\u{1F600}', '\uFF5E'].sort(compareUtf8)).toEqual(['\uFF5E', '\u{1F600}']);
    expect(['\u{1F600}', '\uFF5E'].sort()).toEqual(['\u{1F600}', '\uFF5E']);
  });
});

describe('reading per-shard rows into one result', () => {
  const n = (lvl: number, keys: string[], shard: number, count: number): ResultRow => ({
    what: 'n',
    lvl,
    keys,
    n: count,
    mn: null,
    mx: null,
    sm: null,
    shard,
  });
  const stats = (keys: string[], shard: number, values: number[]): ResultRow => ({
    what: 'stats',
    lvl: 2,
    keys,
    n: values.length,
    mn: Math.min(...values),
    mx: Math.max(...values),
    sm: values.reduce((a, b) => a + b, 0),
    shard,
  });

  test('adds shard sums in the merge order, so that the last bit matches OpenSearch', () => {
    // Prepare: nested polygons → terms id → stats; zone-2 sums per month 0.2+0.7, 0.6, 1.1+2.2.
    const plan = buildPlan({
      aggregations: [
        { type: 'nested', path: 'polygons' },
        { type: 'terms', field: 'polygons.id' },
        { type: 'stats', field: 'polygons.value', sum: true },
      ],
    });
    const shards = [202403, 202404, 202410];
    const rows = [
      ...shards.map((s) => n(0, [], s, 2)),
      ...shards.flatMap((s) => [n(1, ['zone-1'], s, 1), n(1, ['zone-2'], s, 1)]),
      ...shards.map((s) => stats(['zone-1'], s, [1])),
      stats(['zone-2'], 202403, [0.2, 0.7]),
      stats(['zone-2'], 202404, [0.6]),
      stats(['zone-2'], 202410, [1.1, 2.2]),
    ];
    // Act
    const { root } = readResult(plan.pipeline, rows);
    // Assess: in shard order the sum would be 4.800000000000001; OpenSearch answers 4.8.
    expect(root).toMatchObject({ kind: 'single', count: 6, sub: { kind: 'terms' } });
    const zone2 =
      root.kind === 'single' && root.sub?.kind === 'terms'
        ? root.sub.buckets.find((b) => b.key === 'zone-2')
        : undefined;
    expect(zone2?.sub).toEqual({ kind: 'stats', count: 5, min: 0.2, max: 2.2, sum: 4.8 });
  });

  test('fills the histogram keys without documents, every filters bucket and the truncation flag', () => {
    const plan = buildPlan({
      source: 'movementEvents',
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'filters', filters: { a: { type: 'terms', field: 'label', values: ['car'] } } },
      ],
    });
    const rows: ResultRow[] = [
      n(0, ['100'], 1, 2),
      n(1, ['100', '0'], 1, 1),
      { what: 'cut', lvl: 1, keys: [], n: 0, mn: null, mx: null, sm: null, shard: 0 },
    ];
    const result = readResult(plan.pipeline, rows, [100, 200]);
    expect(result).toEqual({
      truncated: false,
      root: {
        kind: 'histogram',
        buckets: [
          { key: 100, count: 2, sub: { kind: 'filters', buckets: [{ key: 'a', count: 1 }] } },
          { key: 200, count: 0, sub: { kind: 'filters', buckets: [{ key: 'a', count: 0 }] } },
        ],
      },
    });
  });
});
