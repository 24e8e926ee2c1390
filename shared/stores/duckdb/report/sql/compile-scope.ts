import type { Scope } from '../../../store';
import type { FilterNode, ReportPlan } from '../../../../report/plan/plan';
import {
  columnOf,
  ident,
  nestedTable,
  PARENT_COPIES,
  PARENT_ID,
  ROW_ID,
  SCOPE,
  scopesTable,
  sqlTypeOf,
  TABLES,
} from '../../layout/schema';
import { SqlParams, type SqlQuery } from './sql-params';

/** `alias."column" IN (...)` or a half-open range `>= from AND < to`, values bound as parameters. */
export function compileFilter(f: FilterNode, alias: string, params: SqlParams): string {
  return compileCondition(f, `${alias}.${ident(columnOf(f.field))}`, params);
}

/** The condition of `f` on the SQL expression `column` (its field's values, however they are read). */
export function compileCondition(f: FilterNode, column: string, params: SqlParams): string {
  if (f.kind === 'terms') return `${column} IN (${f.values.map((v) => params.add(v, 'VARCHAR')).join(', ')})`;
  const type = sqlTypeOf(f.field);
  const parts: string[] = [];
  if (f.from !== undefined) parts.push(`${column} >= ${params.add(f.from, type)}`);
  if (f.to !== undefined) parts.push(`${column} < ${params.add(f.to, type)}`);
  return parts.join(' AND ');
}

/** All filters joined with AND (`TRUE` for none). */
export function compileFilters(filters: readonly FilterNode[], alias: string, params: SqlParams): string {
  return filters.length === 0 ? 'TRUE' : filters.map((f) => `(${compileFilter(f, alias, params)})`).join(' AND ');
}

/**
 * The documents a report sees, as a SELECT of every root column (alias `d`): the caller's
 * organization always, then locationIds, root filters, and per nestedFilters entry the documents with
 * a child row of that path matching all of the entry's filters, as OpenSearch's `nested` query.
 */
export function compileScope(plan: ReportPlan, scope: Scope, params: SqlParams): string {
  return `SELECT d.* FROM ${ident(TABLES[plan.source].root)} d WHERE ${compileScopeCondition(plan, scope, params, 'd', ROW_ID)}`;
}

/**
 * The scope as a condition on a relation with the root fields under `alias`, whose document row id
 * is the column `rowId`: the root table (`row_id`), or a child table (`event_id`) through its scope
 * numbers (`scopeNumbers`: those of the organization and locations, from compileScopeNumbers) and
 * copies of the parent's columns (only for root filters on copied fields, see schema.ts).
 */
export function compileScopeCondition(
  plan: ReportPlan,
  scope: Scope,
  params: SqlParams,
  alias: string,
  rowId: string,
  scopeNumbers?: readonly number[],
): string {
  const where: string[] = [];
  if (scopeNumbers) {
    where.push(
      scopeNumbers.length === 0
        ? 'FALSE'
        : `${alias}.${ident(SCOPE)} IN (${scopeNumbers.map((n) => params.add(n, 'BIGINT')).join(', ')})`,
    );
  } else {
    where.push(`${alias}.${ident('organizationId')} = ${params.add(scope.organizationId, 'VARCHAR')}`);
    if (plan.locationIds) {
      where.push(
        `${alias}.${ident('locationId')} IN (${plan.locationIds.map((l) => params.add(l, 'VARCHAR')).join(', ')})`,
      );
    }
  }
  for (const f of plan.filters) where.push(`(${compileFilter(f, alias, params)})`);
  // `IN (SELECT parent ...)` rather than a correlated EXISTS: the same documents (neither id is ever
  // NULL), but DuckDB runs it as one hash semi-join instead of a probe per document (README).
  // The root filters on columns the child rows copy (the time) go into the subquery too: they hold
  // for a parent exactly when they hold for its items, and they let DuckDB skip the other days.
  const copied = plan.filters.filter((f) => PARENT_COPIES.includes(columnOf(f.field)));
  for (const nf of plan.nestedFilters) {
    const table = ident(nestedTable(plan.source, nf.path));
    const items = compileFilters([...copied, ...nf.filters], 'n', params);
    where.push(`${alias}.${ident(rowId)} IN (SELECT n.${ident(PARENT_ID)} FROM ${table} n WHERE ${items})`);
  }
  return where.join(' AND ');
}

/** The root fields the scope's filters read (besides the organization and locations). */
export function scopeFilterFields(plan: ReportPlan): string[] {
  return plan.filters.map((f) => columnOf(f.field));
}

/** The scope numbers (schema.ts) of the report's organization and locations. */
export function compileScopeNumbers(plan: ReportPlan, scope: Scope): SqlQuery {
  const params = new SqlParams();
  const [org, loc] = [ident('organizationId'), ident('locationId')];
  const where = [`${org} = ${params.add(scope.organizationId, 'VARCHAR')}`];
  if (plan.locationIds) where.push(`${loc} IN (${plan.locationIds.map((l) => params.add(l, 'VARCHAR')).join(', ')})`);
  return {
    sql: `SELECT ${ident(SCOPE)} FROM ${ident(scopesTable(plan.source))} WHERE ${where.join(' AND ')} ORDER BY 1`,
    params: params.values,
  };
}

/** First and last timestamp (epoch ms) of the report's documents: the extent of a histogram without bounds. */
export function compileTimeExtent(plan: ReportPlan, scope: Scope): SqlQuery {
  const params = new SqlParams();
  const ts = ident('timestamp');
  const sql = `SELECT min(s.${ts}) AS lo, max(s.${ts}) AS hi FROM (${compileScope(plan, scope, params)}) s`;
  return { sql, params: params.values };
}
