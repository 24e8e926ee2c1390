import type { AggNode, FilterNode, Profile } from '../../../../report/plan/plan';
import { columnOf, ident } from '../../layout/schema';
import { compileCondition, compileFilter } from './compile-scope';
import type { SqlParams } from './sql-params';

/** A named column of a relation: its name and the SQL that computes it from the relation below. */
export interface Column {
  readonly name: string;
  readonly sql: string;
}

export const column = (name: string, sql: string = name): Column => ({ name, sql });

/** The SELECT list item of a column: `sql AS name`, or the name alone where the SQL is the name. */
export const selectItem = (c: Column): string => (c.sql === c.name ? c.name : `${c.sql} AS ${c.name}`);

export const namesOf = (columns: readonly Column[]): string[] => columns.map((c) => c.name);

/** What the columns of a stage are compiled with (the grouped compiler's, see grouped.ts). */
export interface ColumnContext {
  readonly pipeline: readonly AggNode[];
  readonly params: SqlParams;
  /** Whether the rows are grouped by the keyword values and range masks first (StageColumns.twoLevel). */
  readonly twoLevel: boolean;
  /** Key index of every stage that adds a key (-1 for the others). */
  readonly keyOf: readonly number[];
  /** The bucket key of the histogram over a timestamp column. */
  readonly histogramKey: (column: string) => string;
  /** The key of a profile stage over a timestamp column. */
  readonly profileKey: (profile: Profile, column: string) => string;
  /** The level-1 column of a keyword field's values (`v<n>`), the same in every relation. */
  readonly valuesOf: (field: string) => string;
}

interface RawColumn {
  sql: string;
  /** The stages it serves (a keyword column may serve several). */
  readonly stages: Set<number>;
}

interface Columns {
  readonly raw: ReadonlyMap<string, RawColumn>;
  readonly derived: ReadonlyMap<string, { readonly sql: string; readonly stage: number }>;
}

/**
 * The key and condition columns of some stages, as named columns carried alongside the SQL. Conditions
 * on keyword fields are the expensive part of a pass over millions of rows (a `filters` stage of 10
 * buckets is 10 IN lists per row), so where `twoLevel` the rows are grouped by the keyword values the
 * conditions read (a handful of locations, cameras, labels) and a bit mask of the range conditions
 * (cheap comparisons) at level 1 (`raw`), and the conditions are evaluated per group at level 2
 * (`derived`). Where the groups carry stats (no `filters` stage), the conditions are evaluated per
 * row, so that each group is one key tuple by then.
 */
export class StageColumns {
  /** Per row: the keys, and where twoLevel the keyword values and range masks the conditions read. */
  readonly raw: readonly Column[];
  /** The key and condition columns (`k<j>`, `f<i>`), where twoLevel computed from the level-1 columns. */
  readonly derived: readonly Column[];

  constructor(
    readonly twoLevel: boolean,
    private readonly all: Columns,
    only: ReadonlySet<number>,
  ) {
    this.raw = [...all.raw]
      .filter(([, c]) => [...c.stages].some((i) => only.has(i)))
      .map(([name, c]) => column(name, c.sql));
    this.derived = [...all.derived].filter(([, c]) => only.has(c.stage)).map(([name, c]) => column(name, c.sql));
  }

  get names(): string[] {
    return namesOf(this.derived);
  }

  /** The level-2 SQL of the column `name` (of any of the stages these were made for). */
  derivedOf(name: string): string {
    return this.all.derived.get(name)?.sql ?? name;
  }

  /** The columns of some of the stages, the same expressions (so no parameter is added twice). */
  subset(stages: readonly number[]): StageColumns {
    return new StageColumns(this.twoLevel, this.all, new Set(stages));
  }
}

/** The columns of `stages`: root fields read from the alias `parent`, item fields from `item`. */
export function stageColumns(
  context: ColumnContext,
  stages: readonly number[],
  parent: string,
  item: string,
): StageColumns {
  const builder = new ColumnBuilder(context, parent, item);
  for (const i of stages) builder.stage(i);
  return new StageColumns(context.twoLevel, builder, new Set(stages));
}

type MaskType = 'BIGINT' | 'HUGEINT';

/** The literal of bit `bit` of a range mask. */
const maskBit = (bit: number, type: MaskType): string => `${(1n << BigInt(bit)).toString()}::${type}`;

/** Collects the columns stage by stage; the order of its calls is the order of the parameters. */
class ColumnBuilder implements Columns {
  readonly raw = new Map<string, RawColumn>();
  readonly derived = new Map<string, { readonly sql: string; readonly stage: number }>();
  private current = -1;

  constructor(
    private readonly context: ColumnContext,
    private readonly parent: string,
    private readonly item: string,
  ) {}

  stage(i: number): void {
    this.current = i;
    const node = this.context.pipeline[i] as AggNode;
    const k = `k${this.context.keyOf[i]}`;
    switch (node.kind) {
      case 'dateHistogram':
        return this.pass(k, this.context.histogramKey(`${this.parent}.${ident('timestamp')}`));
      case 'terms':
        if (node.profile)
          return this.pass(k, this.context.profileKey(node.profile, `${this.parent}.${ident('timestamp')}`));
        return this.pass(k, `${this.aliasOf(node.field)}.${ident(columnOf(node.field))}`);
      case 'filter':
        return this.filter(`f${i}`, node.filter);
      case 'filters':
        return this.filters(
          k,
          `m${i}`,
          node.buckets.map((b) => b.filter),
        );
      case 'stats':
      case 'nested':
      case 'reverseNested':
        return;
    }
  }

  private filter(name: string, filter: FilterNode): void {
    const { twoLevel, params } = this.context;
    if (!twoLevel || filter.kind === 'range')
      this.pass(name, `coalesce((${compileFilter(filter, this.aliasOf(filter.field), params)}), false)`);
    else this.setDerived(name, `coalesce((${this.keywordCondition(filter)}), false)`);
  }

  /** The list of the indexes of the matching buckets, in bucket order (NULL conditions match nothing). */
  private filters(k: string, mask: string, filters: readonly FilterNode[]): void {
    const { twoLevel, params } = this.context;
    // BIGINT holds 63 bits and is much cheaper per row than HUGEINT, which only a stage of 64 to 100 buckets needs.
    const maskType: MaskType = filters.length > 63 ? 'HUGEINT' : 'BIGINT';
    const bits = filters.flatMap((f, bit) =>
      f.kind === 'range'
        ? [
            `CASE WHEN ${compileFilter(f, this.aliasOf(f.field), params)} THEN ${maskBit(bit, maskType)} ELSE 0::${maskType} END`,
          ]
        : [],
    );
    if (twoLevel && bits.length > 0) this.setRaw(mask, `(${bits.join(' | ')})`);
    const condition = (f: FilterNode, bit: number): string => {
      if (!twoLevel) return compileFilter(f, this.aliasOf(f.field), params);
      return f.kind === 'range' ? `(${mask} & ${maskBit(bit, maskType)}) <> 0` : this.keywordCondition(f);
    };
    const each = filters.map((f, index) => `CASE WHEN ${condition(f, index)} THEN ${index} END`);
    const list = `list_filter([${each.join(', ')}], lambda x: x IS NOT NULL)`;
    if (twoLevel) this.setDerived(k, list);
    else this.pass(k, list);
  }

  /** A keyword condition per group: on the level-1 column of the field's values. */
  private keywordCondition(filter: FilterNode): string {
    const v = this.context.valuesOf(filter.field.name);
    this.setRaw(v, `${this.aliasOf(filter.field)}.${ident(columnOf(filter.field))}`);
    return compileCondition(filter, v, this.context.params);
  }

  private aliasOf(field: { readonly nestedPath?: string }): string {
    return field.nestedPath ? this.item : this.parent;
  }

  /** A column computed per row and passed through to level 2 by name. */
  private pass(name: string, sql: string): void {
    this.setRaw(name, sql);
    this.setDerived(name, name);
  }

  private setRaw(name: string, sql: string): void {
    const known = this.raw.get(name);
    if (known) {
      known.sql = sql;
      known.stages.add(this.current);
    } else {
      this.raw.set(name, { sql, stages: new Set([this.current]) });
    }
  }

  private setDerived(name: string, sql: string): void {
    this.derived.set(name, { sql, stage: this.current });
  }
}
