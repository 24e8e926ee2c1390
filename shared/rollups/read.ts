import type { ReportPlan } from '../report/plan/plan';
import { ENGINE_RAW_REASONS, grainOf, matchRollup, rollupLevels } from './match';

/**
 * What a report reads from rollups: the rows of level `level` (ms: a multiple of the grain, see
 * rollupLevels) for the grains in [from, to), the matcher's window cut at the store's watermark,
 * and raw documents outside it (docs/rollups.md). Each store turns the level into its own tables
 * or index.
 */
export interface RollupRead {
  readonly level: number;
  readonly from: number;
  readonly to: number;
}

/**
 * A stats sum over rollup rows is exact only when every value added is an integer below 2^53 and
 * so is the sum of their magnitudes: then no partial sum rounds, in any order, and the rows' sum is
 * the documents' (OpenSearch adds those integers exactly too). Else the report reads raw.
 */
export const EXACT_LIMIT = 2 ** 53;

/**
 * Which rollups a report reads, or why it reads raw, given the store's grain and its watermark (the
 * start of the collection's earliest dirty grain; Infinity when none is): the coarsest level the
 * matcher accepts, its window cut where the level's rows are stale (the watermark floored to the
 * level: a row with a dirty grain in it is stale). A coarser level is accepted only where the grain
 * is, so the reason given is the grain's, the one that accepts the most. Exactness of stats sums
 * (EXACT_LIMIT) is the store's to check, at run time.
 */
export function chooseRollup(plan: ReportPlan, grainMs: number, watermark: number): RollupRead | string {
  const finest = matchRollup(plan, grainMs);
  if (finest.use === 'raw') return finest.reason;
  for (const level of rollupLevels(grainMs).reverse()) {
    const decision = matchRollup(plan, level);
    if (decision.use === 'raw') continue;
    const to = Math.min(decision.window.to, grainOf(watermark, level));
    if (decision.window.from < to) return { level, from: decision.window.from, to };
  }
  return ENGINE_RAW_REASONS.pastWatermark(watermark);
}
