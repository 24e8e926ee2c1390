import type { EngineLimits, Scope } from '../engine';
import type { AggNode, FilterNode, ReportPlan } from '../../plan/plan';
import type { KeySegment } from './buckets';
import { compileFilter, compileFilters, compileScope, compileScopeCondition, scopeFilterFields } from './compile-scope';
import { histogramKeySql } from './histogram-sql';
import { columnOf, ident, ITEM, itemsColumn, nestedTable, PARENT_COPIES, PARENT_ID, ROW_ID, TABLES } from './schema';
import { SqlParams, type SqlQuery } from './sql-params';

/**
 * Plan → one SQL statement. Pure. The statement returns, as one UNION ALL, rows
 * `(what, lvl, k0.., n, mn, mx, sm, shard)`, all per shard: `n` = the bucket count of stage `lvl`
 * per key tuple (OpenSearch's doc_count), `x` = a terms key beyond the cap, `stats` = a stats result,
 * `cut` = how many terms keys beyond the cap were left out (all shards). read.ts merges the shards
 * as OpenSearch does.
 *
 * - dateHistogram adds the bucket key (see histogram-sql.ts); terms adds the field value (rows
 *   without one drop out) and keeps the `termsCap` smallest keys per parent bucket; filters adds the
 *   bucket index, a row once per matching bucket; filter keeps matching rows;
 * - nested goes on with the items of the path (only those matching the path's nestedFilters);
 *   reverseNested keeps each (bucket, parent document) once and goes on with the parent;
 * - stats aggregates the field over the rows: count, min, max and a Kahan sum in document order,
 *   per "shard" (the UTC month of the document, i.e. its monthly OpenSearch index), because
 *   OpenSearch sums per shard and then adds the shard sums in index order (InternalStats.reduce):
 *   read.ts does that last step, so that sums agree with OpenSearch to the last bit.
 *
 * Two compilations give the same rows:
 *
 * - grouped (GroupedCompiler), for pipelines of dateHistogram, terms, filter, one nested and stats:
 *   every key of a row is a function of the row alone, and every stage after the first only narrows
 *   the rows by their keys (a filter by its condition, terms by the kept keys of the parent bucket),
 *   so one grouped pass over the documents, and one over the items, by all the keys, the filter
 *   conditions and the shard, gives every count; the stages then work on these groups, a few
 *   thousand rows instead of millions. The items are read from the child table alone when the
 *   scope and the stages before `nested` need only what an item carries of its parent (scope
 *   number, time, shard: schema.ts), and joined to their parent otherwise; the documents before
 *   `nested` are counted through their first item, and only those without items are read from
 *   the root table.
 * - stage by stage (PipelineCompiler), for the rest (filters, reverseNested): each stage a CTE
 *   `s<i+1>` of the rows in that stage's context (documents, or items after `nested`) with the
 *   keys so far as columns `k0, k1, ...`; a row is one document (or item) in one bucket.
 */
export interface CompileOptions {
  readonly limits: EngineLimits;
  /** Key segments of the dateHistogram (first stage), from buckets.ts. */
  readonly histogramSegments?: readonly KeySegment[];
  /** Compile stage by stage even where the grouped compilation applies (tests compare the two). */
  readonly stageByStage?: boolean;
  /** The scope numbers of the report's organization and locations, where readsItemsAlone (compileScopeNumbers). */
  readonly scopeNumbers?: readonly number[];
}

export type ResultRowKind = 'n' | 'x' | 'stats' | 'cut';

const NO_STATS = 'NULL::DOUBLE AS mn, NULL::DOUBLE AS mx, NULL::DOUBLE AS sm';

export function compileReport(plan: ReportPlan, scope: Scope, options: CompileOptions): SqlQuery {
  const params = new SqlParams();
  const sql =
    !options.stageByStage && groupable(plan)
      ? new GroupedCompiler(plan, params, options).compile(scope)
      : new PipelineCompiler(plan, params, options).compile(compileScope(plan, scope, params));
  return { sql, params: params.values };
}

/** Stages that add a key column: dateHistogram, terms, filters. */
export const addsKey = (n: AggNode): boolean => n.kind === 'dateHistogram' || n.kind === 'terms' || n.kind === 'filters';

/** Whether the grouped compilation applies: no filters (a row in several buckets) and no reverseNested. */
export const groupable = (plan: ReportPlan): boolean => plan.pipeline.every((n) => n.kind !== 'filters' && n.kind !== 'reverseNested');

/**
 * Whether the grouped compilation reads the items of a nested report without their documents:
 * the scope's filters and the stages before `nested` read only root fields the items carry a
 * copy of (schema.ts). Such a report needs the scope numbers (CompileOptions.scopeNumbers).
 */
export function readsItemsAlone(plan: ReportPlan, options: Pick<CompileOptions, 'stageByStage'> = {}): boolean {
  const m = plan.pipeline.findIndex((n) => n.kind === 'nested');
  if (options.stageByStage || m < 0 || !groupable(plan)) return false;
  return [...scopeFilterFields(plan), ...plan.pipeline.slice(0, m).flatMap(rootFieldsOf)].every((f) => PARENT_COPIES.includes(f));
}

/** What both compilations share: the output rows, the terms ranking and cap. */
abstract class Compiler {
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

/**
 * The grouped compilation (see the top of this file). `a`: the documents grouped by the keys and
 * filter conditions of the stages before `nested` (all stages if there is none) and the shard;
 * `b`: the items grouped by the keys and conditions of every stage and the shard. Columns: `k<j>`
 * the keys, `f<i>` the condition of the filter stage i (NULL counts as false), `_shard`, `n` the
 * rows in the group, and for a last stats stage its count `sn`, `mn`, `mx` and Kahan sum `sm` over
 * the group in document (item) order. With stages before `nested`, `b` also has `np`, the first
 * items (one per document) and `fi`, the path's nestedFilters (the documents count whatever their
 * items), and `a` adds up `np` and `a0`, the documents without items. A stage's relation `t<i>`
 * narrows the previous one; stats read it as it is: by then each group is one key tuple and
 * shard, every condition true.
 */
class GroupedCompiler extends Compiler {
  private cteCount = 0;

  compile(scope: Scope): string {
    const { pipeline, source } = this.plan;
    const m = pipeline.findIndex((n) => n.kind === 'nested');
    const nested = pipeline[m];
    const root = `${ident(TABLES[source].root)} d`;
    const rowOrder = `d.${ident(ROW_ID)}`;
    if (nested?.kind !== 'nested') {
      const where = compileScopeCondition(this.plan, scope, this.params, 'd', ROW_ID);
      this.ctes.push(`a AS (${this.grouped(pipeline.length, 'd', 'd', rowOrder, `${root} WHERE ${where}`).sql})`);
      this.stages(-1, false);
      return this.statement();
    }
    // The items, grouped by every stage; read alone when the parent columns they need are copied.
    const child = `${ident(nestedTable(source, nested.path))} c`;
    const alone = readsItemsAlone(this.plan);
    const { scopeNumbers } = this.options;
    if (alone && !scopeNumbers) throw new Error('reading the items alone needs the scope numbers');
    const parent = alone ? 'c' : 'd';
    const from = alone ? child : `${child} JOIN ${root} ON d.${ident(ROW_ID)} = c.${ident(PARENT_ID)}`;
    const where = alone
      ? compileScopeCondition(this.plan, scope, this.params, 'c', PARENT_ID, scopeNumbers)
      : compileScopeCondition(this.plan, scope, this.params, 'd', ROW_ID);
    const items = compileFilters(nested.itemFilters, 'c', this.params);
    if (m === 0) {
      this.ctes.push(`b AS (${this.grouped(pipeline.length, parent, 'c', 'c.rowid', `${from} WHERE ${where} AND ${items}`).sql})`);
      this.stages(m, false);
      return this.statement();
    }
    // Stages before nested count documents: those with items once each through their first item
    // (np), those without from the root table (a0), so that the documents are not grouped twice.
    const itemFlag = nested.itemFilters.length > 0;
    const extra = [...(itemFlag ? [`coalesce((${items}), false) AS fi`] : []), `count_if(c.${ident(ITEM)} = 0) AS np`];
    this.ctes.push(`b AS (${this.grouped(pipeline.length, parent, 'c', 'c.rowid', `${from} WHERE ${where}`, extra).sql})`);
    const withoutItems = `${root} WHERE ${compileScopeCondition(this.plan, scope, this.params, 'd', ROW_ID)} AND d.${ident(itemsColumn(nested.path))} = 0`;
    const { sql, groups } = this.grouped(m, 'd', 'd', rowOrder, withoutItems);
    this.ctes.push(`a0 AS (${sql})`);
    const cols = [...groups, '_shard'].join(', ');
    this.ctes.push(`a AS (SELECT ${cols}, sum(n)::BIGINT AS n FROM (SELECT ${cols}, n FROM a0 UNION ALL SELECT ${cols}, np FROM b) GROUP BY ALL)`);
    this.stages(m, itemFlag);
    return this.statement();
  }

  /**
   * SELECT of the groups by the stages before `to` (and `extra` columns): root fields read from
   * `parent`, item fields and the shard from `item` (the same alias for documents); stats summed
   * in `order`. `groups`: the names of the key and condition columns.
   */
  private grouped(to: number, parent: string, item: string, order: string, source: string, extra: readonly string[] = []): { sql: string; groups: string[] } {
    const columns: string[] = [];
    const groups: string[] = [];
    let key = 0;
    this.plan.pipeline.slice(0, to).forEach((node, i) => {
      const alias = fieldOf(node)?.nestedPath ? item : parent;
      const k = `k${key}`;
      if (addsKey(node)) key++;
      switch (node.kind) {
        case 'dateHistogram':
          columns.push(`${this.histogramKey(`${alias}.${ident('timestamp')}`)} AS ${k}`);
          groups.push(k);
          break;
        case 'terms':
          columns.push(`${alias}.${ident(columnOf(node.field))} AS ${k}`);
          groups.push(k);
          break;
        case 'filter':
          columns.push(`coalesce((${compileFilter(node.filter, alias, this.params)}), false) AS f${i}`);
          groups.push(`f${i}`);
          break;
        case 'stats': {
          const col = `${alias}.${ident(columnOf(node.field))}`;
          columns.push(`count(${col}) AS sn, min(${col}) AS mn, max(${col}) AS mx, fsum(${col} ORDER BY ${order}) AS sm`);
          break;
        }
        case 'nested':
        case 'filters':
        case 'reverseNested':
          break;
      }
    });
    const sql = `SELECT ${[...columns, ...extra, `${item}._shard`, 'count(*) AS n'].join(', ')} FROM ${source} GROUP BY ALL`;
    return { sql, groups };
  }

  /**
   * The stages over the groups: `a` until `nested` (stage m, -1 for none), `b` from there, only
   * the items matching the path's nestedFilters (`fi`, where `itemFlag`).
   */
  private stages(m: number, itemFlag: boolean): void {
    const keys: string[] = [];
    /** The narrowing steps of the stages before `nested`, to apply to `b` as well. */
    const steps: ((rel: string) => string)[] = [];
    let rel = m === 0 ? 'b' : 'a';
    const narrow = (step: (rel: string) => string, before: boolean) => {
      rel = this.relation(step(rel));
      if (before) steps.push(step);
    };
    this.plan.pipeline.forEach((node, i) => {
      const beforeNested = m < 0 || i < m;
      const k = `k${keys.length}`;
      switch (node.kind) {
        case 'dateHistogram':
          keys.push(k);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'filter':
          narrow((r) => `SELECT * FROM ${r} WHERE f${i}`, beforeNested);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'terms': {
          const parentKeys = [...keys];
          this.ctes.push(`g${i} AS (SELECT ${[...parentKeys, k].join(', ')}, _shard, sum(n)::BIGINT AS n FROM ${rel} WHERE ${k} IS NOT NULL GROUP BY ALL)`);
          const cap = this.rankTerms(i, parentKeys, k);
          keys.push(k);
          if (i < this.plan.pipeline.length - 1) {
            const on = keys.map((key) => `t.${key} = r.${key}`).join(' AND ');
            narrow((r) => `SELECT t.* FROM ${r} t JOIN r${i} r ON ${on} WHERE r.rn <= ${cap}`, beforeNested);
          }
          return;
        }
        case 'nested':
          rel = itemFlag ? this.relation('SELECT * FROM b WHERE fi') : 'b';
          for (const step of steps) rel = this.relation(step(rel));
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'stats':
          this.parts.push(`SELECT 'stats' AS what, ${i} AS lvl, ${this.keyList(keys)}, sn AS n, mn, mx, sm, _shard AS shard FROM ${rel}`);
          return;
        case 'filters':
        case 'reverseNested':
          throw new Error(`${node.kind} is not groupable`);
      }
    });
  }

  /** Registers a CTE `t<n>` and returns its name. */
  private relation(select: string): string {
    const name = `t${this.cteCount++}`;
    this.ctes.push(`${name} AS (${select})`);
    return name;
  }
}

function fieldOf(node: AggNode): { readonly nestedPath?: string } | undefined {
  return node.kind === 'terms' || node.kind === 'stats' ? node.field : node.kind === 'filter' ? node.filter.field : undefined;
}

/** The root columns a stage before `nested` reads. */
function rootFieldsOf(node: AggNode): string[] {
  const filterFields = (f: FilterNode) => [columnOf(f.field)];
  switch (node.kind) {
    case 'dateHistogram':
      return ['timestamp'];
    case 'terms':
    case 'stats':
      return [columnOf(node.field)];
    case 'filter':
      return filterFields(node.filter);
    case 'filters':
      return node.buckets.flatMap((b) => filterFields(b.filter));
    case 'nested':
    case 'reverseNested':
      return [];
  }
}

/** The stage-by-stage compilation (see the top of this file). */
class PipelineCompiler extends Compiler {
  private rel = 's0';
  private keys: string[] = [];

  compile(scopeSql: string): string {
    this.ctes.push(`s0 AS (${scopeSql})`);
    this.plan.pipeline.forEach((node, i) => this.stage(node, i));
    return this.statement();
  }

  private stage(node: AggNode, i: number): void {
    const out = `s${i + 1}`;
    const k = `k${this.keys.length}`;
    const keys = this.keys.map((key) => `s.${key}`);
    switch (node.kind) {
      case 'dateHistogram':
        return this.next(i, out, `SELECT s.*, ${this.histogramKey(`s.${ident('timestamp')}`)} AS ${k} FROM ${this.rel} s`, [...this.keys, k]);
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
        // the item's copy of the parent's _shard comes with c.*
        const child = ident(nestedTable(this.plan.source, node.path));
        const on = `c.${ident(PARENT_ID)} = s.${ident(ROW_ID)}`;
        const select = `SELECT ${[...keys, 'c.*', 'c.rowid AS _ord'].join(', ')} FROM ${this.rel} s JOIN ${child} c ON ${on}`;
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

  /** terms: one grouped pass `g<i>` counts per (key, shard); the rows of the kept keys go on. */
  private terms(i: number, out: string, column: string, last: boolean): void {
    const parentKeys = this.keys;
    const k = `k${parentKeys.length}`;
    const selectKeys = [...parentKeys.map((key) => `s.${key}`), `s.${column} AS ${k}`].join(', ');
    this.ctes.push(`g${i} AS (SELECT ${selectKeys}, s._shard, count(*) AS n FROM ${this.rel} s WHERE s.${column} IS NOT NULL GROUP BY ALL)`);
    const cap = this.rankTerms(i, parentKeys, k);
    if (!last) {
      const join = `JOIN r${i} r ON ${[...parentKeys.map((key) => `s.${key} = r.${key}`), `s.${column} = r.${k}`].join(' AND ')}`;
      this.ctes.push(`${out} AS (SELECT s.*, s.${column} AS ${k} FROM ${this.rel} s ${join} WHERE r.rn <= ${cap})`);
    }
    this.rel = out;
    this.keys = [...parentKeys, k];
  }

  /** Registers the stage's relation and its bucket counts per shard. */
  private next(i: number, out: string, select: string, keys: string[]): void {
    this.ctes.push(`${out} AS (${select})`);
    this.rel = out;
    this.keys = keys;
    this.counts(i, out, keys, 'count(*)');
  }
}
