import type { EngineLimits } from '../../../store';
import type { AggNode, Profile, ReportPlan, StatsAggNode } from '../../../../report/plan/plan';
import type { OffsetPeriod } from '../../../../time/zone-offsets';
import { hasPercentiles, resultColumns, type ResultColumnsSql } from '../result-row';
import type { RollupRead } from '../../../../rollups/read';
import { percentilePart } from './percentile-sql';
import type { KeySegment } from './buckets';
import { histogramKeySql } from './histogram-sql';
import { profileKeySql } from './profile-sql';
import type { SqlParams } from './sql-params';

/** What the compilers are given besides the plan and the scope. */
export interface CompileOptions {
  readonly limits: EngineLimits;
  /** Key segments of the dateHistogram (first stage), from buckets.ts. */
  readonly histogramSegments?: readonly KeySegment[];
  /** UTC offset periods over the report's time range, per time zone of a profile stage (profile-sql.ts). */
  readonly profileOffsets?: ReadonlyMap<string, readonly OffsetPeriod[]>;
  /** Compile stage by stage even where the grouped compilation applies (tests compare the two). */
  readonly stageByStage?: boolean;
  /** The scope numbers of the report's organization and locations, where readsItemsAlone (compileScopeNumbers). */
  readonly scopeNumbers?: readonly number[];
  /**
   * Read the rollup rows of this window and the raw rows around it (./rollup-read.ts); only for plans matchRollup
   * accepts.
   */
  readonly rollup?: RollupRead;
}

/** Stages that add a key column: dateHistogram, terms, filters. */
export const addsKey = (n: AggNode): boolean =>
  n.kind === 'dateHistogram' || n.kind === 'terms' || n.kind === 'filters';

/** What both compilations share: the output rows (result-row.ts), the terms ranking and cap. */
export abstract class Compiler {
  protected readonly ctes: string[] = [];
  private readonly parts: string[] = [];
  private readonly keyColumns: number;
  private readonly withPercentiles: boolean;

  constructor(
    protected readonly plan: ReportPlan,
    protected readonly params: SqlParams,
    protected readonly options: CompileOptions,
  ) {
    this.keyColumns = plan.pipeline.filter(addsKey).length;
    this.withPercentiles = hasPercentiles(plan.pipeline);
  }

  protected statement(): string {
    return `WITH ${this.ctes.join(',\n')}\n${this.parts.join('\nUNION ALL\n')}`;
  }

  /** One part of the statement's UNION ALL: a result row per row of `from`. */
  protected part(row: ResultColumnsSql, from: string): void {
    this.parts.push(`SELECT ${resultColumns(row, this.keyColumns, this.withPercentiles)} FROM ${from}`);
  }

  /** The `pct` part of stats stage i, if it asks for percentiles: the values `x` of `rel` by `keys`. */
  protected percentiles(i: number, node: StatsAggNode, x: string, rel: string, keys: readonly string[]): void {
    if (!node.percentiles) return;
    const { row, from } = percentilePart(node.percentiles, x, rel, keys, this.params);
    this.part({ ...row, lvl: i }, from);
  }

  protected histogramKey(column: string): string {
    const segments = this.options.histogramSegments;
    if (!segments) throw new Error('dateHistogram needs key segments');
    return histogramKeySql(
      (this.plan.pipeline[0] as AggNode & { kind: 'dateHistogram' }).interval,
      segments,
      column,
      this.params,
    );
  }

  /** The key of a profile stage (a terms stage with `profile`) over a timestamp column. */
  protected profileKey(profile: Profile, column: string): string {
    const periods = this.options.profileOffsets?.get(profile.timeZone);
    if (!periods) throw new Error(`a profile in ${profile.timeZone} needs its offset periods`);
    return profileKeySql(profile, periods, column, this.params);
  }

  /** The `n` rows of stage i: the rows of `rel` (`count` of each) per key tuple and shard. */
  protected counts(i: number, rel: string, keys: readonly string[], count: string): void {
    this.part({ what: "'n'", lvl: i, keys, n: count, shard: '_shard' }, `${rel}${this.groupBy([...keys, '_shard'])}`);
  }

  /**
   * terms, given `g<i>`, the counts per (parent keys, key, shard): per parent key tuple only the
   * `termsCap` smallest keys (binary order, as OpenSearch orders keyword keys) go on to the next
   * stage (`r<i>`: the rank of each key in its parent bucket). The count rows also list the keys
   * each shard returns although they are cut overall (`x`: a shard returns its own `termsCap`
   * smallest keys; ordered by key, OpenSearch does not inflate shard_size), because they shape the
   * order in which OpenSearch merges the shard results (see read.ts, merge-sort.ts). Returns the
   * cap's placeholder.
   */
  protected rankTerms(i: number, parentKeys: readonly string[], k: string): string {
    const all = [...parentKeys, k];
    const cap = this.params.add(this.options.limits.termsCap, 'BIGINT');
    this.ctes.push(
      `r${i} AS (SELECT ${all.join(', ')}, ${this.rowNumber(parentKeys, k)} AS rn FROM (SELECT DISTINCT ${all.join(', ')} FROM g${i}))`,
    );
    const on = all.map((key) => `g.${key} = r.${key}`).join(' AND ');
    const ranked = `SELECT g.*, r.rn, ${this.rowNumber([...parentKeys.map((key) => `g.${key}`), 'g._shard'], `g.${k}`)} AS srn FROM g${i} g JOIN r${i} r ON ${on}`;
    this.part(
      { what: `CASE WHEN rn <= ${cap} THEN 'n' ELSE 'x' END`, lvl: i, keys: all, n: 'n', shard: '_shard' },
      `(${ranked}) WHERE srn <= ${cap}`,
    );
    this.part({ what: "'cut'", lvl: i, keys: [], n: 'count(*)', shard: 'NULL' }, `r${i} WHERE rn > ${cap}`);
    return cap;
  }

  /**
   * The row number of each row by `order` within its `partition` (the rows are distinct on both).
   * Over rollups, as the position in (partition, order) less the rows of earlier partitions (rank()
   * of the partition, + 1): the same numbers, but a window with PARTITION BY costs DuckDB a fixed
   * hash partitioning (tens of MB allocated) that dominates a statement over a few thousand rollup
   * rows, while over raw groups (up to millions) the partitions spread the sort over the threads.
   */
  private rowNumber(partition: readonly string[], order: string): string {
    if (partition.length === 0) return `row_number() OVER (ORDER BY ${order})`;
    const by = partition.join(', ');
    if (!this.options.rollup) return `row_number() OVER (PARTITION BY ${by} ORDER BY ${order})`;
    return `(row_number() OVER (ORDER BY ${by}, ${order}) - rank() OVER (ORDER BY ${by}) + 1)`;
  }

  protected groupBy(keys: readonly string[]): string {
    return keys.length > 0 ? ` GROUP BY ${keys.join(', ')}` : '';
  }
}
