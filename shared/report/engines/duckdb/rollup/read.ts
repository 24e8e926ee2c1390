import type { DuckDBConnection } from '@duckdb/node-api';
import type { Scope } from '../../engine';
import type { ReportPlan } from '../../../plan/plan';
import { matchRollup } from '../../../plan/rollup-match';
import { SqlParams } from '../sql/sql-params';
import { readWatermark } from './maintain';
import { exactStatsQuery, type RollupRead } from './source';
import { EXACT_LIMIT, rollupTables } from './tables';

/**
 * How `plan` reads rollups, or undefined where it reads raw: the matcher's decision for the file's
 * grain, its window cut at the collection's watermark, and for stats, whether every value the
 * report would add is an integer (docs/rollups.md). To call in the report's transaction, so that the
 * watermark and the rows the report reads are of one moment.
 */
export async function rollupReadFor(connection: DuckDBConnection, plan: ReportPlan, scope: Scope, run: Select): Promise<RollupRead | undefined> {
  const { grainMs, watermark } = await readWatermark(connection, plan.source);
  const decision = matchRollup(plan, grainMs);
  if (decision.use === 'raw') return undefined;
  const read: RollupRead = { tables: rollupTables(String(grainMs)), from: decision.window.from, to: Math.min(decision.window.to, watermark) };
  if (read.from >= read.to) return undefined;
  const stats = plan.pipeline.at(-1);
  if (stats?.kind !== 'stats') return read;
  const params = new SqlParams();
  const sql = exactStatsQuery(read, plan, scope, params, stats.field);
  const [odd, abs] = (await run(connection, { sql, params: params.values }))[0] ?? [];
  return Number(odd) === 0 && Number(abs) < EXACT_LIMIT ? read : undefined;
}

/** The engine's way of running a statement (execute.ts). */
export type Select = (connection: DuckDBConnection, query: { sql: string; params: SqlParams['values'] }) => Promise<unknown[][]>;
