import type { EngineResult } from '../stores/store';

/** What an answer says of the rows that served it (docs/rollups.md, "Which path answered"). */
export type SourceFacts = Pick<EngineResult, 'source' | 'rawReason' | 'rollupWindow'>;

/**
 * The source of an answer put together from parts (a split report's slices in time order, a
 * comparison's two periods): `rollup` when every part was answered from rollups, `raw` when none
 * was, `mixed` otherwise, with the reason of the first part read raw (the client can act on one
 * reason; the others are as often the same) and, when every part was `rollup` and their windows
 * join end to end, the window they cover together. Unsaid when a part says nothing (rollups off).
 */
export function combineSources(parts: readonly SourceFacts[]): SourceFacts {
  const sources = new Set(parts.map((p) => p.source));
  if (parts.length === 0 || sources.has(undefined)) return {};
  const source = sources.size === 1 ? (parts[0]?.source as NonNullable<SourceFacts['source']>) : 'mixed';
  const rawReason = parts.find((p) => p.rawReason !== undefined)?.rawReason;
  const window = source === 'rollup' ? joinedWindow(parts) : undefined;
  return { source, ...(rawReason === undefined ? {} : { rawReason }), ...(window ? { rollupWindow: window } : {}) };
}

/** The parts' windows as one, when each starts where the one before it ends. */
function joinedWindow(parts: readonly SourceFacts[]): SourceFacts['rollupWindow'] {
  const windows = parts.map((p) => p.rollupWindow);
  let joined: SourceFacts['rollupWindow'];
  for (const w of windows) {
    if (!w || (joined && joined.to !== w.from)) return undefined;
    joined = { from: joined?.from ?? w.from, to: w.to };
  }
  return joined;
}
