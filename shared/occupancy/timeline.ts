import type { Deadline } from '../report/deadline';
import { Pacer } from '../report/pace';
import type { AggregationInput } from '../report/schema/aggregations';
import type { AggResult, ReportEngine, Scope } from '../stores/store';
import { planFromRequest } from '../report/plan/plan-builder';
import type { CountingLine } from '../locations/model';
import { cameraChunks, CrossingCounts, crossingsRequest, netOf, readCounts } from './crossings';

/** The live refresh runs on these marks (cron 0/5), and the history counts crossings per slot between them. */
export const SLOT_MS = 300_000;

/** A `filters` aggregation holds at most this many named buckets (the request language's limit). */
const PIECES_PER_REPORT = 100;

export const floorToSlot = (t: number): number => Math.floor(t / SLOT_MS) * SLOT_MS;
export const isMark = (t: number): boolean => t % SLOT_MS === 0;

/**
 * Crossing counts of a location's lines over [from, to) on the 5-minute grid: one CrossingCounts
 * per slot, from a 5-minute dateHistogram in front of the crossings pipeline, plus, for each cut
 * point that is not on a mark (an opening at 08:03), the counts of [floorToSlot(cut), cut) from a
 * `filters` stage of time ranges. So the net crossings between any two cut points or marks are exact
 * sums, on either engine, without a per-minute histogram: typical opening hours need no piece at all.
 */
export class CrossingTimeline {
  private constructor(
    readonly from: number,
    readonly to: number,
    private readonly slots: readonly CrossingCounts[],
    private readonly pieces: ReadonlyMap<number, CrossingCounts>,
  ) {}

  /** Counts through the engine; every query is bounded by half the engine's bucket limit. */
  static async count(
    engine: ReportEngine,
    scope: Scope,
    locationId: string,
    lines: readonly CountingLine[],
    range: { readonly from: number; readonly to: number; readonly cuts: readonly number[] },
    options: { readonly deadline?: Deadline; readonly pacer?: Pacer } = {},
  ): Promise<CrossingTimeline> {
    const pacer = options.pacer ?? new Pacer(options.deadline);
    const { from, to } = range;
    if (!isMark(from) || !isMark(to) || to < from)
      throw new Error(`timeline bounds must be 5-minute marks in order, got ${from}..${to}`);
    const slots = Array.from({ length: (to - from) / SLOT_MS }, () => new CrossingCounts());
    const cuts = [...new Set(range.cuts.filter((c) => !isMark(c) && c > from && c < to))].sort((a, b) => a - b);
    const pieces = new Map(cuts.map((c) => [c, new CrossingCounts()]));
    const run = runner(engine, scope, locationId, options.deadline);
    for (const { cameras, lineIds } of cameraChunks(lines)) {
      // Upper bound of the buckets under one time bucket: per camera its filters and nested buckets,
      // then at most every line id, each with two ends.
      const perTimeBucket = 1 + cameras.length * (2 + 3 * lineIds.length);
      const timeBuckets = Math.max(1, Math.floor(engine.maxBuckets / 2 / perTimeBucket));
      for (let start = from; start < to; start += timeBuckets * SLOT_MS) {
        const end = Math.min(to, start + timeBuckets * SLOT_MS);
        const root = await run(
          crossingsRequest(locationId, cameras, lineIds, start, end, { type: 'dateHistogram', interval: '5m' }),
        );
        if (root.kind !== 'histogram') throw new Error(`unexpected ${root.kind} result at the slot stage`);
        // A cached answer comes back at once: reading its thousands of slots takes turns, not the loop.
        await pacer.chunks(root.buckets, (chunk) => {
          for (const bucket of chunk) {
            const slot = slots[(bucket.key - from) / SLOT_MS];
            if (slot && bucket.sub) readCounts(bucket.sub, cameras, slot);
          }
        });
      }
      const perQuery = Math.max(1, Math.min(PIECES_PER_REPORT, timeBuckets));
      for (let i = 0; i < cuts.length; i += perQuery) {
        const chunk = cuts.slice(i, i + perQuery);
        const lead: AggregationInput = {
          type: 'filters',
          filters: Object.fromEntries(
            chunk.map((c, k) => [
              `piece${k}`,
              { type: 'range', field: 'timestamp', from: iso(floorToSlot(c)), to: iso(c) },
            ]),
          ),
        };
        const root = await run(
          crossingsRequest(locationId, cameras, lineIds, floorToSlot(chunk[0]!), chunk[chunk.length - 1]!, lead),
        );
        if (root.kind !== 'filters') throw new Error(`unexpected ${root.kind} result at the piece stage`);
        await pacer.turn();
        root.buckets.forEach((bucket, k) => {
          if (bucket.sub) readCounts(bucket.sub, cameras, pieces.get(chunk[k]!)!);
        });
      }
    }
    return new CrossingTimeline(from, to, slots, pieces);
  }

  /** A running sum of the net crossings of `lines` from `from`: the net over [a, b) is at(b) − at(a). */
  netOf(lines: readonly CountingLine[]): (t: number) => number {
    const prefix = [0];
    for (const slot of this.slots) prefix.push(prefix[prefix.length - 1]! + netOf(lines, slot));
    return (t) => {
      if (t < this.from || t > this.to) throw new Error(`instant ${iso(t)} is outside the counted timeline`);
      const base = prefix[(floorToSlot(t) - this.from) / SLOT_MS]!;
      if (isMark(t)) return base;
      const piece = this.pieces.get(t);
      if (!piece) throw new Error(`instant ${iso(t)} was not counted as a cut point`);
      return base + netOf(lines, piece);
    };
  }
}

const iso = (t: number): string => new Date(t).toISOString();

function runner(engine: ReportEngine, scope: Scope, locationId: string, deadline: Deadline | undefined) {
  return async (request: Parameters<typeof planFromRequest>[0]): Promise<AggResult> => {
    const result = await engine.run(planFromRequest(request), scope, deadline ? { deadline } : {});
    if (result.truncated) throw new Error(`crossing counts of location ${locationId} were truncated by the terms cap`);
    return result.root;
  };
}
