import type { AggNode } from '../../../plan/plan';
import type { CompileOptions } from './compile';
import { histogramKeySql } from './histogram-sql';
import type { SqlParams } from './sql-params';
import type { ReportPlan } from '../../../plan/plan';

/** Stages that add a key column: dateHistogram, terms, filters. */
export const addsKey = (n: AggNode): boolean => n.kind === 'dateHistogram' || n.kind === 'terms' || n.kind === 'filters';

export const NO_STATS = 'NULL::DOUBLE AS mn, NULL::DOUBLE AS mx, NULL::DOUBLE AS sm';

/** What both compilations share: the output rows, the terms ranking and cap. */
export abstract class Compiler {
  protected readonly ctes: string[] = [];
  protected readonly parts: string[] = [];
  private readonly keyColumns: number;

  constructor(
    protected readonly plan: ReportPlan,
    protected readonly params: SqlParams,
    protected readonly options: CompileOptions,
  ) {
    this.keyColumns = plan.pipeline.filter(addsKey).length;
  }

  protected statement(): string {
    return `WITH ${this.ctes.join(',\n')}\n${this.parts.join('\nUNION ALL\n')}`;
  }

  protected histogramKey(column: string): string {
    const segments = this.options.histogramSegments;
    if (!segments) throw new Error('dateHistogram needs key segments');
    return histogramKeySql((this.plan.pipeline[0] as AggNode & { kind: 'dateHistogram' }).interval, segments, column, this.params);
  }

  /** The `n` rows of stage i: the rows of `rel` (`count` of each) per key tuple and shard. */
  protected counts(i: number, rel: string, keys: readonly string[], count: string): void {
    this.parts.push(
      `SELECT 'n' AS what, ${i} AS lvl, ${this.keyList(keys)}, ${count} AS n, ${NO_STATS}, _shard AS shard FROM ${rel}${this.groupBy([...keys, '_shard'])}`,
    );
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
    const partition = (alias: string, extra: string[]) => {
      const cols = [...parentKeys.map((key) => `${alias}${key}`), ...extra];
      return cols.length > 0 ? `PARTITION BY ${cols.join(', ')} ` : '';
    };
    this.ctes.push(
      `r${i} AS (SELECT ${all.join(', ')}, row_number() OVER (${partition('', [])}ORDER BY ${k}) AS rn FROM (SELECT DISTINCT ${all.join(', ')} FROM g${i}))`,
    );
    const on = all.map((key) => `g.${key} = r.${key}`).join(' AND ');
    const ranked = `SELECT g.*, r.rn, row_number() OVER (${partition('g.', ['g._shard'])}ORDER BY g.${k}) AS srn FROM g${i} g JOIN r${i} r ON ${on}`;
    this.parts.push(
      `SELECT CASE WHEN rn <= ${cap} THEN 'n' ELSE 'x' END AS what, ${i} AS lvl, ${this.keyList(all)}, n, ${NO_STATS}, _shard AS shard FROM (${ranked}) WHERE srn <= ${cap}`,
    );
    this.parts.push(`SELECT 'cut' AS what, ${i} AS lvl, ${this.keyList([])}, count(*) AS n, ${NO_STATS}, NULL AS shard FROM r${i} WHERE rn > ${cap}`);
    return cap;
  }

  /** The key columns as VARCHAR, padded with NULLs to the same width in every UNION part. */
  protected keyList(keys: readonly string[]): string {
    const cols = Array.from({ length: this.keyColumns }, (_, j) => (j < keys.length ? `CAST(${keys[j]} AS VARCHAR)` : 'NULL::VARCHAR') + ` AS k${j}`);
    return cols.length > 0 ? cols.join(', ') : 'NULL::VARCHAR AS k';
  }

  protected groupBy(keys: readonly string[]): string {
    return keys.length > 0 ? ` GROUP BY ${keys.join(', ')}` : '';
  }
}

