import type { Scope } from '../../engine';
import type { AggNode, FilterNode, ReportPlan } from '../../../plan/plan';
import type { CompileOptions } from './compile';
import { compileCondition, compileFilter, compileFilters, compileScopeCondition, scopeFilterFields } from './compile-scope';
import { addsKey, Compiler } from './compiler';
import { columnOf, ident, ITEM, itemsColumn, nestedTable, PARENT_COPIES, PARENT_ID, ROW_ID, TABLES } from '../storage/schema';

/**
 * Whether the grouped compilation applies: at most one `nested` stage (so at most one
 * `reverseNested`, after it, and the pipeline reads documents, then items, then documents again).
 * Not stats after `reverseNested` either, which no collection has a field for today (a root number
 * field of a collection with nested items).
 */
export const groupable = (plan: ReportPlan): boolean => {
  const { pipeline } = plan;
  const reverseThenStats = pipeline.some((n) => n.kind === 'reverseNested') && pipeline.at(-1)?.kind === 'stats';
  return pipeline.filter((n) => n.kind === 'nested').length <= 1 && !reverseThenStats;
};

/**
 * Whether the grouped compilation reads the items of a nested report without their documents:
 * the scope's filters and the stages on the documents (before `nested`, after `reverseNested`)
 * read only root fields the items carry a copy of (schema.ts). Such a report needs the scope
 * numbers (CompileOptions.scopeNumbers).
 */
export function readsItemsAlone(plan: ReportPlan, options: Pick<CompileOptions, 'stageByStage'> = {}): boolean {
  const m = plan.pipeline.findIndex((n) => n.kind === 'nested');
  if (options.stageByStage || m < 0 || !groupable(plan)) return false;
  const r = plan.pipeline.findIndex((n) => n.kind === 'reverseNested');
  const onDocuments = plan.pipeline.filter((_, i) => i < m || (r >= 0 && i > r));
  return [...scopeFilterFields(plan), ...onDocuments.flatMap(rootFieldsOf)].every((f) => PARENT_COPIES.includes(f));
}

/** The root columns a stage on the documents reads. */
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
 *   (document × matching buckets, which is OpenSearch's own work for such a report).
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
  private readonly rawNames = new Map<string, string>();

  constructor(...args: ConstructorParameters<typeof Compiler>) {
    super(...args);
    const { pipeline } = this.plan;
    this.m = pipeline.findIndex((n) => n.kind === 'nested');
    this.r = pipeline.findIndex((n) => n.kind === 'reverseNested');
    let key = 0;
    this.keyOf = pipeline.map((n) => (addsKey(n) ? key++ : -1));
    this.rowStats = pipeline.at(-1)?.kind === 'stats' && pipeline.some((n) => n.kind === 'filters');
    if (!groupable(this.plan)) throw new Error('not groupable: compile it stage by stage');
  }

  compile(scope: Scope): string {
    const { pipeline, source } = this.plan;
    const all = pipeline.map((_, i) => i);
    const root = `${ident(TABLES[source].root)} d`;
    // A function: every compiled condition adds its parameters, and DuckDB refuses parameters the SQL does not use.
    const rootRows = () => `${root} WHERE ${compileScopeCondition(this.plan, scope, this.params, 'd', ROW_ID)}`;
    const rootOrder = `d.${ident(ROW_ID)}`;
    const nested = pipeline[this.m];
    if (nested?.kind !== 'nested') {
      const rows = rootRows();
      this.grouped('a', all, 'd', 'd', rootOrder, rows);
      if (this.rowStats) this.rows(all, 'd', 'd', rootOrder, rows);
      this.stages();
      return this.statement();
    }
    // The items: read alone when the parent columns they need are copied, else joined to their parent.
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
    const toItems = this.r >= 0 ? all.slice(0, this.r) : all;
    // Where stages come before nested, the documents count whatever their items: `fi` tells the items apart.
    this.itemFlag = this.m > 0 && nested.itemFilters.length > 0;
    const itemRows = `${from} WHERE ${where}${this.m > 0 ? '' : ` AND ${items}`}`;
    const flag = this.itemFlag ? [`coalesce((${items}), false) AS fi`] : [];
    const firsts = this.m > 0 ? [`count_if(c.${ident(ITEM)} = 0) AS np`] : [];
    if (this.r >= 0) {
      // One pass over the items for `b` and `c`: documents with several items keep their id (`_doc`).
      const several = alone
        ? `c.${ident(PARENT_ID)} IN (SELECT ${ident(PARENT_ID)} FROM ${ident(nestedTable(source, nested.path))} WHERE ${ident(ITEM)} = 1)`
        : `d.${ident(itemsColumn(nested.path))} > 1`;
      this.reverse(toItems, parent, itemRows, flag, [`CASE WHEN ${several} THEN c.${ident(PARENT_ID)} END AS _doc`], firsts);
    } else {
      this.grouped('b', toItems, parent, 'c', 'c.rowid', itemRows, flag, firsts);
    }
    if (this.m > 0) {
      // Documents without items, from the root table; those with items through their first item (np).
      const withoutItems = `${rootRows()} AND d.${ident(itemsColumn(nested.path))} = 0`;
      this.grouped('a0', all.slice(0, this.m), 'd', 'd', rootOrder, withoutItems);
      const cols = [...this.namesOf(all.slice(0, this.m)), '_shard'].join(', ');
      this.ctes.push(`a AS (SELECT ${cols}, sum(n)::BIGINT AS n FROM (SELECT ${cols}, n FROM a0 UNION ALL SELECT ${cols}, np FROM b) GROUP BY ALL)`);
    }
    if (this.rowStats) this.rows(all, parent, 'c', 'c.rowid', itemRows, flag);
    this.stages();
    return this.statement();
  }

  /**
   * `b` and `c` from one grouped pass over the items (`bc_1`, by the columns of every stage): `b`
   * adds up the items of the stages up to `reverseNested`; `c` counts documents. A document with one
   * item is that item's group (its lists unnest into its buckets later); one with several keeps its
   * id (`_doc`), and its items are unnested into single buckets and made distinct per document.
   */
  private reverse(toItems: readonly number[], parent: string, itemRows: string, flag: readonly string[], doc: readonly string[], firsts: readonly string[]): void {
    const stages = this.plan.pipeline.map((_, i) => i);
    const columns = this.columnsOf(stages, parent, 'c');
    const fi = flag.map(aliasOf);
    const sums = ['count(*) AS n', ...firsts];
    this.ctes.push(`bc_1 AS (SELECT ${[...columns.raw, ...flag, ...doc, 'c._shard', ...sums].join(', ')} FROM ${itemRows} GROUP BY ALL)`);
    // b: the items by the columns of the stages before reverseNested.
    const itemColumns = columns.subset(toItems);
    const added = ['n', ...firsts.map(aliasOf)].map((c) => `sum(${c})::BIGINT AS ${c}`);
    this.level2('b', itemColumns, `SELECT ${[...itemColumns.rawNames, ...fi, '_shard', ...added].join(', ')} FROM bc_1 GROUP BY ALL`, fi, firsts.map(aliasOf));
    // c: the documents with one item, then those with several.
    this.level2('c1', columns, `SELECT ${[...columns.rawNames, ...fi, '_shard'].join(', ')}, sum(n)::BIGINT AS n FROM bc_1 WHERE _doc IS NULL GROUP BY ALL`, fi);
    // Item-level filters stages: their lists, unnested for the documents with several items.
    const lists = stages.filter((i) => i > this.m && i < this.r && this.plan.pipeline[i]?.kind === 'filters').map((i) => `k${this.keyOf[i]}`);
    const unnest = lists.map((k) => `, unnest(${columns.derivedOf(k)}) AS u_${k}(v)`).join('');
    const inner = columns.names.map((n) => (lists.includes(n) ? `u_${n}.v AS ${n}` : `${columns.derivedOf(n)} AS ${n}`));
    const outer = columns.names.map((n) => (lists.includes(n) ? `[${n}] AS ${n}` : n));
    this.ctes.push(
      `c AS (SELECT ${[...columns.names, ...fi, '_shard'].join(', ')}, n FROM c1` +
        ` UNION ALL SELECT ${[...outer, ...fi, '_shard'].join(', ')}, count(*)::BIGINT AS n FROM` +
        ` (SELECT DISTINCT ${[...inner, ...fi, '_doc', '_shard'].join(', ')} FROM bc_1${unnest} WHERE _doc IS NOT NULL) GROUP BY ALL)`,
    );
  }

  /**
   * The CTE `name`: the rows of `source` grouped by the columns of `stages` (and `extra`), with
   * `sums` summed; stats summed in `order` where the groups carry them.
   */
  private grouped(name: string, stages: readonly number[], parent: string, item: string, order: string, source: string, extra: readonly string[] = [], sums: readonly string[] = []): void {
    const stats = stages.map((i) => this.plan.pipeline[i] as AggNode).find((n) => n.kind === 'stats');
    const aggregates: string[] = [...sums];
    if (stats?.kind === 'stats' && !this.rowStats) {
      const col = `${stats.field.nestedPath ? item : parent}.${ident(columnOf(stats.field))}`;
      aggregates.push(`count(${col}) AS sn, min(${col}) AS mn, max(${col}) AS mx, fsum(${col} ORDER BY ${order}) AS sm`);
    }
    const columns = this.columnsOf(stages, parent, item);
    const level1 = `SELECT ${[...columns.raw, ...extra, `${item}._shard`, 'count(*) AS n', ...aggregates].join(', ')} FROM ${source} GROUP BY ALL`;
    this.level2(name, columns, level1, extra.map(aliasOf), sums.map(aliasOf));
  }

  /**
   * `name` from the level-1 groups `level1`: the keys and conditions derived from what the rows
   * were grouped by, grouped again (`extra` kept, `n` and `sums` added up). Where the columns are
   * the keys and conditions already (stats summed per group), `level1` is the relation.
   */
  private level2(name: string, columns: StageColumns, level1: string, extra: readonly string[] = [], sums: readonly string[] = []): void {
    if (!columns.twoLevel) {
      this.ctes.push(`${name} AS (${level1})`);
      return;
    }
    this.ctes.push(`${name}_1 AS (${level1})`);
    const added = ['n', ...sums].map((c) => `sum(${c})::BIGINT AS ${c}`);
    this.ctes.push(`${name} AS (SELECT ${[...columns.derived, ...extra, '_shard', ...added].join(', ')} FROM ${name}_1 GROUP BY ALL)`);
  }

  /** `s`: the rows themselves with the columns of `stages`, the stats field `_x` and the order `_ord`. */
  private rows(stages: readonly number[], parent: string, item: string, order: string, source: string, extra: readonly string[] = []): void {
    const stats = this.plan.pipeline.at(-1) as AggNode & { kind: 'stats' };
    const x = `${stats.field.nestedPath ? item : parent}.${ident(columnOf(stats.field))}`;
    const columns = this.columnsOf(stages, parent, item);
    const raw = `SELECT ${[...columns.raw, `${x} AS _x`, `${order} AS _ord`, ...extra, `${item}._shard`].join(', ')} FROM ${source}`;
    const derived = columns.twoLevel ? columns.derived : columns.names;
    this.ctes.push(`s AS (SELECT ${[...derived, '_x', '_ord', ...extra.map(aliasOf), '_shard'].join(', ')} FROM (${raw}))`);
  }

  /**
   * The key and condition columns of `stages`: root fields read from `parent`, item fields from
   * `item`. Conditions on keyword fields are the
   * expensive part of a pass over millions of rows (a `filters` stage of 10 buckets is 10 IN lists
   * per row), so the rows are grouped by the keyword values the conditions read (a handful of
   * locations, cameras, labels) and by a bit mask of the range conditions (cheap comparisons), and
   * the conditions are evaluated per group (`derived`). Where the groups carry stats (no `filters`
   * stage), the conditions are evaluated per row, so that each group is one key tuple by then.
   */
  private columnsOf(stages: readonly number[], parent: string, item: string): StageColumns {
    const twoLevel = !(this.plan.pipeline.at(-1)?.kind === 'stats' && !this.rowStats);
    const raw = new Map<string, string>();
    const derived = new Map<string, string>();
    /** The stages each level-1 column serves (a keyword column may serve several). */
    const serves = new Map<string, Set<number>>();
    const derivedStage = new Map<string, number>();
    let current = -1;
    const setRaw = (name: string, expr: string) => {
      raw.set(name, expr);
      serves.set(name, (serves.get(name) ?? new Set()).add(current));
    };
    const setDerived = (name: string, expr: string) => {
      derived.set(name, expr);
      derivedStage.set(name, current);
    };
    const aliasOfField = (f: { readonly nestedPath?: string }) => (f.nestedPath ? item : parent);
    /** The condition of `filter`, per row, or per group from the level-1 columns. */
    const condition = (filter: FilterNode, mask: string, bit: number): string => {
      if (!twoLevel) return compileFilter(filter, aliasOfField(filter.field), this.params);
      if (filter.kind === 'range') return `(${mask} & ${maskBit(bit, maskType)}) <> 0`;
      const v = this.rawName(filter.field.name);
      setRaw(v, `${aliasOfField(filter.field)}.${ident(columnOf(filter.field))} AS ${v}`);
      return compileCondition(filter, v, this.params);
    };
    /** Level 1: the bit mask of the range conditions among `filters` (none when there are none). */
    let maskType: MaskType = 'BIGINT';
    const rangeMask = (filters: readonly FilterNode[], mask: string): void => {
      // BIGINT holds 63 bits and is much cheaper per row than HUGEINT, which only a stage of 64 to 100 buckets needs.
      maskType = filters.length > 63 ? 'HUGEINT' : 'BIGINT';
      const bits = filters.flatMap((f, bit) =>
        f.kind === 'range' ? [`CASE WHEN ${compileFilter(f, aliasOfField(f.field), this.params)} THEN ${maskBit(bit, maskType)} ELSE 0::${maskType} END`] : [],
      );
      if (twoLevel && bits.length > 0) setRaw(mask, `(${bits.join(' | ')}) AS ${mask}`);
    };
    for (const i of stages) {
      current = i;
      const node = this.plan.pipeline[i] as AggNode;
      const alias = fieldOf(node)?.nestedPath ? item : parent;
      const k = `k${this.keyOf[i]}`;
      const pass = (name: string, expr: string) => {
        setRaw(name, `${expr} AS ${name}`);
        setDerived(name, name);
      };
      switch (node.kind) {
        case 'dateHistogram':
          pass(k, this.histogramKey(`${alias}.${ident('timestamp')}`));
          break;
        case 'terms':
          pass(k, `${alias}.${ident(columnOf(node.field))}`);
          break;
        case 'filter':
          if (!twoLevel || node.filter.kind === 'range') pass(`f${i}`, `coalesce((${compileFilter(node.filter, alias, this.params)}), false)`);
          else setDerived(`f${i}`, `coalesce((${condition(node.filter, '', 0)}), false)`);
          break;
        case 'filters': {
          const mask = `m${i}`;
          rangeMask(node.buckets.map((b) => b.filter), mask);
          // The indexes of the matching buckets, in bucket order (NULL conditions match nothing).
          const each = node.buckets.map((b, index) => `CASE WHEN ${condition(b.filter, mask, index)} THEN ${index} END`);
          const list = `list_filter([${each.join(', ')}], lambda x: x IS NOT NULL)`;
          if (twoLevel) setDerived(k, list);
          else pass(k, list);
          break;
        }
        case 'stats':
        case 'nested':
        case 'reverseNested':
          break;
      }
    }
    const columnsFor = (only: ReadonlySet<number>): StageColumns => {
      const rawNames = [...raw.keys()].filter((n) => [...(serves.get(n) ?? [])].some((i) => only.has(i)));
      const names = [...derived.keys()].filter((n) => only.has(derivedStage.get(n) as number));
      return {
        twoLevel,
        raw: rawNames.map((n) => raw.get(n) as string),
        rawNames,
        names,
        derived: names.map((n) => (derived.get(n) === n ? n : `${derived.get(n)} AS ${n}`)),
        derivedOf: (n) => derived.get(n) ?? n,
        subset: (part) => columnsFor(new Set(part)),
      };
    };
    return columnsFor(new Set(stages));
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
    let rel = this.m === 0 ? 'b' : 'a';
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
          this.ctes.push(`g${i} AS (SELECT ${[...parentKeys, k].join(', ')}, _shard, sum(n)::BIGINT AS n FROM ${rel} WHERE ${k} IS NOT NULL GROUP BY ALL)`);
          const cap = this.rankTerms(i, parentKeys, k);
          keys.push(k);
          if (i < last) {
            const on = keys.map((key) => `t.${key} = r.${key}`).join(' AND ');
            narrow((r) => `SELECT t.* FROM ${r} t JOIN r${i} r ON ${on} WHERE r.rn <= ${cap}`);
          }
          return;
        }
        case 'nested':
          switchTo('b');
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'reverseNested':
          switchTo('c');
          return this.counts(i, rel, keys, 'sum(n)::BIGINT');
        case 'stats':
          if (this.rowStats) {
            switchTo('s');
            this.parts.push(
              `SELECT 'stats' AS what, ${i} AS lvl, ${this.keyList(keys)}, count(_x) AS n, min(_x) AS mn, max(_x) AS mx, fsum(_x ORDER BY _ord) AS sm, _shard AS shard FROM ${rel}${this.groupBy([...keys, '_shard'])}`,
            );
          } else {
            this.parts.push(`SELECT 'stats' AS what, ${i} AS lvl, ${this.keyList(keys)}, sn AS n, mn, mx, sm, _shard AS shard FROM ${rel}`);
          }
          return;
      }
    });
  }

  private rawName(field: string): string {
    if (!this.rawNames.has(field)) this.rawNames.set(field, `v${this.rawNames.size}`);
    return this.rawNames.get(field) as string;
  }

  /** The names of the key and condition columns of `stages` (as columnsOf, without compiling anything). */
  private namesOf(stages: readonly number[]): string[] {
    return stages.flatMap((i) => {
      const node = this.plan.pipeline[i] as AggNode;
      if (addsKey(node)) return [`k${this.keyOf[i]}`];
      return node.kind === 'filter' ? [`f${i}`] : [];
    });
  }

  /** Registers a CTE `t<n>` and returns its name. */
  private relation(select: string): string {
    const name = `t${this.cteCount++}`;
    this.ctes.push(`${name} AS (${select})`);
    return name;
  }
}

/** What GroupedCompiler.columnsOf makes of some stages. */
interface StageColumns {
  /** Whether the rows are grouped by `raw` and the keys and conditions `derived` from the groups. */
  readonly twoLevel: boolean;
  /** Per row (`<expr> AS <name>`): the keys, and where twoLevel the keyword values and range masks the conditions read. */
  readonly raw: readonly string[];
  readonly rawNames: readonly string[];
  /** The key and condition columns (`k<j>`, `f<i>`), and where twoLevel their expressions over the level-1 names. */
  readonly names: readonly string[];
  readonly derived: readonly string[];
  readonly derivedOf: (name: string) => string;
  /** The columns of some of the stages, the same expressions (so no parameter is added twice). */
  readonly subset: (stages: readonly number[]) => StageColumns;
}

type MaskType = 'BIGINT' | 'HUGEINT';

/** The literal of bit `bit` of a range mask. */
const maskBit = (bit: number, type: MaskType): string => `${(1n << BigInt(bit)).toString()}::${type}`;

/** `expr AS name` → name. */
const aliasOf = (column: string): string => column.slice(column.lastIndexOf(' AS ') + 4);

/** The field a stage reads, for the alias it is read from (filters: all buckets are in one context). */
function fieldOf(node: AggNode): { readonly nestedPath?: string } | undefined {
  const filterField = (f: FilterNode | undefined) => f?.field;
  switch (node.kind) {
    case 'terms':
    case 'stats':
      return node.field;
    case 'filter':
      return filterField(node.filter);
    case 'filters':
      return filterField(node.buckets[0]?.filter);
    default:
      return undefined;
  }
}
