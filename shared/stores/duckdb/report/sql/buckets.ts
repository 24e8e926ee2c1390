import type { Rounding } from '../../../../report/histogram/rounding';

/**
 * Histogram bucket arithmetic for the DuckDB engine. The keys and the per-row key expression both
 * come from one OpenSearch-faithful {@link Rounding}, so that DuckDB never does time zone work:
 * SQL only adds constant offsets and floors, piecewise, as {@link KeySegment}s describe.
 */

/**
 * From `start` (UTC ms, inclusive) to the next segment's start, the bucket key of an instant t is
 * `trunc(t + offset) - offset` (`shift`: t's local time rounded down in local time, back to UTC with
 * the same offset) or a single `key` (`constant`: the few instants just after a DST transition whose
 * rounded local time falls before it, and whose key OpenSearch resolves specially).
 */
export type KeySegment =
  | { readonly start: number; readonly kind: 'shift'; readonly offset: number }
  | { readonly start: number; readonly kind: 'constant'; readonly key: number };

/**
 * Segments covering [lo, hi] (UTC ms, both inclusive) such that evaluating them gives
 * `rounding.round(t)` for every t in that range.
 */
export function keySegments(rounding: Rounding, lo: number, hi: number): KeySegment[] {
  const { offsets } = rounding;
  const calendar = rounding.interval.kind === 'calendar';
  const segments: KeySegment[] = [];
  for (let i = offsets.indexAt(lo); i < offsets.periods.length; i++) {
    const { start, offset } = offsets.period(i);
    const from = Math.max(start, lo);
    const to = Math.min(offsets.endOf(i), hi + 1);
    if (from >= to) break;
    // Rounded local times at or after `threshold` are converted back with this period's offset.
    const previous = i === 0 ? offset : offsets.period(i - 1).offset;
    const threshold = i === 0 ? -Infinity : start + (calendar ? Math.max(offset, previous) : offset);
    const regularFrom = i === 0 ? -Infinity : rounding.ceilLocal(threshold) - offset;
    for (let x = from; x < Math.min(regularFrom, to); ) {
      const pieceEnd = Math.min(rounding.ceilLocal(x + offset + 1) - offset, regularFrom, to);
      push(segments, { start: x, kind: 'constant', key: rounding.round(x) });
      x = pieceEnd;
    }
    if (regularFrom < to) push(segments, { start: Math.max(from, regularFrom), kind: 'shift', offset });
  }
  return segments;
}

function push(segments: KeySegment[], s: KeySegment): void {
  const last = segments.at(-1);
  if (last?.kind === 'constant' && s.kind === 'constant' && last.key === s.key) return;
  if (last?.kind === 'shift' && s.kind === 'shift' && last.offset === s.offset) return;
  segments.push(s);
}

/** Evaluates segments in JS (tests; the engine does the same in SQL). */
export function evaluateSegments(
  segments: readonly KeySegment[],
  truncLocal: (local: number) => number,
  t: number,
): number {
  let s = segments[0] as KeySegment;
  for (const candidate of segments) if (candidate.start <= t) s = candidate;
  return s.kind === 'constant' ? s.key : truncLocal(t + s.offset) - s.offset;
}
