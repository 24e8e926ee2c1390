import { grainOf, ROLLUP_GRAIN_MS, ROLLUP_WINDOW } from './match';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * How far apart dirty grains may lie and still be rebuilt as one range: rebuilding a clean grain
 * changes nothing and only costs reading it, against the cost of one more range. A store's own
 * figure, one name for both. DuckDB regroups a range with one statement per table inside one
 * transaction, where a day of clean documents costs less than the statements: a day. OpenSearch
 * reads a range through composite searches over its documents, where an hour of clean documents
 * costs about what one more range's requests do: an hour (a rebuild may ask for more, see
 * RebuildOptions.mergeGapMs).
 */
export const MERGE_GAP_MS = { duckdb: DAY, opensearch: HOUR } as const;

/** The distinct grains of `timestamps` that rollups cover (ROLLUP_WINDOW: others are always read raw), ascending. */
export function grainsOf(timestamps: Iterable<number>, grainMs: number = ROLLUP_GRAIN_MS): number[] {
  const grains = new Set<number>();
  for (const t of timestamps) if (t >= ROLLUP_WINDOW.from && t < ROLLUP_WINDOW.to) grains.add(grainOf(t, grainMs));
  return [...grains].sort((a, b) => a - b);
}

/**
 * Sorted dirty grain starts → the [from, to) ranges a rebuild recomputes at `level` (a multiple of
 * the grain): each grain widened to whole rows of the level (a coarser row is recomputed whole or
 * not at all), joined with the range before when less than `mergeGapMs` apart (0 apart: they meet).
 */
export function dirtyRanges(
  grains: readonly number[],
  grainMs: number,
  level: number,
  mergeGapMs: number,
): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const g of grains) {
    const from = grainOf(g, level);
    const to = grainOf(g + grainMs - 1, level) + level;
    const last = out.at(-1);
    if (last && from - last.to < mergeGapMs) last.to = Math.max(last.to, to);
    else out.push({ from, to });
  }
  return out;
}
