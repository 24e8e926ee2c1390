import type { AggResult, ReportEngine, Scope } from '../stores/store';
import { planFromRequest } from '../report/plan/plan-builder';
import type { AggregationInput } from '../report/schema/aggregations';
import type { ReportRequest } from '../report/schema/request';
import type { CountingLine, Direction } from '../locations/model';

/**
 * Line crossings of one location, counted by the report engine through an ordinary report plan
 * (the same field checks, compiler and tenancy scope as `POST /reports:query`; no hand-written query;
 * the request's shape is checked by the compiler, so the zod schema is not loaded for it).
 *
 * "Line L of camera C crossed towards A" needs a root field (trackingCameraId) and two nested fields
 * (crossedPaths.id, crossedPaths.end) of the same event, so the pipeline first splits the events by
 * camera with a `filters` aggregation (one named bucket per configured camera: every camera gets a
 * bucket, empty or not, and no terms cap can cut one off), then steps into the crossedPaths items
 * and groups them by line id and end. `nestedFilters` on crossedPaths.id keep only events that
 * crossed a configured line, and make the nested stage count only the items on those lines.
 * A same-named line of another camera lands in that camera's bucket and is simply not looked up.
 */

/** The filters aggregation allows this many buckets; more cameras are counted in several reports. */
export const CAMERAS_PER_REPORT = 100;

/** Crossing counts keyed by camera, line and end direction. */
export class CrossingCounts {
  private readonly counts = new Map<string, number>();

  static key(camera: string, line: string, end: string): string {
    return JSON.stringify([camera, line, end]);
  }

  add(camera: string, line: string, end: string, count: number): void {
    const key = CrossingCounts.key(camera, line, end);
    this.counts.set(key, (this.counts.get(key) ?? 0) + count);
  }

  get(camera: string, line: string, end: Direction): number {
    return this.counts.get(CrossingCounts.key(camera, line, end)) ?? 0;
  }
}

/**
 * The report request counting crossings of `lines` at `locationId` in [from, to) (epoch ms). With
 * `lead`, a first stage that splits the time (the history's 5-minute slots, or named time ranges),
 * the crossings pipeline runs under each of its buckets.
 */
export function crossingsRequest(
  locationId: string,
  cameras: readonly string[],
  lineIds: readonly string[],
  from: number,
  to: number,
  lead?: AggregationInput,
): ReportRequest {
  return {
    source: 'movementEvents',
    locationIds: [locationId],
    filters: [
      { type: 'range', field: 'timestamp', from: new Date(from).toISOString(), to: new Date(to).toISOString() },
      { type: 'terms', field: 'trackingCameraId', values: [...cameras] },
    ],
    nestedFilters: [
      { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: [...lineIds] }] },
    ],
    aggregations: [
      ...(lead ? [lead] : []),
      {
        type: 'filters',
        filters: Object.fromEntries(
          cameras.map((c, i) => [cameraBucket(i), { type: 'terms', field: 'trackingCameraId', values: [c] }]),
        ),
      },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  };
}

const cameraBucket = (i: number): string => `camera${i}`;

/** The distinct cameras of `lines` in chunks of CAMERAS_PER_REPORT, each with the line ids they count. */
export function cameraChunks(
  lines: readonly CountingLine[],
): { readonly cameras: string[]; readonly lineIds: string[] }[] {
  const cameras = unique(lines.map((l) => l.trackingCameraId));
  const chunks: { cameras: string[]; lineIds: string[] }[] = [];
  for (let i = 0; i < cameras.length; i += CAMERAS_PER_REPORT) {
    const chunk = cameras.slice(i, i + CAMERAS_PER_REPORT);
    chunks.push({
      cameras: chunk,
      lineIds: unique(lines.filter((l) => chunk.includes(l.trackingCameraId)).map((l) => l.lineId)),
    });
  }
  return chunks;
}

/** Counts the crossings of `lines` in [from, to) at one location, within `scope`'s documents. */
export async function countCrossings(
  engine: ReportEngine,
  scope: Scope,
  locationId: string,
  lines: readonly CountingLine[],
  from: number,
  to: number,
): Promise<CrossingCounts> {
  const counts = new CrossingCounts();
  if (from >= to || lines.length === 0) return counts;
  for (const { cameras, lineIds } of cameraChunks(lines)) {
    const plan = planFromRequest(crossingsRequest(locationId, cameras, lineIds, from, to));
    const result = await engine.run(plan, scope);
    if (result.truncated) throw new Error(`crossing counts of location ${locationId} were truncated by the terms cap`);
    readCounts(result.root, cameras, counts);
  }
  return counts;
}

/** filters(camera) → nested → terms(line) → terms(end), read into `counts`. */
export function readCounts(root: AggResult, cameras: readonly string[], counts: CrossingCounts): void {
  if (root.kind !== 'filters') throw new Error(`unexpected ${root.kind} result at the camera stage`);
  root.buckets.forEach((cameraBucketResult, i) => {
    const camera = cameras[i] as string;
    const nested = cameraBucketResult.sub;
    if (nested?.kind !== 'single') return;
    const lines = nested.sub;
    if (lines?.kind !== 'terms') return;
    for (const line of lines.buckets) {
      if (line.sub?.kind !== 'terms') continue;
      for (const end of line.sub.buckets) counts.add(camera, line.key, end.key, end.count);
    }
  });
}

/** max(0, ins − outs) over the group's lines: the live rule clamps the total since the opening, never a part of it. */
export function occupancyOf(lines: readonly CountingLine[], counts: CrossingCounts): number {
  return Math.max(0, netOf(lines, counts));
}

/** ins − outs over the group's lines (a camera's line listed twice counts once); may be negative. */
export function netOf(lines: readonly CountingLine[], counts: CrossingCounts): number {
  const seen = new Set<string>();
  let total = 0;
  for (const l of lines) {
    const key = JSON.stringify([l.trackingCameraId, l.lineId]);
    if (seen.has(key)) continue;
    seen.add(key);
    const out: Direction = l.inDirection === 'A' ? 'B' : 'A';
    total += counts.get(l.trackingCameraId, l.lineId, l.inDirection) - counts.get(l.trackingCameraId, l.lineId, out);
  }
  return total;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
