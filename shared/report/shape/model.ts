import type { AggResult, EngineResult } from '../../stores/store';
import { Pacer } from '../pace';
import type { ReportPlan } from '../plan/plan';
import { collectSeries, compareSortKeys, type SeriesValue } from './series';

/** A series: a CSV column, a property of the rows. */
export interface Column {
  readonly name: string;
  readonly isStat: boolean;
}

/** One time bucket: its start and the value of every series it holds. */
export interface HistogramRow {
  readonly timestamp: number;
  readonly values: ReadonlyMap<string, number>;
}

/** Spec shape 1: one row per time bucket. Absent series had no documents in that bucket. */
export interface HistogramModel {
  readonly kind: 'histogram';
  /** Every series of any row, in tree order; `stat` columns are left empty in CSV when absent, counts are 0. */
  readonly columns: readonly Column[];
  readonly rows: readonly HistogramRow[];
}

/** Spec shape 2: one object of named values. */
export interface ObjectModel {
  readonly kind: 'object';
  readonly entries: readonly (readonly [string, number])[];
}

/**
 * Engine result → response model, the same for every engine. The rows are shaped in the pacer's
 * turns (a split answer may hold a few hundred thousand buckets).
 */
export async function shapeReport(
  plan: ReportPlan,
  result: EngineResult,
  pacer = new Pacer(),
): Promise<HistogramModel | ObjectModel> {
  const root = result.root;
  if (root.kind === 'histogram') {
    const { series, rows } = await histogramSeries(plan, root, pacer);
    return orderedHistogram(series, rows, pacer);
  }
  const series = objectSeries(plan, root);
  return { kind: 'object', entries: objectEntries(series) };
}

/** The series of a histogram in first-seen order, and its rows (values in no particular order). */
export async function histogramSeries(plan: ReportPlan, root: Extract<AggResult, { kind: 'histogram' }>, pacer: Pacer) {
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
  return { series: [...columns.values()], rows };
}

/** `series` in tree order as the columns, and the rows' values in that order. */
export async function orderedHistogram(
  series: readonly SeriesValue[],
  rows: readonly HistogramRow[],
  pacer: Pacer,
): Promise<HistogramModel> {
  const ordered = sortSeries(series);
  return {
    kind: 'histogram',
    columns: ordered.map((c) => ({ name: c.name, isStat: c.isStat })),
    rows: await pacer.map(rows, (r) => ({ timestamp: r.timestamp, values: orderMap(r.values, ordered) })),
  };
}

/** Every series value of an object-shape result, in tree order (counts of 0 kept; names may repeat). */
export function objectSeries(plan: ReportPlan, root: AggResult): SeriesValue[] {
  return collectSeries(plan.pipeline, 0, root, 0, { keepZeroCounts: true }).sort((a, b) =>
    compareSortKeys(a.sortKey, b.sortKey),
  );
}

export function objectEntries(series: readonly SeriesValue[]): [string, number][] {
  const entries = new Map<string, number>();
  for (const s of series) entries.set(s.name, merge(entries.get(s.name), s));
  return [...entries];
}

/** In tree order, one per name (the first seen, as the rows keep the first seen's place). */
export function sortSeries(series: readonly SeriesValue[]): SeriesValue[] {
  const byName = new Map<string, SeriesValue>();
  for (const s of series) if (!byName.has(s.name)) byName.set(s.name, s);
  return [...byName.values()].sort((a, b) => compareSortKeys(a.sortKey, b.sortKey));
}

/** Two buckets whose names collide (a key containing the joiner): counts add up, a stat keeps the last. */
function merge(previous: number | undefined, s: SeriesValue): number {
  return previous === undefined || s.isStat ? s.value : previous + s.value;
}

export function orderMap(values: ReadonlyMap<string, number>, columns: readonly Column[]): Map<string, number> {
  const ordered = new Map<string, number>();
  for (const c of columns) {
    const v = values.get(c.name);
    if (v !== undefined) ordered.set(c.name, v);
  }
  return ordered;
}
