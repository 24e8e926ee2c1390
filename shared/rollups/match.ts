import { ZoneOffsets } from '../time/zone-offsets';
import type { FieldDef } from '../documents/fields';
import type { AggNode, FilterNode, HistogramInterval, ProfileUnit, ReportPlan, StatName } from '../report/plan/plan';

/**
 * The rollups' grain: 15 minutes of UTC time, so that every zone in use today (offsets of :30 and
 * :45 included) and 15m/30m/45m/90m intervals are served (docs/rollups.md says why not 1 hour).
 */
export const ROLLUP_GRAIN_MS = 15 * 60_000;

const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * The grain's start of a time: `ms` floored to a multiple of `grainMs` (also before 1970; Infinity,
 * a watermark with nothing dirty, stays Infinity). The one grain floor of both stores, in TypeScript
 * (DuckDB writes the same floor in SQL where a statement groups rows).
 */
export const grainOf = (ms: number, grainMs: number = ROLLUP_GRAIN_MS): number =>
  Number.isFinite(ms) ? ms - (((ms % grainMs) + grainMs) % grainMs) : ms;

/**
 * The levels of rollups kept for a grain, on both engines: the grain, then hours and UTC days where
 * they are coarser multiples of it (15 minutes: 15m, 1h, 1d). A report reads the coarsest level the
 * matcher accepts (`matchRollup(plan, level)`): a UTC day report reads days, a Berlin one hours, a
 * Kolkata one quarters.
 */
export function rollupLevels(grainMs: number = ROLLUP_GRAIN_MS): number[] {
  return [...new Set([grainMs, HOUR, DAY])].filter(
    (level) => level >= grainMs && level % grainMs === 0 && DAY % level === 0,
  );
}

/**
 * Rollups cover grains in [2000, 2100): the zones are checked over this window once per zone, and
 * documents outside it (none in practice) are read raw, merged like any raw tail.
 */
export const ROLLUP_WINDOW = { from: Date.UTC(2000, 0, 1), to: Date.UTC(2100, 0, 1) } as const;

/** The span of a profile's unit: a row must lie within one of them (a local hour or day starts on one). */
const PROFILE_UNIT_MS: Readonly<Record<ProfileUnit, number>> = { hour: HOUR, weekday: DAY };

/** Stats that add up per grain: count, min, max, sum, and avg as sum ÷ count (the shaper divides). */
const EXACT_STATS: ReadonlySet<string> = new Set<StatName>(['count', 'min', 'max', 'sum', 'avg']);

/**
 * The decision for one report: `rollup` with the grain-aligned window the rollup rows cover (the
 * rest of the report's range, and whatever an engine's watermark leaves out, is read raw and merged
 * before the stages, see docs/rollups.md), or `raw` with the reason.
 */
export type RollupDecision =
  | { readonly use: 'rollup'; readonly window: { readonly from: number; readonly to: number } }
  | { readonly use: 'raw'; readonly reason: string };

const raw = (reason: string): RollupDecision => ({ use: 'raw', reason });

/**
 * Why an engine reads raw a report the matcher accepted, in the same words on both engines (the
 * answer's `Server-Timing` carries them, docs/rollups.md).
 */
export const ENGINE_RAW_REASONS = {
  notReady: (collection: string): string => `the rollups of ${collection} are not built yet`,
  pastWatermark: (watermark: number): string =>
    `the rollups are complete only up to ${new Date(watermark).toISOString()}, before this time range`,
  inexactSum: 'a stats value to add is not an integer: only the documents give its exact sum',
} as const;

/**
 * Whether `plan` can be answered from rollups of grain `grainMs` with the very answer its documents
 * give: every filter and grouping on a rollup dimension (keyword fields, the grain's time), time
 * zones whose offsets and transitions fall on grains over the whole window, stats that add up
 * exactly. Pure and engine-neutral: both engines take this decision from the same plan. Stats sums
 * are exact only over integers: an engine checks that on the rows it reads (docs/rollups.md).
 */
export function matchRollup(plan: ReportPlan, grainMs: number = ROLLUP_GRAIN_MS): RollupDecision {
  const window = windowOf(plan, grainMs);
  if (window.from >= window.to) return raw('the time range holds no whole grain');
  if (plan.nestedFilters.length > 0) return raw('nestedFilters select documents by their items');
  for (const f of plan.filters) {
    if (f.kind === 'range' && f.field.name === 'timestamp') continue;
    if (!onDimension(f)) return raw(`the filter on ${f.field.name} is not on a rollup dimension`);
  }
  if (plan.pipeline.filter((n) => n.kind === 'nested').length > 1) return raw('more than one nested stage');
  const underFilters = plan.pipeline.some((n) => n.kind === 'filters');
  for (const node of plan.pipeline) {
    const reason = stageReason(node, grainMs, window, underFilters);
    if (reason) return raw(reason);
  }
  return { use: 'rollup', window };
}

/** Why a stage keeps the report from rollups, or undefined. */
function stageReason(node: AggNode, grainMs: number, window: Window, underFilters: boolean): string | undefined {
  switch (node.kind) {
    case 'dateHistogram':
      if (!intervalOnGrains(node.interval, grainMs))
        return `a ${node.interval.text} interval is not a multiple of the grain`;
      return zoneReason(node.timeZone, grainMs, window);
    case 'terms':
      if (node.profile) {
        // A row of a coarser level than the unit holds documents of several hours: their hour is gone.
        if (PROFILE_UNIT_MS[node.profile.unit] % grainMs !== 0)
          return `a profile by ${node.profile.unit} cannot be read from rows of ${grainMs / 60_000} minutes`;
        return zoneReason(node.profile.timeZone, grainMs, window);
      }
      return node.field.kind === 'keyword' ? undefined : `terms on ${node.field.name} is not on a rollup dimension`;
    case 'filter':
      return filterReason(node.filter, grainMs);
    case 'filters':
      return node.buckets.map((b) => filterReason(b.filter, grainMs)).find((r) => r !== undefined);
    case 'nested':
      return node.itemFilters.length > 0 ? 'nested items are filtered' : undefined;
    case 'reverseNested':
      return 'reverseNested counts each document once per bucket its items reach';
    case 'stats':
      if (underFilters) return 'stats under a filters stage are summed per document';
      if ((node.percentiles?.length ?? 0) > 0) return 'percentiles do not add up per grain';
      return node.stats.every((s) => EXACT_STATS.has(s))
        ? undefined
        : `stats ${node.stats.filter((s) => !EXACT_STATS.has(s)).join(', ')} do not add up per grain`;
    default:
      return `a ${(node as { kind: string }).kind} stage is not rolled up`;
  }
}

const onDimension = (f: FilterNode): boolean => f.kind === 'terms' && isDimension(f.field);

/** Rollup dimensions: every keyword field (root and nested); the time only as grains. */
export const isDimension = (f: FieldDef): boolean => f.kind === 'keyword';

function filterReason(f: FilterNode, grainMs: number): string | undefined {
  if (onDimension(f)) return undefined;
  if (f.kind === 'range' && f.field.name === 'timestamp' && onGrain(f.from, grainMs) && onGrain(f.to, grainMs))
    return undefined;
  return f.kind === 'range' && f.field.name === 'timestamp'
    ? 'a timestamp range in an aggregation has a bound inside a grain'
    : `the filter on ${f.field.name} is not on a rollup dimension`;
}

const onGrain = (ms: number | undefined, grainMs: number): boolean => ms === undefined || ms % grainMs === 0;

function intervalOnGrains(interval: HistogramInterval, grainMs: number): boolean {
  return interval.kind === 'calendar' || interval.ms % grainMs === 0;
}

interface Window {
  readonly from: number;
  readonly to: number;
}

/** The whole grains of the report's time range within ROLLUP_WINDOW. */
function windowOf(plan: ReportPlan, grainMs: number): Window {
  const { from, to } = plan.timeRange ?? {};
  return {
    from: Math.max(ROLLUP_WINDOW.from, from === undefined ? -Infinity : Math.ceil(from / grainMs) * grainMs),
    to: Math.min(ROLLUP_WINDOW.to, to === undefined ? Infinity : Math.floor(to / grainMs) * grainMs),
  };
}

/**
 * Why a zone's local time cannot be read from grains over `window`, or undefined: every offset in
 * force and every transition there must be a multiple of the grain, so that no local day, hour or
 * interval boundary falls inside a grain.
 */
function zoneReason(zone: string, grainMs: number, window: Window): string | undefined {
  const offsets = zoneOffsets(zone);
  const first = offsets.indexAt(window.from);
  const last = offsets.indexAt(window.to - 1);
  for (let i = first; i <= last; i++) {
    const { start, offset } = offsets.period(i);
    if (offset % grainMs !== 0) return `${zone} has the offset ${offset / 60_000} min, not a multiple of the grain`;
    if (i > first && start % grainMs !== 0)
      return `${zone} changes its offset at ${new Date(start).toISOString()}, inside a grain`;
  }
  return undefined;
}

const scanned = new Map<string, ZoneOffsets>();

/** A zone's offsets over ROLLUP_WINDOW, scanned with Intl once per zone. */
function zoneOffsets(zone: string): ZoneOffsets {
  let offsets = scanned.get(zone);
  if (!offsets) {
    offsets = ZoneOffsets.scan(zone, ROLLUP_WINDOW.from, ROLLUP_WINDOW.to);
    scanned.set(zone, offsets);
  }
  return offsets;
}
