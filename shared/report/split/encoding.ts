import type { AggResult, EngineResult } from '../../stores/store';
import type { AggNode } from '../plan/plan';
import { compareKeys } from '../shape/series';

/**
 * A compact, lossless, per-series encoding of a slice result (a histogram at the root), small enough
 * for the 256 KiB Step Functions state payload: bucket keys as runs of equal steps, and one column of
 * counts per node of the tree below the histogram (one per series and per intermediate bucket), with
 * runs of zeros written as one negative number: a fraction of the size of the AggResult JSON (the
 * split benchmark reports both, bench/README.md). Decoding needs the plan's pipeline.
 */
export interface EncodedSlice {
  readonly v: 1;
  /** 1 when some terms aggregation of the slice cut keys. */
  readonly tr: 0 | 1;
  /** Histogram bucket keys: `[first, step, times, step, times, ...]`; empty when there is no bucket. */
  readonly k: readonly number[];
  /** Histogram bucket counts, zero runs as `-length` (see {@link packCounts}). */
  readonly c: readonly number[];
  /** One column per node below the histogram, parents before children. */
  readonly s: readonly EncodedColumn[];
  /**
   * Which rows answered the slice, why not rollups, the window read from them (EngineResult); absent with rollups off.
   */
  readonly src?: 'rollup' | 'raw' | 'mixed';
  readonly why?: string;
  readonly win?: readonly [number, number];
}

export interface EncodedColumn {
  /** Pipeline stage of the node (1: just below the histogram). */
  readonly d: number;
  /** Keys of the terms and filters buckets from the histogram down to this node (its own key last). */
  readonly p: readonly string[];
  /** Per histogram bucket: the node's count (a stats node: its value count); 0 where absent. */
  readonly c: readonly number[];
  /** Stats nodes: min, max and sum of the buckets whose count is not 0, in bucket order. */
  readonly mn?: readonly number[];
  readonly mx?: readonly number[];
  readonly sm?: readonly number[];
}

interface ColumnBuilder {
  readonly d: number;
  readonly p: readonly string[];
  readonly counts: [number, number][];
  readonly stats?: { mn: number[]; mx: number[]; sm: number[] };
}

/** Slice result → compact form. Only results with a histogram at the root (split plans) are encoded. */
export function encodeSlice(result: EngineResult): EncodedSlice {
  const root = result.root;
  if (root.kind !== 'histogram') throw new Error(`a split slice must have a histogram root, not ${root.kind}`);
  const columns = new Map<string, ColumnBuilder>();
  const column = (d: number, p: readonly string[], stats: boolean): ColumnBuilder => {
    const id = JSON.stringify([d, ...p]);
    let col = columns.get(id);
    if (!col) columns.set(id, (col = { d, p, counts: [], ...(stats ? { stats: { mn: [], mx: [], sm: [] } } : {}) }));
    return col;
  };
  const visit = (node: AggResult, d: number, path: readonly string[], i: number): void => {
    switch (node.kind) {
      case 'terms':
      case 'filters':
        for (const b of node.buckets) {
          const p = [...path, b.key];
          column(d, p, false).counts.push([i, b.count]);
          if (b.sub) visit(b.sub, d + 1, p, i);
        }
        return;
      case 'single':
        column(d, path, false).counts.push([i, node.count]);
        if (node.sub) visit(node.sub, d + 1, path, i);
        return;
      case 'stats': {
        const col = column(d, path, true);
        col.counts.push([i, node.count]);
        if (node.count > 0 && col.stats) {
          col.stats.mn.push(node.min as number);
          col.stats.mx.push(node.max as number);
          col.stats.sm.push(node.sum);
        }
        return;
      }
      case 'histogram':
        throw new Error('a dateHistogram is only allowed as the first stage');
    }
  };
  root.buckets.forEach((b, i) => b.sub && visit(b.sub, 1, [], i));
  return {
    v: 1,
    tr: result.truncated ? 1 : 0,
    k: packKeys(root.buckets.map((b) => b.key)),
    c: packCounts(root.buckets.map((b, i) => [i, b.count])),
    s: [...columns.values()].map(({ d, p, counts, stats }) => ({ d, p, c: packCounts(counts), ...(stats ?? {}) })),
    ...(result.source ? { src: result.source } : {}),
    ...(result.rawReason === undefined ? {} : { why: result.rawReason }),
    ...(result.rollupWindow ? { win: [result.rollupWindow.from, result.rollupWindow.to] as const } : {}),
  };
}

interface DecodedColumn {
  readonly key: string;
  readonly counts: readonly number[];
  readonly children: DecodedColumn[];
  /** Stats nodes: bucket index → position in mn/mx/sm (-1 where the count is 0). */
  readonly statsAt?: readonly number[];
  readonly source: EncodedColumn;
}

/** Compact form → the slice's EngineResult, read along the plan's pipeline. */
export function decodeSlice(encoded: EncodedSlice, pipeline: readonly AggNode[]): EngineResult {
  if (encoded.v !== 1) throw new Error(`unknown slice encoding version ${String(encoded.v)}`);
  const keys = unpackKeys(encoded.k);
  const counts = unpackCounts(encoded.c, keys.length);
  const roots = columnTree(encoded.s, pipeline, keys.length);
  const buckets = keys.map((key, i) => withSub({ key, count: counts[i] as number }, build(pipeline, 1, roots, i)));
  const { src, why, win } = encoded;
  return {
    root: { kind: 'histogram', buckets },
    truncated: encoded.tr === 1,
    ...(src ? { source: src } : {}),
    ...(why === undefined ? {} : { rawReason: why }),
    ...(win ? { rollupWindow: { from: win[0], to: win[1] } } : {}),
  };
}

function columnTree(encoded: readonly EncodedColumn[], pipeline: readonly AggNode[], n: number): DecodedColumn[] {
  const byId = new Map<string, DecodedColumn>();
  const roots: DecodedColumn[] = [];
  for (const source of encoded) {
    const node = pipeline[source.d];
    const bucketing = node?.kind === 'terms' || node?.kind === 'filters';
    const counts = unpackCounts(source.c, n);
    let position = 0;
    const statsAt = source.sm ? counts.map((c) => (c > 0 ? position++ : -1)) : undefined;
    const col: DecodedColumn = {
      key: source.p.at(-1) ?? '',
      counts,
      children: [],
      source,
      ...(statsAt ? { statsAt } : {}),
    };
    byId.set(JSON.stringify([source.d, ...source.p]), col);
    const parentPath = bucketing ? source.p.slice(0, -1) : source.p;
    const siblings = source.d === 1 ? roots : byId.get(JSON.stringify([source.d - 1, ...parentPath]))?.children;
    if (!siblings) throw new Error(`slice column ${JSON.stringify([source.d, ...source.p])} has no parent`);
    siblings.push(col);
  }
  return roots;
}

/** The result of pipeline stage d in histogram bucket i, from the columns of that stage under one parent. */
function build(
  pipeline: readonly AggNode[],
  d: number,
  columns: readonly DecodedColumn[],
  i: number,
): AggResult | undefined {
  const node = pipeline[d];
  if (!node) return undefined;
  const at = (col: DecodedColumn | undefined): number => col?.counts[i] ?? 0;
  switch (node.kind) {
    case 'terms': {
      const present = columns.filter((col) => at(col) > 0).sort((a, b) => compareKeys(a.key, b.key));
      return {
        kind: 'terms',
        buckets: present.map((col) =>
          withSub({ key: col.key, count: at(col) }, build(pipeline, d + 1, col.children, i)),
        ),
      };
    }
    case 'filters':
      return {
        kind: 'filters',
        buckets: node.buckets.map(({ name }) => {
          const col = columns.find((c) => c.key === name);
          return withSub({ key: name, count: at(col) }, build(pipeline, d + 1, col?.children ?? [], i));
        }),
      };
    case 'stats': {
      const col = columns[0];
      const position = col?.statsAt?.[i] ?? -1;
      if (!col || position < 0) return { kind: 'stats', count: 0, min: null, max: null, sum: 0 };
      const value = (list: readonly number[] | undefined): number => list?.[position] as number;
      return {
        kind: 'stats',
        count: at(col),
        min: value(col.source.mn),
        max: value(col.source.mx),
        sum: value(col.source.sm),
      };
    }
    case 'dateHistogram':
      throw new Error('a dateHistogram is only allowed as the first stage');
    default: {
      const col = columns[0];
      return withSub({ kind: 'single' as const, count: at(col) }, build(pipeline, d + 1, col?.children ?? [], i));
    }
  }
}

function withSub<T extends object>(value: T, sub: AggResult | undefined): T & { sub?: AggResult } {
  return sub ? { ...value, sub } : value;
}

/** `[first, step, times, ...]`: a fixed interval is three numbers, a year of months about twenty. */
export function packKeys(keys: readonly number[]): number[] {
  const first = keys[0];
  if (first === undefined) return [];
  const out = [first];
  for (let i = 1; i < keys.length; i++) {
    const step = (keys[i] as number) - (keys[i - 1] as number);
    if (out.length > 1 && out.at(-2) === step) out[out.length - 1] = (out.at(-1) as number) + 1;
    else out.push(step, 1);
  }
  return out;
}

export function unpackKeys(packed: readonly number[]): number[] {
  if (packed.length === 0) return [];
  const keys = [packed[0] as number];
  for (let j = 1; j + 1 < packed.length; j += 2) {
    for (let t = 0; t < (packed[j + 1] as number); t++) keys.push((keys.at(-1) as number) + (packed[j] as number));
  }
  return keys;
}

/** Sparse `[index, count]` pairs (ascending) → counts with every run of zeros as `-length`; trailing zeros left out. */
export function packCounts(entries: readonly (readonly [number, number])[]): number[] {
  const out: number[] = [];
  let next = 0;
  const zeros = (n: number) => {
    if (n <= 0) return;
    const last = out.at(-1);
    if (last !== undefined && last < 0) out[out.length - 1] = last - n;
    else out.push(-n);
  };
  for (const [i, count] of entries) {
    zeros(i - next);
    if (count === 0) zeros(1);
    else out.push(count);
    next = i + 1;
  }
  if ((out.at(-1) ?? 0) < 0) out.pop();
  return out;
}

export function unpackCounts(packed: readonly number[], n: number): number[] {
  const counts: number[] = [];
  for (const v of packed) {
    if (v < 0) for (let z = 0; z < -v; z++) counts.push(0);
    else counts.push(v);
  }
  if (counts.length > n) throw new Error(`slice column has ${counts.length} values for ${n} buckets`);
  while (counts.length < n) counts.push(0);
  return counts;
}
