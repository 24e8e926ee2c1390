import type { Scope } from '../../../store';
import type { AggNode, Profile } from '../../../../report/plan/plan';
import { compileFilters, compileScopeCondition } from './compile-scope';
import { addsKey, Compiler } from './compiler';
import { groupable, readsItemsAlone } from './groupable';
import { column, namesOf, selectItem, stageColumns, type Column, type StageColumns } from './stage-columns';
import { countOf, firstsOf, rollupRelation, statsOf } from './rollup-read';
import { columnOf, ident, ITEM, itemsColumn, nestedTable, PARENT_ID, ROW_ID, TABLES } from '../../layout/schema';

export { groupable, readsItemsAlone } from './groupable';

/**
 * The relations of the grouped compilation, by their names in the SQL (see GroupedCompiler): the
 * documents (`a`; `a0` those without items), the items (`b`), after `reverseNested` the documents
 * once per bucket their items reached (`c`; `c1` those with one item), the one grouped pass over
 * the items that `b` and `c` come from (`bc_1`), and the rows themselves (`s`).
 */
const REL = {
  documents: 'a',
  documentsWithoutItems: 'a0',
  items: 'b',
  reached: 'c',
  reachedOnce: 'c1',
  itemPass: 'bc_1',
  rows: 's',
} as const;

/** The aliases of the tables read: the root table (the documents), the child table (the items). */
const ROOT = 'd';
const CHILD = 'c';

/**
 * One read of rows to group: `source` (a relation and its condition) by the columns of `stages`, root
 * fields from the alias `parent` and item fields from `item`, in `order`, with `extra` columns kept.
 */
interface Pass {
  readonly stages: readonly number[];
  readonly parent: string;
  readonly item: string;
  readonly order: string;
  readonly source: string;
  readonly extra?: readonly Column[];
}

/**
 * The grouped compilation (compile.ts). Every key of a row is a function of the row alone (its
 * parent's fields included), and every stage only narrows the rows of the stage before by their
 * keys, so the rows are grouped once by all of them and the stages work on the groups:
 *
 * - `a`: the documents grouped by the columns of the stages before `nested` (all stages if there
 *   is none); `b`: the items, by the columns of the stages up to `reverseNested` (the end if there
 *   is none); `c`: after `reverseNested`, the documents once per bucket their items reached, by the
 *   columns of every stage. Columns: `k<j>` the key of the j-th bucketing stage (the bucket key of
 *   a dateHistogram, the value for terms, for `filters` the list of the buckets the row matches),
 *   `f<i>` the condition of the filter stage i (NULL counts as false), `_shard`, `n` the rows.
 * - A stage narrows the relation of the stage before (`t<n>`): a filter keeps its condition, terms
 *   the kept keys of each parent bucket (`r<i>`), `filters` unnests its list (a group once per
 *   matching bucket, so the rows it makes are groups × buckets, not documents × buckets). `nested`
 *   switches to `b` and `reverseNested` to `c`, applying the narrowing of the stages so far again.
 * - With stages before `nested`, `b` also has `np`, its first items (one per document), and `fi`,
 *   the path's nestedFilters (the documents count whatever their items), and `a` adds up `np` and
 *   `a0`, the documents without items, so the documents are not read twice.
 * - `c` counts a document once per bucket: a document with one item (most) is that item's row; the
 *   few with several are read as one row per bucket their items reach (`DISTINCT`).
 * - stats (last) are summed per group, which is one key tuple and shard by then, in document (item)
 *   order, so the per-shard Kahan sums match OpenSearch's; with a `filters` stage a document is in
 *   several groups of the same tuple, so the stats are summed over `s`, the rows themselves
 *   (document × matching buckets, which is OpenSearch's own work for such a report); percentiles
 *   read `s` too, every value of a key tuple over all shards (percentile-sql.ts).
 */
export class GroupedCompiler extends Compiler {
  private cteCount = 0;
  private readonly m: number;
  private readonly r: number;
  /** Key index of every stage that adds a key. */
  private readonly keyOf: readonly number[];
  /** Stats summed over the rows rather than the groups (see above). */
  private readonly rowStats: boolean;
  private itemFlag = false;
  /** The level-1 column of each keyword field's values, the same in every relation. */
  private readonly valueColumns = new Map<string, string>();

  constructor(...args: ConstructorParameters<typeof Compiler>) {
    super(...args);
    const { pipeline } = this.plan;
    this.m = pipeline.findIndex((n) => n.kind === 'nested');
    this.r = pipeline.findIndex((n) => n.kind === 'reverseNested');
    let key = 0;
    this.keyOf = pipeline.map((n) => (addsKey(n) ? key++ : -1));
    const last = pipeline.at(-1);
    // Percentiles need every value of a bucket across shards: the rows themselves, as under filters.
    this.rowStats =
      last?.kind === 'stats' && (pipeline.some((n) => n.kind === 'filters') || last.percentiles !== undefined);
    if (!groupable(this.plan)) throw new Error('not groupable: compile it stage by stage');
    // The rollup relations have no row per document: what needs one (rowStats, reverseNested) reads raw (matchRollup).
    if (this.options.rollup && (this.rowStats || this.r >= 0))
      throw new Error('rollups cannot serve stats under filters nor reverseNested');
  }

  compile(scope: Scope): string {
    const { pipeline, source } = this.plan;
    const all = pipeline.map((_, i) => i);
    const { rollup } = this.options;
    const root = `${ident(TABLES[source].root)} ${ROOT}`;
    // A function: every compiled condition adds its parameters, and DuckDB refuses parameters the SQL does not use.
    const rootRows = () =>
      rollup
        ? `${rollupRelation(rollup, this.plan, scope, this.params, ROOT)} WHERE TRUE`
        : `${root} WHERE ${compileScopeCondition(this.plan, scope, this.params, ROOT, ROW_ID)}`;
    const rootOrder = `${ROOT}.${ident(ROW_ID)}`;
    const nested = pipeline[this.m];
    if (nested?.kind !== 'nested') {
      const pass: Pass = { stages: all, parent: ROOT, item: ROOT, order: rootOrder, source: rootRows() };
      this.grouped(REL.documents, pass);
      if (this.rowStats) this.rows(pass);
      this.stages();
      return this.statement();
    }
    // The items: read alone when the parent columns they need are copied, else joined to their parent.
    const child = `${ident(nestedTable(source, nested.path))} ${CHILD}`;
    // Rollups of items carry their documents' dimensions: read alone, the scope inside the relation.
    const alone = rollup !== undefined || readsItemsAlone(this.plan);
    const { scopeNumbers } = this.options;
    if (alone && !rollup && !scopeNumbers) throw new Error('reading the items alone needs the scope numbers');
    const parent = alone ? CHILD : ROOT;
    const from = rollup
      ? rollupRelation(rollup, this.plan, scope, this.params, CHILD, nested.path)
      : alone
        ? child
        : `${child} JOIN ${root} ON ${ROOT}.${ident(ROW_ID)} = ${CHILD}.${ident(PARENT_ID)}`;
    const where = rollup
      ? 'TRUE'
      : alone
        ? compileScopeCondition(this.plan, scope, this.params, CHILD, PARENT_ID, scopeNumbers)
        : compileScopeCondition(this.plan, scope, this.params, ROOT, ROW_ID);
    const items = compileFilters(nested.itemFilters, CHILD, this.params);
    const toItems = this.r >= 0 ? all.slice(0, this.r) : all;
    // Where stages come before nested, the documents count whatever their items: `fi` tells the items apart.
    this.itemFlag = this.m > 0 && nested.itemFilters.length > 0;
    const itemRows = `${from} WHERE ${where}${this.m > 0 ? '' : ` AND ${items}`}`;
    const flag = this.itemFlag ? [column('fi', `coalesce((${items}), false)`)] : [];
    const firsts = this.m > 0 ? [column('np', rollup ? firstsOf(CHILD) : `count_if(${CHILD}.${ident(ITEM)} = 0)`)] : [];
    const fromItems: Pass = {
      stages: all,
      parent,
      item: CHILD,
      order: `${CHILD}.rowid`,
      source: itemRows,
      extra: flag,
    };
    if (this.r >= 0) {
      // One pass over the items for `b` and `c`: documents with several items keep their id (`_doc`).
      const several = alone
        ? `${CHILD}.${ident(PARENT_ID)} IN (SELECT ${ident(PARENT_ID)} FROM ${ident(nestedTable(source, nested.path))} WHERE ${ident(ITEM)} = 1)`
        : `${ROOT}.${ident(itemsColumn(nested.path))} > 1`;
      this.reverse(
        toItems,
        parent,
        itemRows,
        flag,
        column('_doc', `CASE WHEN ${several} THEN ${CHILD}.${ident(PARENT_ID)} END`),
        firsts,
      );
    } else {
      this.grouped(REL.items, { ...fromItems, stages: toItems }, firsts);
    }
    if (this.m > 0) {
      // Documents without items, from the root table; those with items through their first item (np).
      const withoutItems = `${rootRows()} AND ${ROOT}.${ident(itemsColumn(nested.path))} = 0`;
      const documents = this.grouped(REL.documentsWithoutItems, {
        stages: all.slice(0, this.m),
        parent: ROOT,
        item: ROOT,
        order: rootOrder,
        source: withoutItems,
      });
      const cols = [...documents.names, '_shard'].join(', ');
      const both = `SELECT ${cols}, n FROM ${REL.documentsWithoutItems} UNION ALL SELECT ${cols}, np FROM ${REL.items}`;
      this.ctes.push(`${REL.documents} AS (SELECT ${cols}, sum(n)::BIGINT AS n FROM (${both}) GROUP BY ALL)`);
    }
    if (this.rowStats) this.rows(fromItems);
    this.stages();
    return this.statement();
  }

  /**
   * `b` and `c` from one grouped pass over the items (`bc_1`, by the columns of every stage): `b`
   * adds up the items of the stages up to `reverseNested`; `c` counts documents. A document with one
   * item is that item's group (its lists unnest into its buckets later); one with several keeps its
   * id (`_doc`), and its items are unnested into single buckets and made distinct per document.
   */
  private reverse(
    toItems: readonly number[],
    parent: string,
    itemRows: string,
    flag: readonly Column[],
    doc: Column,
    firsts: readonly Column[],
  ): void {
    const stages = this.plan.pipeline.map((_, i) => i);
    const columns = this.columnsOf(stages, parent, CHILD);
    const fi = namesOf(flag);
    const sums = [column('n', 'count(*)'), ...firsts];
    const pass = `SELECT ${[...columns.raw, ...flag, doc].map(selectItem).join(', ')}, ${CHILD}._shard, ${sums.map(selectItem).join(', ')} FROM ${itemRows} GROUP BY ALL`;
    this.ctes.push(`${REL.itemPass} AS (${pass})`);
    // b: the items by the columns of the stages before reverseNested.
    const itemColumns = columns.subset(toItems);
    const added = ['n', ...namesOf(firsts)].map((c) => `sum(${c})::BIGINT AS ${c}`);
    const itemGroups = `SELECT ${[...namesOf(itemColumns.raw), ...fi, '_shard', ...added].join(', ')} FROM ${REL.itemPass} GROUP BY ALL`;
    this.level2(REL.items, itemColumns, itemGroups, fi, namesOf(firsts));
    // c: the documents with one item, then those with several.
    const once = `SELECT ${[...namesOf(columns.raw), ...fi, '_shard'].join(', ')}, sum(n)::BIGINT AS n FROM ${REL.itemPass} WHERE _doc IS NULL GROUP BY ALL`;
    this.level2(REL.reachedOnce, columns, once, fi);
    // Item-level filters stages: their lists, unnested for the documents with several items.
    const lists = stages
      .filter((i) => i > this.m && i < this.r && this.plan.pipeline[i]?.kind === 'filters')
      .map((i) => `k${this.keyOf[i]}`);
    const unnest = lists.map((k) => `, unnest(${columns.derivedOf(k)}) AS u_${k}(v)`).join('');
    const inner = columns.names.map((n) =>
      lists.includes(n) ? `u_${n}.v AS ${n}` : `${columns.derivedOf(n)} AS ${n}`,
    );
    const outer = columns.names.map((n) => (lists.includes(n) ? `[${n}] AS ${n}` : n));
    this.ctes.push(
      `${REL.reached} AS (SELECT ${[...columns.names, ...fi, '_shard'].join(', ')}, n FROM ${REL.reachedOnce}` +
        ` UNION ALL SELECT ${[...outer, ...fi, '_shard'].join(', ')}, count(*)::BIGINT AS n FROM` +
        ` (SELECT DISTINCT ${[...inner, ...fi, '_doc', '_shard'].join(', ')} FROM ${REL.itemPass}${unnest} WHERE _doc IS NOT NULL) GROUP BY ALL)`,
    );
  }

  /**
   * The CTE `name`: the rows of the pass's `source` grouped by the columns of its `stages` (and
   * `extra`), with `sums` summed; stats summed in `order` where the groups carry them.
   */
  private grouped(name: string, pass: Pass, sums: readonly Column[] = []): StageColumns {
    const { stages, parent, item, order, source, extra = [] } = pass;
    const stats = stages.map((i) => this.plan.pipeline[i] as AggNode).find((n) => n.kind === 'stats');
    const aggregates: string[] = sums.map(selectItem);
    const { rollup } = this.options;
    if (stats?.kind === 'stats' && !this.rowStats) {
      const alias = stats.field.nestedPath ? item : parent;
      const col = `${alias}.${ident(columnOf(stats.field))}`;
      aggregates.push(
        rollup
          ? statsOf(stats.field, alias)
          : `count(${col}) AS sn, min(${col}) AS mn, max(${col}) AS mx, fsum(${col} ORDER BY ${order}) AS sm`,
      );
    }
    const columns = this.columnsOf(stages, parent, item);
    const count = rollup ? `${countOf(item)} AS n` : 'count(*) AS n';
    const level1 = `SELECT ${[...[...columns.raw, ...extra].map(selectItem), `${item}._shard`, count, ...aggregates].join(', ')} FROM ${source} GROUP BY ALL`;
    this.level2(name, columns, level1, namesOf(extra), namesOf(sums));
    return columns;
  }

  /**
   * `name` from the level-1 groups `level1`: the keys and conditions derived from what the rows
   * were grouped by, grouped again (`extra` kept, `n` and `sums` added up). Where the columns are
   * the keys and conditions already (stats summed per group), `level1` is the relation.
   */
  private level2(
    name: string,
    columns: StageColumns,
    level1: string,
    extra: readonly string[] = [],
    sums: readonly string[] = [],
  ): void {
    if (!columns.twoLevel) {
      this.ctes.push(`${name} AS (${level1})`);
      return;
    }
    this.ctes.push(`${name}_1 AS (${level1})`);
    const added = ['n', ...sums].map((c) => `sum(${c})::BIGINT AS ${c}`);
    this.ctes.push(
      `${name} AS (SELECT ${[...columns.derived.map(selectItem), ...extra, '_shard', ...added].join(', ')} FROM ${name}_1 GROUP BY ALL)`,
    );
  }

  /** `s`: the rows themselves with the columns of `stages`, the stats field `_x` and the order `_ord`. */
  private rows(pass: Pass): void {
    const { stages, parent, item, order, source, extra = [] } = pass;
    const stats = this.plan.pipeline.at(-1) as AggNode & { kind: 'stats' };
    const x = column('_x', `${stats.field.nestedPath ? item : parent}.${ident(columnOf(stats.field))}`);
    const columns = this.columnsOf(stages, parent, item);
    const raw = `SELECT ${[...columns.raw, x, column('_ord', order), ...extra].map(selectItem).join(', ')}, ${item}._shard FROM ${source}`;
    // Where the columns are not twoLevel, each derived column is its level-1 column by name.
    this.ctes.push(
      `${REL.rows} AS (SELECT ${[...columns.derived.map(selectItem), '_x', '_ord', ...namesOf(extra), '_shard'].join(', ')} FROM (${raw}))`,
    );
  }

  /**
   * The key and condition columns of `stages` (stage-columns.ts): root fields from `parent`, item fields from `item`.
   */
  private columnsOf(stages: readonly number[], parent: string, item: string): StageColumns {
    const { pipeline } = this.plan;
    const twoLevel = !(pipeline.at(-1)?.kind === 'stats' && !this.rowStats);
    const context = {
      pipeline,
      params: this.params,
      twoLevel,
      keyOf: this.keyOf,
      histogramKey: (c: string) => this.histogramKey(c),
      profileKey: (p: Profile, c: string) => this.profileKey(p, c),
      valuesOf: (f: string) => this.valuesOf(f),
    };
    return stageColumns(context, stages, parent, item);
  }

  /**
   * The stages over the groups: `a` until `nested`, `b` from there, `c` from `reverseNested`, each
   * narrowed again by the stages so far (only the items matching the path's nestedFilters, `fi`,
   * where itemFlag).
   */
  private stages(): void {
    const keys: string[] = [];
    /** Every narrowing step so far, to apply again to `b`, `c` and `s`. */
    const steps: ((rel: string) => string)[] = [];
    let rel: string = this.m === 0 ? REL.items : REL.documents;
    const narrow = (step: (rel: string) => string) => {
      rel = this.relation(step(rel));
      steps.push(step);
    };
    const switchTo = (base: string): void => {
      rel = this.itemFlag ? this.relation(`SELECT * FROM ${base} WHERE fi`) : base;
      for (const step of steps) rel = this.relation(step(rel));
    };
    const last = this.plan.pipeline.length - 1;
    this.plan.pipeline.forEach((node, i) => {
      const k = `k${keys.length}`;
      switch (node.kind) {
        case 'dateHistogram':
          keys.push(k);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'filter':
          narrow((r) => `SELECT * FROM ${r} WHERE f${i}`);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'filters':
          keys.push(k);
          narrow((r) => `SELECT * REPLACE (unnest(${k}) AS ${k}) FROM ${r}`);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'terms': {
          const parentKeys = [...keys];
          this.ctes.push(
            `g${i} AS (SELECT ${[...parentKeys, k].join(', ')}, _shard, sum(n)::BIGINT AS n FROM ${rel} WHERE ${k} IS NOT NULL GROUP BY ALL)`,
          );
          const cap = this.rankTerms(i, parentKeys, k);
          keys.push(k);
          if (i < last) {
            const on = keys.map((key) => `t.${key} = r.${key}`).join(' AND ');
            narrow((r) => `SELECT t.* FROM ${r} t JOIN r${i} r ON ${on} WHERE r.rn <= ${cap}`);
          }
          return;
        }
        case 'nested':
          switchTo(REL.items);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'reverseNested':
          switchTo(REL.reached);
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'stats':
          if (this.rowStats) {
            switchTo(REL.rows);
            const stats = { mn: 'min(_x)', mx: 'max(_x)', sm: 'fsum(_x ORDER BY _ord)' };
            this.part(
              { what: "'stats'", lvl: i, keys, n: 'count(_x)', stats, shard: '_shard' },
              `${rel}${this.groupBy([...keys, '_shard'])}`,
            );
            this.percentiles(i, node, '_x', rel, keys);
          } else {
            this.part(
              { what: "'stats'", lvl: i, keys, n: 'sn', stats: { mn: 'mn', mx: 'mx', sm: 'sm' }, shard: '_shard' },
              rel,
            );
          }
          return;
      }
    });
  }

  private valuesOf(field: string): string {
    if (!this.valueColumns.has(field)) this.valueColumns.set(field, `v${this.valueColumns.size}`);
    return this.valueColumns.get(field) as string;
  }

  /** Registers a CTE `t<n>` and returns its name. */
  private relation(select: string): string {
    const name = `t${this.cteCount++}`;
    this.ctes.push(`${name} AS (${select})`);
    return name;
  }
}
