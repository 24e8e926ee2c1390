import { ValidationError, type FieldError } from '../../errors';
import { CATALOG, type Collection, type NestedPath } from '../../documents/fields';
import type { AggregationInput } from '../schema/aggregations';
import type { FilterInput } from '../schema/filters';
import type { ReportRequest } from '../schema/request';
import { comparePlan } from './compare-plan';
import { FieldChecker, type Context } from './field-checker';
import {
  STAT_NAMES,
  type AggNode,
  type PercentileStat,
  type FilterNode,
  type NestedFilterNode,
  type ReportPlan,
  type TimeRange,
} from './plan';
import { resolveSource, type FieldMention } from './resolve-source';
import { canonicalTimeZone } from '../../time/zones';
import { isNotBeforeFloor, TIMESTAMP_FLOOR_MESSAGE, TIMESTAMP_FORMAT_MESSAGE } from '../../time/timestamps';
import { MAX_PERCENTILES } from '../percentiles/hazen';
import { isBeforeExactly, parseAmount, parseHistogramInterval, parseRangeBound } from './time';

const MAX_FILTERS_BUCKETS = 100;
const AUTO_SPLIT = { kind: 'auto', text: 'auto' } as const;

/**
 * A structurally valid request → ReportPlan: the collection is resolved and every field is checked
 * against it, collecting all errors (after `structuralErrors`, those the schema found) before
 * answering 400. Requests from outside go through `buildPlan` (./build-plan.ts), which parses them
 * with the zod schema first; code that builds a request itself (the occupancy refresh) has it checked
 * by the compiler and comes here directly, without loading the schema.
 */
export function planFromRequest(request: ReportRequest, structuralErrors: readonly FieldError[] = []): ReportPlan {
  const resolution = resolveSource(request.source, collectMentions(request));
  if ('errors' in resolution) throw new ValidationError([...structuralErrors, ...resolution.errors]);
  return new PlanBuilder(resolution.source, structuralErrors).build(request);
}

class PlanBuilder {
  private readonly check: FieldChecker;

  constructor(
    private readonly source: Collection,
    structuralErrors: readonly FieldError[],
  ) {
    this.check = new FieldChecker(source);
    this.check.errors.push(...structuralErrors);
  }

  build(request: ReportRequest): ReportPlan {
    const filters = compact((request.filters ?? []).map((f, i) => this.filter(f, `/filters/${i}`, null, 'filters')));
    const nestedFilters = compact(
      (request.nestedFilters ?? []).map((nf, i) => this.nestedFilter(nf, `/nestedFilters/${i}`)),
    );
    const timeRange = intersectTimeRanges(filters);
    const pipeline = this.pipeline(request.aggregations, nestedFilters, timeRange);
    const splitInterval =
      request.splitInterval === undefined
        ? undefined
        : request.splitInterval === 'auto'
          ? AUTO_SPLIT
          : parseAmount(request.splitInterval);
    if (splitInterval) this.checkSplitConditions(request.aggregations, timeRange);
    const compare =
      request.compare && comparePlan(this.check, request.compare, pipeline, request.aggregations, timeRange);
    if (splitInterval) this.refusePercentilesInSlices(request.aggregations);
    if (this.check.errors.length > 0) throw new ValidationError(this.check.errors);
    return {
      source: this.source,
      ...(request.locationIds ? { locationIds: [...new Set(request.locationIds)] } : {}),
      filters,
      nestedFilters,
      pipeline,
      ...(timeRange ? { timeRange } : {}),
      ...(splitInterval ? { splitInterval } : {}),
      ...(compare ? { compare } : {}),
      deprecatedFields: this.check.deprecated(),
    };
  }

  private filter(
    f: FilterInput,
    path: string,
    context: Context,
    where: 'filters' | 'aggregation',
  ): FilterNode | undefined {
    if (f.type === 'terms') {
      const field = this.check.field(f.field, `${path}/field`, context, ['keyword'], 'a terms filter', where);
      return field && { kind: 'terms', field, values: [...new Set(f.values)] };
    }
    const field = this.check.field(f.field, `${path}/field`, context, ['number', 'date'], 'a range filter', where);
    if (!field) return undefined;
    if (f.from === undefined && f.to === undefined) {
      this.check.error(path, 'a range filter needs from, to or both');
      return undefined;
    }
    const from = this.bound(f.from, field.kind, `${path}/from`);
    const to = this.bound(f.to, field.kind, `${path}/to`);
    if (from === null || to === null) return undefined;
    // Compared as written: two bounds within one millisecond are in order, the range then holds no document.
    const ordered =
      typeof f.from === 'string' && typeof f.to === 'string' ? isBeforeExactly(f.from, f.to) : (from ?? 0) < (to ?? 0);
    if (from !== undefined && to !== undefined && !ordered) {
      this.check.error(`${path}/from`, 'must be before to (ranges are half-open: from inclusive, to exclusive)');
      return undefined;
    }
    return { kind: 'range', field, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
  }

  /** undefined: bound absent; null: bound invalid (error recorded). */
  private bound(value: number | string | undefined, kind: string, path: string): number | undefined | null {
    if (value === undefined) return undefined;
    if (kind === 'date') {
      const ms = typeof value === 'string' ? parseRangeBound(value) : undefined;
      if (ms === undefined) {
        this.check.error(path, TIMESTAMP_FORMAT_MESSAGE);
        return null;
      }
      // A dateHistogram's buckets reach out to the range's bounds: before the floor, their keys would be local mean
      // time.
      if (!isNotBeforeFloor(ms)) {
        this.check.error(path, TIMESTAMP_FLOOR_MESSAGE);
        return null;
      }
      return ms;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.check.error(path, 'must be a number for a numeric field');
      return null;
    }
    return value;
  }

  private nestedFilter(nf: { path: string; filters: FilterInput[] }, path: string): NestedFilterNode | undefined {
    const nestedPath = this.check.nestedPath(nf.path, `${path}/path`);
    if (!nestedPath) return undefined;
    const filters = compact(nf.filters.map((f, i) => this.filter(f, `${path}/filters/${i}`, nestedPath, 'filters')));
    return filters.length === nf.filters.length ? { path: nestedPath, filters } : undefined;
  }

  private pipeline(
    aggs: readonly AggregationInput[],
    nestedFilters: readonly NestedFilterNode[],
    timeRange?: TimeRange,
  ): AggNode[] {
    const nodes: AggNode[] = [];
    let context: Context = null;
    aggs.forEach((agg, i) => {
      const path = `/aggregations/${i}`;
      if (agg.type === 'stats' && i !== aggs.length - 1)
        this.check.error(`${path}/type`, 'stats must be the last aggregation');
      if (agg.type === 'dateHistogram' && i !== 0)
        this.check.error(`${path}/type`, 'dateHistogram must be the first aggregation');
      const node = this.aggregation(agg, path, context, nestedFilters, timeRange);
      if (!node) return;
      if (node.kind === 'nested') context = node.path;
      if (node.kind === 'reverseNested') context = null;
      nodes.push(node);
    });
    return nodes;
  }

  private aggregation(
    agg: AggregationInput,
    path: string,
    context: Context,
    nestedFilters: readonly NestedFilterNode[],
    timeRange?: TimeRange,
  ): AggNode | undefined {
    const joiner = agg.keyJoiner ?? ' ';
    switch (agg.type) {
      case 'terms': {
        const field = this.check.field(agg.field, `${path}/field`, context, ['keyword'], 'terms', 'aggregation');
        return field && { kind: 'terms', field, joiner };
      }
      case 'stats': {
        const field = this.check.field(agg.field, `${path}/field`, context, ['number'], 'stats', 'aggregation');
        const percentiles = this.percentiles(agg, path);
        const asksPercentiles = agg.median === true || (agg.percentiles?.length ?? 0) > 0;
        const asked = { min: false, max: false, avg: !asksPercentiles, sum: false, count: false, ...definedOnly(agg) };
        const stats = STAT_NAMES.filter((s) => asked[s]);
        if (stats.length === 0 && !asksPercentiles)
          this.check.error(
            path,
            'stats needs at least one of min, max, avg, sum, count, median set to true, or percentiles',
          );
        if (!field || !percentiles || (stats.length === 0 && percentiles.length === 0)) return undefined;
        return { kind: 'stats', field, stats, ...(percentiles.length > 0 ? { percentiles } : {}) };
      }
      case 'profile': {
        const timeZone = canonicalTimeZone(agg.timeZone ?? 'UTC');
        if (!timeZone)
          this.check.error(`${path}/timeZone`, 'must be an IANA time zone name such as Europe/Berlin or UTC');
        // OpenSearch's nested items carry no timestamp of their own: a profile counts documents.
        if (context !== null)
          this.check.error(
            `${path}/type`,
            `profile counts documents, not ${context} items; put it before the nested aggregation or after a reverseNested`,
          );
        const field = CATALOG[this.source].get('timestamp');
        if (!timeZone || context !== null || !field) return undefined;
        return { kind: 'terms', field, joiner, profile: { unit: agg.unit, timeZone } };
      }
      case 'dateHistogram': {
        if (agg.field !== undefined && agg.field !== 'timestamp')
          this.check.error(`${path}/field`, "must be 'timestamp' (the only allowed value)");
        const timeZone = canonicalTimeZone(agg.timeZone ?? 'UTC');
        if (!timeZone)
          this.check.error(`${path}/timeZone`, 'must be an IANA time zone name such as Europe/Berlin or UTC');
        // Disjoint timestamp ranges match nothing: no bounds, so the answer is an empty series.
        const bounds = timeRange && !isEmptyRange(timeRange) ? { bounds: timeRange } : {};
        const named = agg.timeZone === undefined ? {} : { zoneNamed: true as const };
        return timeZone
          ? { kind: 'dateHistogram', interval: parseHistogramInterval(agg.interval), timeZone, ...named, ...bounds }
          : undefined;
      }
      case 'filter': {
        const filter = this.filter(agg.filter, `${path}/filter`, context, 'aggregation');
        return filter && { kind: 'filter', filter };
      }
      case 'filters': {
        const entries = Object.entries(agg.filters);
        if (entries.length === 0 || entries.length > MAX_FILTERS_BUCKETS) {
          this.check.error(`${path}/filters`, `must name from 1 to ${MAX_FILTERS_BUCKETS} buckets`);
          return undefined;
        }
        const buckets = entries.map(([name, f]) => ({
          name,
          filter: this.filter(f, `${path}/filters/${name}`, context, 'aggregation'),
        }));
        if (buckets.some((b) => !b.filter)) return undefined;
        return { kind: 'filters', buckets: buckets as { name: string; filter: FilterNode }[], joiner };
      }
      case 'nested': {
        const nestedPath = this.check.nestedPath(agg.path, `${path}/path`);
        if (nestedPath && context !== null) {
          this.check.error(`${path}/path`, `already inside nested ${context}; add a reverseNested aggregation first`);
          return undefined;
        }
        return (
          nestedPath && { kind: 'nested', path: nestedPath, itemFilters: itemFiltersFor(nestedPath, nestedFilters) }
        );
      }
      case 'reverseNested':
        if (context === null)
          this.check.error(`${path}/type`, 'reverseNested is only allowed inside a nested aggregation');
        else if (agg.path !== undefined)
          this.check.error(
            `${path}/path`,
            `must be omitted: ${context} has no enclosing nested document, so reverseNested returns to the root document`,
          );
        return context === null || agg.path !== undefined ? undefined : { kind: 'reverseNested' };
    }
  }

  /** `median` and `percentiles` → the node's percentiles; undefined when one is invalid (errors recorded). */
  private percentiles(agg: Extract<AggregationInput, { type: 'stats' }>, path: string): PercentileStat[] | undefined {
    const out: PercentileStat[] = agg.median ? [{ name: 'median', percent: 50 }] : [];
    let valid = true;
    (agg.percentiles ?? []).forEach((percent, j) => {
      const at = `${path}/percentiles/${j}`;
      const first = agg.percentiles?.indexOf(percent) ?? j;
      if (!PERCENT.test(String(percent))) {
        this.check.error(at, 'must be a percent from 0 to 100 with at most 2 decimals, such as 50, 90 or 99.9');
        valid = false;
      } else if (first !== j) {
        this.check.error(at, `repeats percentiles/${first} (${percent}); ask for each percentile once`);
        valid = false;
      } else if (percent === 50 && agg.median) {
        this.check.error(at, 'repeats median, which is percentile 50; ask for it once');
        valid = false;
      } else {
        out.push({ name: `p${percent}`, percent });
      }
    });
    if (out.length > MAX_PERCENTILES) {
      this.check.error(`${path}/percentiles`, `at most ${MAX_PERCENTILES} percentiles, median included`);
      valid = false;
    }
    return valid ? out : undefined;
  }

  /** A split report merges slices by adding counts and sums; a percentile is neither. */
  private refusePercentilesInSlices(aggs: readonly AggregationInput[]): void {
    aggs.forEach((agg, i) => {
      if (agg.type === 'stats' && (agg.median === true || (agg.percentiles?.length ?? 0) > 0)) {
        this.check.error(
          `/aggregations/${i}/${agg.median ? 'median' : 'percentiles'}`,
          'percentiles are not answered with splitInterval (slices cannot be merged into a percentile); leave splitInterval out',
        );
      }
    });
  }

  private checkSplitConditions(aggs: readonly AggregationInput[], timeRange?: TimeRange): void {
    if (aggs[0]?.type !== 'dateHistogram') {
      this.check.error('/splitInterval', 'splitInterval needs the first aggregation to be dateHistogram');
    }
    if (timeRange?.from === undefined || timeRange.to === undefined) {
      this.check.error('/splitInterval', 'splitInterval needs a range filter on timestamp with both from and to');
    }
  }
}

/** A percent as the language writes it: 0 to 100, at most 2 decimals (String() of a JSON number; no exponent). */
const PERCENT = /^(?:100|\d{1,2})(?:\.\d{1,2})?$/;

function itemFiltersFor(path: NestedPath, nestedFilters: readonly NestedFilterNode[]): FilterNode[] {
  return nestedFilters.filter((nf) => nf.path === path).flatMap((nf) => nf.filters);
}

const isEmptyRange = (r: TimeRange): boolean => r.from !== undefined && r.to !== undefined && r.from >= r.to;

function intersectTimeRanges(filters: readonly FilterNode[]): TimeRange | undefined {
  let range: { from?: number; to?: number } | undefined;
  for (const f of filters) {
    if (f.kind !== 'range' || f.field.name !== 'timestamp') continue;
    range ??= {};
    if (f.from !== undefined) range.from = Math.max(range.from ?? -Infinity, f.from);
    if (f.to !== undefined) range.to = Math.min(range.to ?? Infinity, f.to);
  }
  return range;
}

function collectMentions(request: ReportRequest): FieldMention[] {
  const mentions: FieldMention[] = [];
  const fromFilter = (f: FilterInput, path: string) => mentions.push({ name: f.field, path: `${path}/field` });
  request.filters?.forEach((f, i) => fromFilter(f, `/filters/${i}`));
  request.nestedFilters?.forEach((nf, i) => {
    mentions.push({ name: nf.path, path: `/nestedFilters/${i}/path`, isNestedPath: true });
    nf.filters.forEach((f, j) => fromFilter(f, `/nestedFilters/${i}/filters/${j}`));
  });
  request.aggregations.forEach((agg, i) => {
    const path = `/aggregations/${i}`;
    if (agg.type === 'terms' || agg.type === 'stats') mentions.push({ name: agg.field, path: `${path}/field` });
    if (agg.type === 'nested') mentions.push({ name: agg.path, path: `${path}/path`, isNestedPath: true });
    if (agg.type === 'filter') fromFilter(agg.filter, `${path}/filter`);
    if (agg.type === 'filters') Object.entries(agg.filters).forEach(([k, f]) => fromFilter(f, `${path}/filters/${k}`));
  });
  return mentions;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function compact<T>(items: readonly (T | undefined)[]): T[] {
  return items.filter((x): x is T => x !== undefined);
}
