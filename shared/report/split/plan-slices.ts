import { ValidationError } from '../../errors';
import { localToInstant } from '../../time/local-time';
import { intlOffset } from '../../time/zone-offsets';
import type { FieldDef } from '../../documents/fields';
import { createRounding, truncLocal } from '../histogram/rounding';
import type {
  CalendarAmount,
  DateHistogramAggNode,
  FilterNode,
  IntervalUnit,
  RangeFilterNode,
  ReportPlan,
  SplitInterval,
} from '../plan/plan';

/**
 * splitInterval planning: [from, to) is cut on a grid of the split interval in the histogram's time
 * zone, and every cut is moved down to the start of the histogram bucket it falls in, so that no
 * bucket is ever shared by two slices. Each slice is an ordinary ReportPlan (no splitInterval) whose
 * timestamp range and histogram bounds are the slice, so the engine's `extended_bounds` stay inside.
 */

/** Most slices one report may be cut into, unless configured otherwise (400 problem beyond). */
export const DEFAULT_MAX_SLICES = 400;

/** A half-open time range [from, to) in epoch ms. */
export interface SliceRange {
  readonly from: number;
  readonly to: number;
}

/** One slice: its range and the plan that runs it. */
export interface Slice extends SliceRange {
  readonly plan: ReportPlan;
}

export interface PlanSlicesOptions {
  /** @default DEFAULT_MAX_SLICES */
  readonly maxSlices?: number;
}

const FIXED_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
/** Fixed split units step from the start of the next larger unit: a minute, an hour, a day (local time). */
const FIXED_ANCHOR_MS: Readonly<Record<keyof typeof FIXED_MS, number>> = { s: 60_000, m: 3_600_000, h: 86_400_000 };
/** Calendar split units in days or months. */
const CALENDAR_STEP: Readonly<
  Record<'d' | 'w' | 'M' | 'q' | 'y', { readonly days?: number; readonly months?: number }>
> = {
  d: { days: 1 },
  w: { days: 7 },
  M: { months: 1 },
  q: { months: 3 },
  y: { months: 12 },
};
/** Nominal unit lengths, only to estimate a slice count in an error message. */
const NOMINAL_MS: Readonly<Record<IntervalUnit, number>> = {
  s: 1e3,
  m: 6e4,
  h: 3.6e6,
  d: 8.64e7,
  w: 6.048e8,
  M: 2.6298e9,
  q: 7.8894e9,
  y: 3.15576e10,
};

/**
 * The slices of a plan with a splitInterval, in time order; none when the time range is empty.
 * Throws a 400 ValidationError when the grid would cut the range into more than `maxSlices` slices.
 */
export function planSlices(plan: ReportPlan, options: PlanSlicesOptions = {}): Slice[] {
  const { histogram, from, to, split } = splitParts(plan);
  if ('kind' in split) throw new Error('splitInterval auto has no grid: use planEvenSlices');
  if (from >= to) return [];
  const maxSlices = options.maxSlices ?? DEFAULT_MAX_SLICES;
  // The engines' own rounding (OpenSearch's, DST gaps and overlaps included), so cuts are real bucket starts.
  const rounding = createRounding(histogram.interval, histogram.timeZone, from, to);
  const cuts = alignCuts(splitGrid(from, to, split, histogram.timeZone, maxSlices), (t) => rounding.round(t), from, to);
  return slicesBetween(plan, [from, ...cuts, to]);
}

/**
 * `parts` slices of about equal length (for `splitInterval: "auto"`): the range is cut at equal
 * distances and every cut moved down to the start of its histogram bucket, so no bucket is shared;
 * fewer slices when cuts collapse (never more slices than buckets).
 */
export function planEvenSlices(plan: ReportPlan, parts: number): Slice[] {
  const { histogram, from, to } = splitParts(plan);
  if (from >= to) return [];
  const rounding = createRounding(histogram.interval, histogram.timeZone, from, to);
  const points = Array.from(
    { length: Math.max(1, Math.floor(parts)) - 1 },
    (_, i) => from + Math.floor(((i + 1) * (to - from)) / parts),
  );
  return slicesBetween(plan, [from, ...alignCuts(points, (t) => rounding.round(t), from, to), to]);
}

/** About how many buckets the plan's histogram has over its time range (nominal lengths for calendar units). */
export function histogramBucketEstimate(plan: ReportPlan): number {
  const { histogram, from, to } = splitParts(plan);
  const ms = histogram.interval.kind === 'fixed' ? histogram.interval.ms : NOMINAL_MS[histogram.interval.unit];
  return Math.max(0, Math.ceil((to - from) / ms));
}

function slicesBetween(plan: ReportPlan, edges: readonly number[]): Slice[] {
  return edges.slice(1).map((end, i) => {
    const range = { from: edges[i] as number, to: end };
    return { ...range, plan: slicePlan(plan, range) };
  });
}

/**
 * The plan of one slice: the base plan's timestamp range filters replaced by the slice (which lies
 * inside their intersection), the histogram bounded by it, and no splitInterval.
 */
export function slicePlan(plan: ReportPlan, range: SliceRange): ReportPlan {
  const { histogram, from, to } = splitParts(plan);
  if (range.from < from || range.to > to || range.from >= range.to) {
    throw new Error(`slice [${range.from}, ${range.to}) is not a non-empty part of [${from}, ${to})`);
  }
  const timestamp = plan.filters.find(isTimestampRange)?.field as FieldDef;
  const sliceFilter: RangeFilterNode = { kind: 'range', field: timestamp, from: range.from, to: range.to };
  const { splitInterval: _split, ...rest } = plan;
  return {
    ...rest,
    filters: [...plan.filters.filter((f) => !isTimestampRange(f)), sliceFilter],
    timeRange: { from: range.from, to: range.to },
    pipeline: [{ ...histogram, bounds: { from: range.from, to: range.to } }, ...plan.pipeline.slice(1)],
  };
}

interface SplitParts {
  readonly histogram: DateHistogramAggNode;
  readonly from: number;
  readonly to: number;
  readonly split: SplitInterval;
}

/** The parts planning needs; buildPlan has already answered 400 when one is missing. */
function splitParts(plan: ReportPlan): SplitParts {
  const histogram = plan.pipeline[0];
  const { from, to } = plan.timeRange ?? {};
  if (
    histogram?.kind !== 'dateHistogram' ||
    from === undefined ||
    to === undefined ||
    !plan.filters.some(isTimestampRange)
  ) {
    throw new Error('a split plan needs a first dateHistogram and a timestamp range with from and to');
  }
  return { histogram, from, to, split: plan.splitInterval ?? { amount: 1, unit: 'y', text: '1y' } };
}

/**
 * Grid points strictly inside (from, to). Calendar units (d w M q y) start at the zone's unit start at
 * or before `from` and step `amount` units in the zone's calendar; fixed units (s m h) step exact
 * lengths from the start of the next larger unit (a 6h split cuts at 00, 06, 12 and 18 local time).
 */
function splitGrid(from: number, to: number, split: CalendarAmount, zone: string, maxSlices: number): number[] {
  const localFrom = from + intlOffset(zone, from);
  const points: number[] = [];
  const fixed = FIXED_MS[split.unit as keyof typeof FIXED_MS];
  if (fixed) {
    const anchor = localToInstant(
      truncLocal({ kind: 'fixed', ms: FIXED_ANCHOR_MS[split.unit as keyof typeof FIXED_MS], text: '' }, localFrom),
      zone,
    );
    const step = fixed * split.amount;
    // The first grid point after from, however far the anchor lies behind.
    for (let t = anchor + (Math.floor((from - anchor) / step) + 1) * step; t < to; t += step) {
      if (points.length + 1 >= maxSlices) throw tooManySlices(from, to, split, maxSlices);
      points.push(t);
    }
    return points;
  }
  const unit = split.unit as keyof typeof CALENDAR_STEP;
  const anchor = truncLocal({ kind: 'calendar', unit, text: split.text }, localFrom);
  const { days = 0, months = 0 } = CALENDAR_STEP[unit];
  for (let k = 1; ; k++) {
    // From the anchor each time, so that month ends never drift (Jan 31 + 1 month + 1 month).
    const local = addCalendar(anchor, days * k * split.amount, months * k * split.amount);
    const t = Number.isFinite(local) ? localToInstant(local, zone) : NaN;
    if (!(t < to)) return points; // also ends on an invalid (NaN) date far beyond the range
    if (points.length + 1 >= maxSlices) throw tooManySlices(from, to, split, maxSlices);
    if (t > from) points.push(t);
  }
}

/** Local ms `days` days and `months` months after the local unit start `localMs` (a day or month start). */
function addCalendar(localMs: number, days: number, months: number): number {
  const d = new Date(localMs);
  d.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate() + days);
  return d.getTime();
}

/** Each grid point moved down to its bucket start; points that collapse or leave (from, to) are dropped. */
function alignCuts(points: readonly number[], bucketStart: (t: number) => number, from: number, to: number): number[] {
  const cuts: number[] = [];
  for (const p of points) {
    const cut = bucketStart(p);
    if (cut > from && cut < to && cut > (cuts.at(-1) ?? -Infinity)) cuts.push(cut);
  }
  return cuts;
}

function tooManySlices(from: number, to: number, split: CalendarAmount, maxSlices: number): ValidationError {
  const estimate = Math.max(maxSlices + 1, Math.ceil((to - from) / (split.amount * NOMINAL_MS[split.unit])));
  const message =
    `splitInterval "${split.text}" cuts the time range into about ${estimate.toLocaleString('en')} slices; ` +
    `at most ${maxSlices} are allowed: use a larger splitInterval or a shorter time range`;
  return new ValidationError([{ path: '/splitInterval', message }]);
}

const isTimestampRange = (f: FilterNode): f is RangeFilterNode => f.kind === 'range' && f.field.name === 'timestamp';
