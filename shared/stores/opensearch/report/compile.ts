import type { API, Types } from '@opensearch-project/opensearch';
import type { EngineLimits, Scope } from '../../store';
import type { NestedPath } from '../../../documents/fields';
import {
  PROFILE_KEYS,
  type AggNode,
  type FilterNode,
  type Profile,
  type ReportPlan,
  type StatsAggNode,
} from '../../../report/plan/plan';
import { PERCENTILES_COMPRESSION } from '../../../report/percentiles/hazen';
import { EVERY_INDEX, indexPattern } from '../layout/indices';
import type { RollupRead } from '../../../rollups/read';
import { rollupIndexName } from '../layout/rollup-indices';
import { itemCount, rollupSplit, rollupStatsAggs } from './rollup-read';

type Query = Types.Common_QueryDsl.QueryContainer;
type Agg = Types.Common_Aggregations.AggregationContainer;

export interface CompileOptions {
  readonly indexPrefix: string;
  readonly limits: EngineLimits;
  /** Let the shard request cache answer repeated reports. @default undefined (index setting) */
  readonly requestCache?: boolean;
  /**
   * The search's own `timeout` in ms: the node stops collecting when it passes, so a report past its
   * deadline stops costing the cluster even if the aborted HTTP request is not noticed. With
   * `allow_partial_search_results: false` a shard that times out fails the search ("Time exceeded")
   * instead of answering part of the documents. @default none
   */
  readonly timeoutMs?: number;
  /**
   * Read the rollup rows of this window and the raw documents around it (./rollup-read.ts); only for plans matchRollup
   * accepts.
   */
  readonly rollup?: RollupRead;
}

/** Name of the aggregation of pipeline stage i (and of the item filter under a nested stage). */
export const stageName = (i: number): string => `s${i}`;
export const itemFilterName = (i: number): string => `s${i}i`;
/** Name of the percentiles beside the stats of stage i (a metric aggregation has no sub-aggregations). */
export const percentilesName = (i: number): string => `s${i}p`;

/** Plan → one `_search` request. Pure. */
export function compileSearch(plan: ReportPlan, scope: Scope, options: CompileOptions): API.Search_Request {
  return searchOver(
    plan,
    scope,
    options,
    compileStages(plan.pipeline, 0, options.limits, options.rollup !== undefined),
  );
}

/** The first and the last `timestamp` of the documents the report reads: aggregation `extent`, its min and max. */
export function compileTimeExtent(plan: ReportPlan, scope: Scope, options: CompileOptions): API.Search_Request {
  return searchOver(plan, scope, options, { extent: { stats: { field: 'timestamp' } } });
}

function searchOver(
  plan: ReportPlan,
  scope: Scope,
  options: CompileOptions,
  aggs: Record<string, Agg>,
): API.Search_Request {
  const rollups = options.rollup && {
    index: rollupIndexName(options.indexPrefix, plan.source, options.rollup.level),
    read: options.rollup,
  };
  return {
    index: indexPattern(options.indexPrefix, plan.source) + (rollups ? `,${rollups.index}` : ''),
    // Every index and shard of the range answers, or the report fails (503), never shrinks silently.
    ...EVERY_INDEX,
    ...(options.requestCache === undefined ? {} : { request_cache: options.requestCache }),
    body: {
      size: 0,
      track_total_hits: false,
      ...(options.timeoutMs === undefined ? {} : { timeout: `${Math.max(1, Math.floor(options.timeoutMs))}ms` }),
      query: {
        bool: {
          filter: [...compileScope(plan, scope), ...(rollups ? [rollupSplit(rollups.index, rollups.read)] : [])],
        },
      },
      aggs,
    },
  };
}

function compileScope(plan: ReportPlan, scope: Scope): Query[] {
  const clauses: Query[] = [{ term: { organizationId: scope.organizationId } }];
  if (plan.locationIds) clauses.push({ terms: { locationId: [...plan.locationIds] } });
  clauses.push(...plan.filters.map(compileFilter));
  for (const nf of plan.nestedFilters) {
    clauses.push({ nested: { path: nf.path, query: { bool: { filter: nf.filters.map(compileFilter) } } } });
  }
  return clauses;
}

export function compileFilter(f: FilterNode): Query {
  if (f.kind === 'terms') return { terms: { [f.field.name]: [...f.values] } };
  const bounds: Record<string, unknown> = {};
  if (f.from !== undefined) bounds.gte = f.from;
  if (f.to !== undefined) bounds.lt = f.to;
  if (f.field.kind === 'date') bounds.format = 'epoch_millis';
  return { range: { [f.field.name]: bounds } };
}

/**
 * The aggregations of stage i under one bucket by name: the stage's own, its percentiles beside a
 * stats stage, and with rollups (`rollup`) what a rollup row needs besides: the item count under
 * every bucket at or below a nested stage (a root bucket counts a row as its `_doc_count`), a stats
 * stage's measures beside it (matchRollup leaves percentiles to raw).
 */
function compileStages(
  pipeline: readonly AggNode[],
  i: number,
  limits: EngineLimits,
  rollup: boolean,
  path?: NestedPath,
): Record<string, Agg> {
  const node = pipeline[i] as AggNode;
  if (rollup && node.kind === 'stats') return rollupStatsAggs(stageName(i), node.field);
  const itemsPath = node.kind === 'nested' ? node.path : path;
  const own = { [stageName(i)]: compileStage(pipeline, i, limits, rollup, itemsPath) };
  return node.kind === 'stats' && node.percentiles ? { ...own, [percentilesName(i)]: compilePercentiles(node) } : own;
}

/**
 * The t-digest of OpenSearch's `percentiles`, with a compression that keeps it exact up to
 * EXACT_PERCENTILE_VALUES values per bucket (../../../report/percentiles/hazen.ts says why); `keyed: false`
 * answers a list of {key, value}, by ascending key (execute.ts matches them by key).
 */
function compilePercentiles(node: StatsAggNode): Agg {
  return {
    percentiles: {
      field: node.field.name,
      percents: (node.percentiles ?? []).map((p) => p.percent),
      keyed: false,
      tdigest: { compression: PERCENTILES_COMPRESSION },
    },
  } as Agg;
}

function compileStage(
  pipeline: readonly AggNode[],
  i: number,
  limits: EngineLimits,
  rollup: boolean,
  path: NestedPath | undefined,
): Agg {
  const node = pipeline[i] as AggNode;
  const children = {
    ...(i + 1 < pipeline.length ? compileStages(pipeline, i + 1, limits, rollup, path) : {}),
    ...(rollup && path && node.kind !== 'stats' ? itemCount(path) : {}),
  };
  const next = Object.keys(children).length > 0 ? children : undefined;
  const withNext = (agg: Agg): Agg => (next ? { ...agg, aggs: next } : agg);
  switch (node.kind) {
    case 'dateHistogram':
      return withNext({ date_histogram: compileHistogram(node) } as Agg);
    case 'terms': {
      const source = node.profile ? { script: profileScript(node.profile) } : { field: node.field.name };
      return withNext({
        terms: { ...source, size: limits.termsCap, min_doc_count: 1, order: { _key: 'asc' } },
      } as Agg);
    }
    case 'stats':
      return { stats: { field: node.field.name } };
    case 'filter':
      return withNext({ filter: compileFilter(node.filter) });
    case 'filters':
      return withNext({
        filters: { filters: Object.fromEntries(node.buckets.map((b) => [b.name, compileFilter(b.filter)])) },
      });
    case 'nested': {
      if (node.itemFilters.length === 0) return withNext({ nested: { path: node.path } });
      // Only the items that match the nestedFilters of this path are counted below this stage.
      const items: Agg = { filter: { bool: { filter: node.itemFilters.map(compileFilter) } } };
      return { nested: { path: node.path }, aggs: { [itemFilterName(i)]: next ? { ...items, aggs: next } : items } };
    }
    case 'reverseNested':
      return withNext({ reverse_nested: {} });
  }
}

/**
 * The key of a profile stage, per document: a terms script rather than a runtime field (the engine's
 * own derived fields are newer than the OpenSearch versions this service supports). The source is
 * constant and the zone and key names are parameters, so the node compiles it once and caches it;
 * what it costs is a script run per matching document and no global ordinals, unlike terms on a
 * keyword field. The keys are those of PROFILE_KEYS.
 */
function profileScript(profile: Profile): Types.Common.Script {
  const local = "ZonedDateTime t = doc['timestamp'].value.withZoneSameInstant(ZoneId.of(params.tz));";
  const key = profile.unit === 'hour' ? 'params.keys[t.getHour()]' : 'params.keys[t.getDayOfWeek().getValue() - 1]';
  return {
    lang: 'painless',
    source: `${local} return ${key};`,
    params: { tz: profile.timeZone, keys: [...PROFILE_KEYS[profile.unit]] },
  };
}

type DateHistogram = Types.Common_Aggregations.DateHistogramAggregationFields;

function compileHistogram(node: Extract<AggNode, { kind: 'dateHistogram' }>): DateHistogram {
  const interval =
    node.interval.kind === 'fixed'
      ? { fixed_interval: `${node.interval.ms}ms` }
      : { calendar_interval: `1${node.interval.unit}` };
  const bounds: { min?: number; max?: number } = {};
  if (node.bounds?.from !== undefined) bounds.min = node.bounds.from;
  // extended_bounds.max is inclusive; our ranges are half-open.
  if (node.bounds?.to !== undefined) bounds.max = node.bounds.to - 1;
  return {
    field: 'timestamp',
    ...interval,
    time_zone: node.timeZone,
    min_doc_count: 0,
    ...(Object.keys(bounds).length > 0 ? { extended_bounds: bounds } : {}),
  } as DateHistogram;
}
