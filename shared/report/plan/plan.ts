import type { Collection, FieldDef, NestedPath } from '../../documents/fields';

/**
 * A validated report: what the engines compile. Built once by `buildPlan`; never a raw body.
 * Dates are epoch milliseconds; every range is half-open [from, to).
 */
export interface ReportPlan {
  readonly source: Collection;
  readonly locationIds?: readonly string[];
  /** Root-document filters, all of which must hold. */
  readonly filters: readonly FilterNode[];
  /** Each entry: the document has at least one item at `path` matching all of `filters`. */
  readonly nestedFilters: readonly NestedFilterNode[];
  readonly pipeline: readonly AggNode[];
  /** Intersection of the root timestamp range filters, if any. */
  readonly timeRange?: TimeRange;
  readonly splitInterval?: SplitInterval;
  /**
   * Also answer the report over an earlier period (../compare/periods.ts). Never seen by an engine:
   * each period runs as a plan without it.
   */
  readonly compare?: Compare;
  /** Deprecated fields the request names (answered with a Deprecation header). */
  readonly deprecatedFields: readonly string[];
}

export interface TimeRange {
  readonly from?: number;
  readonly to?: number;
}

export type FilterNode = TermsFilterNode | RangeFilterNode;

export interface TermsFilterNode {
  readonly kind: 'terms';
  readonly field: FieldDef;
  readonly values: readonly string[];
}

export interface RangeFilterNode {
  readonly kind: 'range';
  readonly field: FieldDef;
  /** Inclusive lower bound (epoch ms for dates). */
  readonly from?: number;
  /** Exclusive upper bound (epoch ms for dates). */
  readonly to?: number;
}

export interface NestedFilterNode {
  readonly path: NestedPath;
  readonly filters: readonly FilterNode[];
}

export type StatName = 'min' | 'max' | 'avg' | 'sum' | 'count';
/** Order in which stats appear in responses (the spec's table order). */
export const STAT_NAMES: readonly StatName[] = ['min', 'max', 'avg', 'sum', 'count'];

/** `compare`: the earlier period lies `offset` before, on the calendar of `timeZone`. */
export interface Compare {
  readonly offset: CalendarAmount & { readonly unit: 'd' | 'w' | 'M' | 'q' | 'y' };
  /** The dateHistogram's time zone, or the request's `compare.timeZone` (UTC by default) without one. */
  readonly timeZone: string;
}

export type IntervalUnit = 's' | 'm' | 'h' | 'd' | 'w' | 'M' | 'q' | 'y';

/** `<amount><unit>` as written in a request. */
/** How a split report is cut: a fixed grid of `<n><unit>`, or `auto` (./split/run-split.ts). */
export type SplitInterval = CalendarAmount | AutoSplit;

/** `splitInterval: "auto"`: as few equal slices as fit the engine's bucket limit. */
export interface AutoSplit {
  readonly kind: 'auto';
  readonly text: 'auto';
}

export interface CalendarAmount {
  readonly amount: number;
  readonly unit: IntervalUnit;
  readonly text: string;
}

/**
 * Histogram interval. `calendar` intervals (1d, 1w, 1M, 1q, 1y) follow the local calendar of the
 * time zone (a day is 23 or 25 hours on DST changes); the others are fixed lengths in ms, aligned
 * to the epoch in local time.
 */
export type HistogramInterval =
  | { readonly kind: 'fixed'; readonly ms: number; readonly text: string }
  | { readonly kind: 'calendar'; readonly unit: 'd' | 'w' | 'M' | 'q' | 'y'; readonly text: string };

export type AggNode =
  | TermsAggNode
  | StatsAggNode
  | DateHistogramAggNode
  | FilterAggNode
  | FiltersAggNode
  | NestedAggNode
  | ReverseNestedAggNode;

/**
 * A terms stage; with `profile`, over a key computed from `timestamp` (the request's `profile`
 * stage) instead of a keyword field's value. In the plan a profile is a terms stage so that every
 * step after the compilers (result reading, splitting and merging, the bucket count, truncation)
 * treats it as one; only the compilers and the order of its keys (clock order) differ.
 */
export interface TermsAggNode {
  readonly kind: 'terms';
  readonly field: FieldDef;
  readonly joiner: string;
  readonly profile?: Profile;
}

export type ProfileUnit = 'hour' | 'weekday';

/** Group by the local hour of day or day of week of each document's timestamp in `timeZone`. */
export interface Profile {
  readonly unit: ProfileUnit;
  readonly timeZone: string;
}

/** The keys of a profile unit, in the order answers list them (ISO weekdays: Monday first). */
export const PROFILE_KEYS: Readonly<Record<ProfileUnit, readonly string[]>> = {
  hour: Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`),
  weekday: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
};

export interface StatsAggNode {
  readonly kind: 'stats';
  readonly field: FieldDef;
  /** The stats asked for, in STAT_NAMES order. */
  readonly stats: readonly StatName[];
  /** The percentiles asked for (`median` first, then `percentiles` in request order); none when absent. */
  readonly percentiles?: readonly PercentileStat[];
}

/** One percentile of a stats stage: the name it answers under (`median`, `p90`, `p99.9`) and its percent (0 to 100). */
export interface PercentileStat {
  readonly name: string;
  readonly percent: number;
}

export interface DateHistogramAggNode {
  readonly kind: 'dateHistogram';
  readonly interval: HistogramInterval;
  readonly timeZone: string;
  /** The request named `timeZone` (UTC or not): its CSV has a `localTime` column beside `timestamp`. */
  readonly zoneNamed?: true;
  /** Buckets span [min, max) when set (from the timestamp range filter); else first to last non-empty. */
  readonly bounds?: TimeRange;
}

export interface FilterAggNode {
  readonly kind: 'filter';
  readonly filter: FilterNode;
}

export interface FiltersAggNode {
  readonly kind: 'filters';
  readonly buckets: readonly { readonly name: string; readonly filter: FilterNode }[];
  readonly joiner: string;
}

export interface NestedAggNode {
  readonly kind: 'nested';
  readonly path: NestedPath;
  /** nestedFilters on the same path: only the items matching all of them are counted. */
  readonly itemFilters: readonly FilterNode[];
}

export interface ReverseNestedAggNode {
  readonly kind: 'reverseNested';
}
