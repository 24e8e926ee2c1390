import {
  CATALOG,
  COLLECTIONS,
  nestedPathsOf,
  type Collection,
  type FieldDef,
  type NestedPath,
} from '../../../documents/fields';
import { isDimension, rollupLevels } from '../../../rollups/match';
import { EXACT_LIMIT } from '../../../rollups/read';
import { columnOf, ident, ITEM, itemsColumn, nestedTable, PARENT_ID, ROW_ID, SHARD, TABLES } from './schema';

/**
 * The rollup tables (docs/rollups.md): per collection one of its documents and one per nested path
 * of its items (with their document's dimensions, so that a nested report reads it alone). A row is
 * one grain (`timestamp`: its start), shard and tuple of dimensions, with measures. Each column has
 * two readings: as the rebuild aggregates raw rows into it (`build`), and as one raw row gives it
 * (`row`), for the raw tail a report reads with the rollup rows (rollup-source.ts): the same names,
 * so that the report's stages read either alike.
 */
export interface RollupTable {
  readonly name: string;
  readonly collection: Collection;
  /** The nested path of an items rollup. */
  readonly path?: NestedPath;
  /** Key columns: `build` over the raw rows (the grain's start for the time), `row` per raw row. */
  readonly dimensions: readonly RollupColumn[];
  /** Aggregates: `build` over a grain's raw rows, `row` per raw row. */
  readonly measures: readonly RollupColumn[];
  /** FROM of the raw rows: the root table `d`, or the child table `c` joined to its documents `d`. */
  readonly from: string;
  /** The raw rows' time column. */
  readonly time: string;
}

export interface RollupColumn {
  readonly name: string;
  readonly build: string;
  readonly row: string;
}

/** The count of a rollup row (documents or items), summed where a raw report counts rows. */
export const COUNT = '_n';
/** Items rollups: how many of the row's items are their document's first (the documents with items). */
export const FIRSTS = '_np';

/**
 * Stats measure columns of a number field: count, min, max, sum, values that are not exact integers, sum of magnitudes.
 */
export const statColumn = (f: FieldDef, what: 'n' | 'min' | 'max' | 'sum' | 'odd' | 'abs'): string =>
  `${columnOf(f)}__${what}`;

const col = (name: string, build: string, row: string = build): RollupColumn => ({ name, build, row });

function statMeasures(f: FieldDef, alias: string): RollupColumn[] {
  const x = `${alias}.${ident(columnOf(f))}`;
  const odd = `(${x} <> trunc(${x}) OR abs(${x}) >= ${EXACT_LIMIT})`;
  return [
    col(statColumn(f, 'n'), `count(${x})`, `(${x} IS NOT NULL)::BIGINT`),
    col(statColumn(f, 'min'), `min(${x})`, x),
    col(statColumn(f, 'max'), `max(${x})`, x),
    col(statColumn(f, 'sum'), `fsum(${x})`, x),
    col(statColumn(f, 'odd'), `count_if(${odd})`, `coalesce(${odd}, false)::BIGINT`),
    col(statColumn(f, 'abs'), `fsum(abs(${x}))`, `abs(${x})`),
  ];
}

/**
 * The grain's start of a time column, in SQL (floored, for times before 1970 too; shared/rollups/match.ts `grainOf` in
 * TypeScript).
 */
export const grainOfSql = (time: string, grain: string): string =>
  `(${time} - ((${time} % ${grain}) + ${grain}) % ${grain})`;

const fieldsOf = (c: Collection, path: NestedPath | undefined, test: (f: FieldDef) => boolean) =>
  [...CATALOG[c].values()].filter((f) => f.nestedPath === path && test(f));

/** The columns every rollup has first: the organization, the root dimensions, the shard, the grain. */
function rootDimensions(c: Collection, alias: string, grain: string): RollupColumn[] {
  const time = `${alias}.${ident('timestamp')}`;
  const keywords = fieldsOf(c, undefined, isDimension).map((f) => col(columnOf(f), `d.${ident(columnOf(f))}`));
  return [
    col('organizationId', `d.${ident('organizationId')}`),
    ...keywords,
    col(SHARD, `${alias}.${ident(SHARD)}`),
    col('timestamp', grainOfSql(time, grain), time),
  ];
}

// Both engines keep the same levels (shared/rollups/match.ts).
export { rollupLevels };

/** The rollup tables of every collection at one level (its grain in ms). */
export function rollupTables(grainMs: number): RollupTable[] {
  const grain = String(grainMs);
  const suffix = `__rollup_${grainMs / 60_000}m`;
  return COLLECTIONS.flatMap((c) => {
    const root = ident(TABLES[c].root);
    const paths = nestedPathsOf(c);
    // Whether a document has items of a path (a report counts the documents without through the root table).
    const hasItems = paths.map((p) => col(itemsColumn(p), `least(d.${ident(itemsColumn(p))}, 1)`));
    const documents: RollupTable = {
      name: `${TABLES[c].root}${suffix}`,
      collection: c,
      dimensions: [...rootDimensions(c, 'd', grain), ...hasItems],
      measures: [
        col(COUNT, 'count(*)', '1::BIGINT'),
        ...fieldsOf(c, undefined, (f) => f.kind === 'number').flatMap((f) => statMeasures(f, 'd')),
      ],
      from: `${root} d`,
      time: `d.${ident('timestamp')}`,
    };
    const items = paths.map((path): RollupTable => {
      const child = nestedTable(c, path);
      const keywords = fieldsOf(c, path, isDimension).map((f) => col(columnOf(f), `c.${ident(columnOf(f))}`));
      return {
        name: `${child}${suffix}`,
        collection: c,
        path,
        dimensions: [...rootDimensions(c, 'c', grain), ...keywords],
        measures: [
          col(COUNT, 'count(*)', '1::BIGINT'),
          col(FIRSTS, `count_if(c.${ident(ITEM)} = 0)`, `(c.${ident(ITEM)} = 0)::BIGINT`),
          ...fieldsOf(c, path, (f) => f.kind === 'number').flatMap((f) => statMeasures(f, 'c')),
        ],
        from: `${ident(child)} c JOIN ${root} d ON d.${ident(ROW_ID)} = c.${ident(PARENT_ID)}`,
        time: `c.${ident('timestamp')}`,
      };
    });
    return [documents, ...items];
  });
}

/** The rollup table of a collection's documents, or of its items of `path`. */
export function rollupTable(tables: readonly RollupTable[], c: Collection, path?: NestedPath): RollupTable {
  const table = tables.find((t) => t.collection === c && t.path === path);
  if (!table) throw new Error(`no rollup of ${c}${path ? ` ${path}` : ''}`);
  return table;
}

/** Where each write records the grains it touched; a rebuild recomputes them and clears them. */
export const DIRTY_TABLE = 'rollup_dirty';
/**
 * The grain the rollup rows were built with and the layout of their tables (one row): a file whose
 * rollups were built otherwise (another grain, an earlier layout) has them rebuilt from nothing.
 */
export const GRAIN_TABLE = 'rollup_layout';

/** The rollup tables' layout of a grain, as stored in GRAIN_TABLE. */
export const rollupLayout = (grainMs: number): string =>
  JSON.stringify(
    rollupLevels(grainMs)
      .flatMap(rollupTables)
      .map((t) => [t.name, ...[...t.dimensions, ...t.measures].map((c) => c.name)]),
  );

const TYPES: Readonly<Record<string, string>> = {
  [COUNT]: 'BIGINT',
  [FIRSTS]: 'BIGINT',
  [SHARD]: 'INTEGER',
  timestamp: 'BIGINT',
};

/** The SQL type of a rollup column: keywords VARCHAR, stats measures by what they hold. */
function typeOf(name: string): string {
  if (TYPES[name]) return TYPES[name] as string;
  if (name.startsWith('_')) return 'INTEGER';
  const what = name.split('__')[1];
  if (what === 'n' || what === 'odd') return 'BIGINT';
  return what ? 'DOUBLE' : 'VARCHAR';
}

/**
 * A coarser level's row from the rows of the finer level below (`f`): the same dimensions with the
 * time floored to its grain, counts and sums added, extremes taken. Sums of sums equal the sums of
 * the values only where those are integers, the only sums a report reads (`odd` is 0 there).
 */
export function coarserColumns(table: RollupTable, grainMs: number): string[] {
  const read = (name: string): string => {
    const c = `f.${ident(name)}`;
    if (name === 'timestamp') return grainOfSql(c, String(grainMs));
    if (table.dimensions.some((d) => d.name === name)) return c;
    const what = name.split('__')[1];
    return what === 'min'
      ? `min(${c})`
      : what === 'max'
        ? `max(${c})`
        : what === 'sum' || what === 'abs'
          ? `fsum(${c})`
          : `sum(${c})::BIGINT`;
  };
  return [...table.dimensions, ...table.measures].map((c) => `${read(c.name)} AS ${ident(c.name)}`);
}

/** DDL of the rollup tables of every level of `grainMs` and the bookkeeping tables, idempotent. */
export function rollupSchemaStatements(grainMs: number): string[] {
  const tables = rollupLevels(grainMs).flatMap(rollupTables);
  return [
    `CREATE TABLE IF NOT EXISTS ${ident(DIRTY_TABLE)} (collection VARCHAR NOT NULL, grain BIGINT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${ident(GRAIN_TABLE)} (grain BIGINT NOT NULL, layout VARCHAR NOT NULL)`,
    ...tables.map((t) => {
      const cols = [...t.dimensions, ...t.measures].map((c) => `${ident(c.name)} ${typeOf(c.name)}`);
      return `CREATE TABLE IF NOT EXISTS ${ident(t.name)} (${cols.join(', ')})`;
    }),
  ];
}
