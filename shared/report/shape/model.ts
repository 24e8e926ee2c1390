import type { EngineResult } from '../engines/engine';
import { Pacer } from '../pace';
import type { ReportPlan } from '../plan/plan';
import { collectSeries, compareSortKeys, type SeriesValue } from './series';

/** Spec shape 1: one row per time bucket. Absent series had no documents in that bucket. */
export interface HistogramModel {
  readonly kind: 'histogram';
  /** Every series of any row, in tree order; `stat` columns are left empty in CSV when absent, counts are 0. */
  readonly columns: readonly { readonly name: string; readonly isStat: boolean }[];
  readonly rows: readonly { readonly timestamp: number; readonly values: ReadonlyMap<string, number> }[];
}

/** Spec shape 2: one object of named values. */
export interface ObjectModel {
  readonly kind: 'object';
  readonly entries: readonly (readonly [string, number])[];
}

export type ReportModel = HistogramModel | ObjectModel;

/**
 * Engine result → response model, the same for every engine. The rows are shaped in the pacer's
 * turns (a split answer may hold a few hundred thousand buckets).
 */
export async function shapeReport(plan: ReportPlan, result: EngineResult, pacer = new Pacer()): Promise<ReportModel> {
  const root = result.root;
  if (root.kind === 'histogram') {
    const columns = new Map<string, SeriesValue>();
    const rows = await pacer.map(root.buckets, (b) => {
      const series = collectSeries(plan.pipeline, 1, b.sub, b.count, { keepZeroCounts: false });
      const values = new Map<string, number>();
      for (const s of series) {
        if (!columns.has(s.name)) columns.set(s.name, s);
        values.set(s.name, merge(values.get(s.name), s));
      }
      return { timestamp: b.key, values };
    });
    const ordered = [...columns.values()].sort((a, b) => compareSortKeys(a.sortKey, b.sortKey));
    return {
      kind: 'histogram',
      columns: ordered.map((c) => ({ name: c.name, isStat: c.isStat })),
      rows: await pacer.map(rows, (r) => ({ timestamp: r.timestamp, values: orderMap(r.values, ordered) })),
    };
  }
  const series = collectSeries(plan.pipeline, 0, root, 0, { keepZeroCounts: true });
  series.sort((a, b) => compareSortKeys(a.sortKey, b.sortKey));
  const entries = new Map<string, number>();
  for (const s of series) entries.set(s.name, merge(entries.get(s.name), s));
  return { kind: 'object', entries: [...entries] };
}

/** Two buckets whose names collide (a key containing the joiner): counts add up, a stat keeps the last. */
function merge(previous: number | undefined, s: SeriesValue): number {
  return previous === undefined || s.isStat ? s.value : previous + s.value;
}

function orderMap(values: ReadonlyMap<string, number>, columns: readonly SeriesValue[]): Map<string, number> {
  const ordered = new Map<string, number>();
  for (const c of columns) {
    const v = values.get(c.name);
    if (v !== undefined) ordered.set(c.name, v);
  }
  return ordered;
}
