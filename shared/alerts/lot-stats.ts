import type { Location } from '../locations/model';
import { planFromRequest } from '../report/plan/plan-builder';
import type { ReportRequest } from '../report/schema/request';
import type { AggResult, ReportEngine } from '../stores/store';

/** A lot's latest stats: its occupied and total spaces. */
export interface LotStats {
  readonly occupied: number;
  readonly total: number;
}

/** How far back a lot's stats count as its state now (three refresh periods). */
export const LOT_STATS_WINDOW_MS = 15 * 60_000;

/**
 * Each parking lot's state now, from its stats of the latest minute within the last
 * {@link LOT_STATS_WINDOW_MS} (the highest `occupied` and `total` of that minute), through ordinary
 * report plans scoped to the location's organization; a lot without stats in the window is absent.
 */
export async function latestLotStats(
  engine: ReportEngine,
  location: Pick<Location, 'id' | 'organizationId' | 'timezone'>,
  now: number,
): Promise<Map<string, LotStats>> {
  const [occupied, total] = await Promise.all(
    (['occupied', 'total'] as const).map(async (field) => {
      const request: ReportRequest = {
        source: 'parkingLotStats',
        locationIds: [location.id],
        filters: [
          {
            type: 'range',
            field: 'timestamp',
            from: new Date(now - LOT_STATS_WINDOW_MS).toISOString(),
            to: new Date(now).toISOString(),
          },
        ],
        aggregations: [
          { type: 'terms', field: 'parkingLotId' },
          { type: 'dateHistogram', interval: '1m', timeZone: location.timezone },
          { type: 'stats', field, max: true },
        ],
      };
      const { root } = await engine.run(planFromRequest(request), { organizationId: location.organizationId });
      return latestMax(root);
    }),
  );
  const out = new Map<string, LotStats>();
  for (const [lot, o] of occupied!) {
    const t = total!.get(lot);
    if (t !== undefined) out.set(lot, { occupied: o, total: t });
  }
  return out;
}

/** terms → dateHistogram → stats: per key, the max of its last minute with a value. */
function latestMax(root: AggResult): Map<string, number> {
  const out = new Map<string, number>();
  if (root.kind !== 'terms') return out;
  for (const bucket of root.buckets) {
    if (bucket.sub?.kind !== 'histogram') continue;
    const last = [...bucket.sub.buckets].reverse().find((b) => b.count > 0);
    if (last?.sub?.kind === 'stats' && last.sub.max !== null) out.set(bucket.key, last.sub.max);
  }
  return out;
}
