import type { DuckDBConnection } from '@duckdb/node-api';
import type { Scope } from '../../store';
import type { ReportPlan } from '../../../report/plan/plan';
import { ENGINE_RAW_REASONS, matchRollup } from '../../../rollups/match';
import { SqlParams } from './sql/sql-params';
import { readWatermark } from '../rollups/rebuild';
import { exactStatsQuery, type RollupRead } from './sql/rollup-read';
import { EXACT_LIMIT, rollupLevels, rollupTables } from '../layout/rollup-tables';

/**
 * How `plan` reads rollups, or why it reads raw: the matcher's decision for the coarsest level of
 * the file's grain it accepts, its window cut at the collection's watermark, and for stats, whether
 * every value the report would add is an integer (docs/rollups.md). To call in the report's
 * transaction, so that the watermark and the rows the report reads are of one moment. The reason
 * given is the finest level's (the grain's), the one that accepts the most.
 */
export async function rollupReadFor(connection: DuckDBConnection, plan: ReportPlan, scope: Scope, run: Select): Promise<RollupRead | string> {
  const { grainMs, watermark } = await readWatermark(connection, plan.source);
  let reason = '';
  // The coarsest level the report can be read from, its window cut where its rows are stale.
  for (const level of rollupLevels(grainMs).reverse()) {
    const decision = matchRollup(plan, level);
    if (decision.use === 'raw') {
      reason = decision.reason;
      continue;
    }
    const read: RollupRead = { tables: rollupTables(level), from: decision.window.from, to: Math.min(decision.window.to, floorTo(watermark, level)) };
    if (read.from < read.to) return (await exactStats(connection, plan, scope, run, read)) ? read : ENGINE_RAW_REASONS.inexactSum;
    reason = ENGINE_RAW_REASONS.pastWatermark(watermark);
  }
  return reason;
}

/** Whether the report has no stats or every value they add is an integer (else it reads raw). */
async function exactStats(connection: DuckDBConnection, plan: ReportPlan, scope: Scope, run: Select, read: RollupRead): Promise<boolean> {
  const stats = plan.pipeline.at(-1);
  if (stats?.kind !== 'stats') return true;
  const params = new SqlParams();
  const sql = exactStatsQuery(read, plan, scope, params, stats.field);
  const [odd, abs] = (await run(connection, { sql, params: params.values }))[0] ?? [];
  return Number(odd) === 0 && Number(abs) < EXACT_LIMIT;
}

/** The engine's way of running a statement (execute.ts). */
export type Select = (connection: DuckDBConnection, query: { sql: string; params: SqlParams['values'] }) => Promise<unknown[][]>;

/** `t` floored to a multiple of `grain` (Infinity stays). */
const floorTo = (t: number, grain: number): number => (Number.isFinite(t) ? t - (((t % grain) + grain) % grain) : t);
