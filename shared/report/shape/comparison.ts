import type { AggResult, EngineResult } from '../../stores/store';
import type { Periods } from '../compare/periods';
import { Pacer } from '../pace';
import type { HistogramInterval } from '../plan/plan';
import { ZoneOffsets } from '../../time/zone-offsets';
import {
  histogramSeries,
  objectEntries,
  objectSeries,
  orderMap,
  sortSeries,
  type Column,
  type HistogramModel,
  type HistogramRow,
  type ObjectModel,
} from './model';
import type { SeriesValue } from './series';

/**
 * A `compare` report's model: both periods shaped as their own reports would be, then paired.
 *
 * Time buckets are paired by their place in their period, on the wall clock: calendar buckets
 * (`1d`, `1w`, `1M`, `1q`, `1y`) by their rank (the third day with the third day, the second month
 * with the second month, whatever their lengths), fixed buckets by how long after the period's first
 * bucket they start in local time (`03:00` with `03:00` on a day that skipped `02:00`). A bucket
 * without a partner (the 30th and 31st of March against February, the `02:00` the spring day lacks,
 * the second `02:00` of an autumn day) gets a row of its own, in time order, so that neither period
 * loses a bucket and each period's buckets still sum to its total.
 */
export interface AlignedRow {
  readonly current?: HistogramRow;
  readonly previous?: HistogramRow;
}

export interface HistogramComparisonModel {
  readonly kind: 'histogramComparison';
  /** Every series of either period, in tree order: the columns of both periods in CSV. */
  readonly columns: readonly Column[];
  readonly rows: readonly AlignedRow[];
}

export interface ObjectComparisonModel {
  readonly kind: 'objectComparison';
  readonly columns: readonly Column[];
  readonly current: readonly (readonly [string, number])[];
  readonly previous: readonly (readonly [string, number])[];
}

/**
 * Any report's model: one period (./model.ts), or a report and the same report over an earlier period (`compare`),
 * paired.
 */
export type ReportModel = HistogramModel | ObjectModel | HistogramComparisonModel | ObjectComparisonModel;

/** Both periods' results → one model; the same for every engine. */
export async function shapeComparison(
  periods: Periods,
  current: EngineResult,
  previous: EngineResult,
  pacer = new Pacer(),
): Promise<HistogramComparisonModel | ObjectComparisonModel> {
  const [a, b] = [current.root, previous.root];
  const histogram = periods.current.pipeline[0];
  if (a.kind === 'histogram' && b.kind === 'histogram' && histogram?.kind === 'dateHistogram') {
    const [ours, theirs] = [
      await histogramSeries(periods.current, a, pacer),
      await histogramSeries(periods.previous, b, pacer),
    ];
    const columns = sortSeries([...ours.series, ...theirs.series]).map(toColumn);
    const ordered = (rows: readonly HistogramRow[]) =>
      pacer.map(rows, (r) => ({ timestamp: r.timestamp, values: orderMap(r.values, columns) }));
    const place = (rows: readonly HistogramRow[]) => places(rows, histogram.interval, histogram.timeZone);
    return {
      kind: 'histogramComparison',
      columns,
      rows: pair(await ordered(ours.rows), await ordered(theirs.rows), place),
    };
  }
  const [ours, theirs] = [
    objectSeries(periods.current, a as AggResult),
    objectSeries(periods.previous, b as AggResult),
  ];
  return {
    kind: 'objectComparison',
    columns: sortSeries([...ours, ...theirs]).map(toColumn),
    current: objectEntries(ours),
    previous: objectEntries(theirs),
  };
}

const toColumn = (s: SeriesValue): Column => ({ name: s.name, isStat: s.isStat });

/** Each bucket's place in its period (see AlignedRow): a rank, or local time since the first bucket in intervals. */
function places(rows: readonly HistogramRow[], interval: HistogramInterval, zone: string): number[] {
  const first = rows[0];
  if (interval.kind === 'calendar' || !first) return rows.map((_, i) => i);
  const offsets = ZoneOffsets.scan(zone, first.timestamp, (rows.at(-1) as HistogramRow).timestamp);
  const local = (t: number): number => t + offsets.offsetAt(t);
  const start = local(first.timestamp);
  return rows.map((r) => Math.floor((local(r.timestamp) - start) / interval.ms));
}

/**
 * Rows of equal place paired, in order; a row whose place the other period has not next stands
 * alone (places rise, except over a repeated autumn hour, whose second pass then stands alone).
 */
function pair(
  current: readonly HistogramRow[],
  previous: readonly HistogramRow[],
  place: (rows: readonly HistogramRow[]) => number[],
): AlignedRow[] {
  const [p, q] = [place(current), place(previous)];
  const out: AlignedRow[] = [];
  let [i, j] = [0, 0];
  while (i < current.length || j < previous.length) {
    const [c, d] = [current[i], previous[j]];
    if (c && d && p[i] === q[j]) out.push({ current: c, previous: d }), i++, j++;
    else if (c && (!d || (p[i] as number) < (q[j] as number))) out.push({ current: c }), i++;
    else out.push({ previous: d as HistogramRow }), j++;
  }
  return out;
}
