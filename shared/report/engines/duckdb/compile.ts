import type { EngineLimits, Scope } from '../engine';
import type { AggNode, ReportPlan } from '../../plan/plan';
import type { KeySegment } from './buckets';
import { compileFilter, compileFilters, compileScope } from './compile-scope';
import { histogramKeySql } from './histogram-sql';
import { columnOf, ident, nestedTable, PARENT_ID, ROW_ID, TABLES } from './schema';
import { SqlParams, type SqlQuery } from './sql-params';

/**
 * Plan → one SQL statement. Pure. Each pipeline stage becomes a CTE `s<i+1>`: a relation of the
 * rows in that stage's context (documents, or nested items after `nested`) with the bucket keys
 * chosen so far as columns `k0, k1, ...`. A row is one document (or item) in one bucket, so
 * `count(*)` per key tuple is OpenSearch's doc_count at every level:
 *
 * - dateHistogram adds the bucket key (see histogram-sql.ts); terms adds the field value (rows
 *   without one drop out) and keeps the `termsCap` smallest keys per parent bucket; filters adds the
 *   bucket index, a row once per matching bucket; filter keeps matching rows;
 * - nested joins the child table (only items matching the path's nestedFilters); reverseNested
 *   keeps each (bucket, parent document) once and joins the parent row back;
 * - stats aggregates the field over the rows: count, min, max and a Kahan sum in document order,
 *   per "shard" (the UTC month of the document, i.e. its monthly OpenSearch index), because
 *   OpenSearch sums per shard and then adds the shard sums in index order (InternalStats.reduce):
 *   read.ts does that last step, so that sums agree with OpenSearch to the last bit.
 *
 * Every relation carries `_shard` (YYYYMM of the document, stored at ingest) and, inside nested
 * items, `_ord` (the item's insertion order). The statement returns, as one UNION ALL, rows
 * `(what, lvl, k0.., n, mn, mx, sm, shard)`, all per shard: `n` = the bucket count of stage `lvl`
 * per key tuple, `x` = a terms key beyond the cap, `stats` = a stats result, `cut` = how many terms
 * keys beyond the cap were left out (all shards). reduce.ts merges the shards as OpenSearch does.
 */
export interface CompileOptions {
  readonly limits: EngineLimits;
  /** Key segments of the dateHistogram (first stage), from buckets.ts. */
  readonly histogramSegments?: readonly KeySegment[];
}

export type ResultRowKind = 'n' | 'x' | 'stats' | 'cut';

const NO_STATS = 'NULL::DOUBLE AS mn, NULL::DOUBLE AS mx, NULL::DOUBLE AS sm';



export function compileReport(plan: ReportPlan, scope: Scope, options: CompileOptions): SqlQuery {
  const params = new SqlParams();
  const compiler = new PipelineCompiler(plan, params, options);
  const sql = compiler.compile(compileScope(plan, scope, params));
  return { sql, params: params.values };
}

/** Stages that add a key column: dateHistogram, terms, filters. */
export const addsKey = (n: AggNode): boolean => n.kind === 'dateHistogram' || n.kind === 'terms' || n.kind === 'filters';

class PipelineCompiler {
  private readonly ctes: string[] = [];
  private readonly parts: string[] = [];
  private readonly keyColumns: number;
  private rel = 's0';
  private keys: string[] = [];

  constructor(
    private readonly plan: ReportPlan,
    private readonly params: SqlParams,
    private readonly options: CompileOptions,
  ) {
    this.keyColumns = plan.pipeline.filter(addsKey).length;
  }

  compile(scopeSql: string): string {
    this.ctes.push(`s0 AS (${scopeSql})`);
    this.plan.pipeline.forEach((node, i) => this.stage(node, i));
    return `WITH ${this.ctes.join(',\n')}\n${this.parts.join('\nUNION ALL\n')}`;
  }

  private stage(node: AggNode, i: number): void {
    const out = `s${i + 1}`;
    const k = `k${this.keys.length}`;
    const keys = this.keys.map((key) => `s.${key}`);
    switch (node.kind) {
      case 'dateHistogram': {
        const segments = this.options.histogramSegments;
        if (!segments) throw new Error('dateHistogram needs key segments');
        const key = histogramKeySql(node.interval, segments, `s.${ident('timestamp')}`, this.params);
        return this.next(i, out, `SELECT s.*, ${key} AS ${k} FROM ${this.rel} s`, [...this.keys, k]);
      }
      case 'terms':
        return this.terms(i, out, ident(columnOf(node.field)), i === this.plan.pipeline.length - 1);
      case 'filters': {
        const branches = node.buckets.map(
          (b, index) => `SELECT s.*, ${index} AS ${k} FROM ${this.rel} s WHERE ${compileFilter(b.filter, 's', this.params)}`,
        );
        return this.next(i, out, branches.join(' UNION ALL '), [...this.keys, k]);
      }
      case 'filter':
        return this.next(i, out, `SELECT s.* FROM ${this.rel} s WHERE ${compileFilter(node.filter, 's', this.params)}`, this.keys);
      case 'nested': {
        const child = ident(nestedTable(this.plan.source, node.path));
        const on = `c.${ident(PARENT_ID)} = s.${ident(ROW_ID)}`;
        const select = `SELECT ${[...keys, 's._shard', 'c.*', 'c.rowid AS _ord'].join(', ')} FROM ${this.rel} s JOIN ${child} c ON ${on}`;
        return this.next(i, out, `${select} WHERE ${compileFilters(node.itemFilters, 'c', this.params)}`, this.keys);
      }
      case 'reverseNested': {
        const parents = `SELECT DISTINCT ${[...keys, `s.${ident(PARENT_ID)}`].join(', ')} FROM ${this.rel} s`;
        const root = ident(TABLES[this.plan.source].root);
        const select = [...this.keys.map((key) => `r.${key}`), 'd.*'].join(', ');
        return this.next(i, out, `SELECT ${select} FROM (${parents}) r JOIN ${root} d ON d.${ident(ROW_ID)} = r.${ident(PARENT_ID)}`, this.keys);
      }
      case 'stats': {
        const col = `s.${ident(columnOf(node.field))}`;
        const order = node.field.nestedPath ? 's._ord' : `s.${ident(ROW_ID)}`;
        const stats = `count(${col}) AS n, min(${col}) AS mn, max(${col}) AS mx, fsum(${col} ORDER BY ${order}) AS sm, s._shard AS shard`;
        this.parts.push(`SELECT 'stats' AS what, ${i} AS lvl, ${this.keyList(this.keys)}, ${stats} FROM ${this.rel} s${this.groupBy([...this.keys, '_shard'])}`);
        return;
      }
    }
  }

  /**
   * terms: the value is the key; per parent key tuple only the `termsCap` smallest keys (binary
   * order, as OpenSearch orders keyword keys) go on to the next stage. One grouped pass `g` counts
   * per (key, shard); the count rows also list the keys each shard returns although they are cut
   * overall (`x`: a shard returns its own `termsCap` smallest keys; ordered by key, OpenSearch does
   * not inflate shard_size), because they shape the order in which OpenSearch merges the shard
   * results (see read.ts, merge-sort.ts).
   */
  private terms(i: number, out: string, column: string, last: boolean): void {
    const parentKeys = this.keys;
    const k = `k${parentKeys.length}`;
    const all = [...parentKeys, k];
    const cap = this.params.add(this.options.limits.termsCap, 'BIGINT');
    const partition = (alias: string, extra: string[]) => {
      const cols = [...parentKeys.map((key) => `${alias}${key}`), ...extra];
      return cols.length > 0 ? `PARTITION BY ${cols.join(', ')} ` : '';
    };
    const selectKeys = [...parentKeys.map((key) => `s.${key}`), `s.${column} AS ${k}`].join(', ');
    this.ctes.push(`g${i} AS (SELECT ${selectKeys}, s._shard, count(*) AS n FROM ${this.rel} s WHERE s.${column} IS NOT NULL GROUP BY ALL)`);
    this.ctes.push(
      `r${i} AS (SELECT ${all.join(', ')}, row_number() OVER (${partition('', [])}ORDER BY ${k}) AS rn FROM (SELECT DISTINCT ${all.join(', ')} FROM g${i}))`,
    );
    const on = (a: string) => all.map((key) => `${a}.${key} = r.${key}`).join(' AND ');
    const ranked = `SELECT g.*, r.rn, row_number() OVER (${partition('g.', ['g._shard'])}ORDER BY g.${k}) AS srn FROM g${i} g JOIN r${i} r ON ${on('g')}`;
    this.parts.push(
      `SELECT CASE WHEN rn <= ${cap} THEN 'n' ELSE 'x' END AS what, ${i} AS lvl, ${this.keyList(all)}, n, ${NO_STATS}, _shard AS shard FROM (${ranked}) WHERE srn <= ${cap}`,
    );
    this.parts.push(`SELECT 'cut' AS what, ${i} AS lvl, ${this.keyList([])}, count(*) AS n, ${NO_STATS}, NULL AS shard FROM r${i} WHERE rn > ${cap}`);
    if (!last) {
      const join = `JOIN r${i} r ON ${[...parentKeys.map((key) => `s.${key} = r.${key}`), `s.${column} = r.${k}`].join(' AND ')}`;
      this.ctes.push(`${out} AS (SELECT s.*, s.${column} AS ${k} FROM ${this.rel} s ${join} WHERE r.rn <= ${cap})`);
    }
    this.rel = out;
    this.keys = all;
  }

  /** Registers the stage's relation and its bucket counts per shard. */
  private next(i: number, out: string, select: string, keys: string[]): void {
    this.ctes.push(`${out} AS (${select})`);
    this.rel = out;
    this.keys = keys;
    this.parts.push(
      `SELECT 'n' AS what, ${i} AS lvl, ${this.keyList(keys)}, count(*) AS n, ${NO_STATS}, _shard AS shard FROM ${out}${this.groupBy([...keys, '_shard'])}`,
    );
  }

  /** The key columns as VARCHAR, padded with NULLs to the same width in every UNION part. */
  private keyList(keys: readonly string[]): string {
    const cols = Array.from({ length: this.keyColumns }, (_, j) => (j < keys.length ? `CAST(${keys[j]} AS VARCHAR)` : 'NULL::VARCHAR') + ` AS k${j}`);
    return cols.length > 0 ? cols.join(', ') : 'NULL::VARCHAR AS k';
  }

  private groupBy(keys: readonly string[]): string {
    return keys.length > 0 ? ` GROUP BY ${keys.join(', ')}` : '';
  }
}
