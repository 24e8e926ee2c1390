import type { Scope } from '../../../store';
import type { FieldDef, NestedPath } from '../../../../documents/fields';
import type { ReportPlan } from '../../../../report/plan/plan';
import { compileScopeCondition } from './compile-scope';
import type { SqlParams } from './sql-params';
import { ident, ROW_ID } from '../../layout/schema';
import type { RollupRead } from '../../../../rollups/read';
import { COUNT, FIRSTS, rollupTable, rollupTables, statColumn } from '../../layout/rollup-tables';

/**
 * The rows a report reads, as one relation named `alias` with the columns of the rollup table
 * (tables.ts): its rollup rows in the window, and the raw rows before and after it, each as one row
 * of count 1 (the partial grains of the range, and what was written since the watermark). Every
 * part carries the report's scope itself, so that DuckDB prunes each part's row groups by time.
 * The stages then group these rows as they group documents: every key is a function of a row's
 * dimensions and time, and a raw row's time lies in the grain the rollup row stands for.
 */
export function rollupRelation(
  read: RollupRead,
  plan: ReportPlan,
  scope: Scope,
  params: SqlParams,
  alias: string,
  path?: NestedPath,
): string {
  const table = rollupTable(rollupTables(read.level), plan.source, path);
  const names = [...table.dimensions, ...table.measures].map((c) => ident(c.name));
  const [from, to] = [params.ms(read.from), params.ms(read.to)];
  const rollupRows = `SELECT ${names.join(', ')} FROM ${ident(table.name)} r WHERE r.${ident('timestamp')} >= ${from} AND r.${ident('timestamp')} < ${to} AND ${compileScopeCondition(plan, scope, params, 'r', ROW_ID)}`;
  const rowColumns = [...table.dimensions, ...table.measures].map((c) => `${c.row} AS ${ident(c.name)}`).join(', ');
  // The child rows' time is a copy of their document's: both bounded, so that the join reads only those days of each.
  const times = (op: string, bound: string) =>
    [table.time, ...(table.path ? [`d.${ident('timestamp')}`] : [])].map((t) => `${t} ${op} ${bound}`).join(' AND ');
  const rawRows = (op: string, bound: string) =>
    `SELECT ${rowColumns} FROM ${table.from} WHERE ${times(op, bound)} AND ${compileScopeCondition(plan, scope, params, 'd', ROW_ID)}`;
  // Raw rows only where the report's range reaches past the window: a range on the grains (the
  // dashboards') reads none, and a table in site order, whose row groups span all its days, is not scanned.
  const range = plan.timeRange;
  const before = range?.from !== undefined && range.from >= read.from ? [] : [rawRows('<', from)];
  const after = range?.to !== undefined && range.to <= read.to ? [] : [rawRows('>=', to)];
  return `(${[rollupRows, ...before, ...after].join('\n  UNION ALL ')}) ${alias}`;
}

/** The rows a group of the relation stands for (`count(*)` over raw rows). */
export const countOf = (alias: string): string => `sum(${alias}.${ident(COUNT)})::BIGINT`;

/** The documents with items a group stands for (`count_if(_item = 0)` over raw items). */
export const firstsOf = (alias: string): string => `sum(${alias}.${ident(FIRSTS)})::BIGINT`;

/**
 * The stats aggregates over the relation, as the grouped compilation names them. The sum adds grain
 * sums, in no particular order: exact because every value is an integer (checked before, see
 * exactStatsQuery), as OpenSearch's per-shard Kahan sum of the same integers is.
 */
export function statsOf(field: FieldDef, alias: string): string {
  const c = (what: 'n' | 'min' | 'max' | 'sum') => `${alias}.${ident(statColumn(field, what))}`;
  return `sum(${c('n')})::BIGINT AS sn, min(${c('min')}) AS mn, max(${c('max')}) AS mx, fsum(${c('sum')}) AS sm`;
}

/**
 * Whether the stats field's values a report reads add up exactly in any order: `odd` the values that
 * are not integers below 2^53, `abs` the sum of magnitudes (below 2^53, no partial sum rounds).
 */
export function exactStatsQuery(
  read: RollupRead,
  plan: ReportPlan,
  scope: Scope,
  params: SqlParams,
  field: FieldDef,
): string {
  const relation = rollupRelation(read, plan, scope, params, 'x', field.nestedPath);
  return `SELECT coalesce(sum(x.${ident(statColumn(field, 'odd'))}), 0)::BIGINT AS odd, coalesce(fsum(x.${ident(statColumn(field, 'abs'))}), 0) AS abs FROM ${relation}`;
}
