import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { ReportEngine } from '#shared/stores/store';
import type { LocationStore } from '#shared/locations/store';
import { refreshOccupancy, type RefreshSummary } from '#shared/occupancy/refresh';
import { locationStore } from '#commons/clients/dynamo';
import { observability } from '#commons/powertools/observability';
import { reportEngine } from '#commons/clients/store';
import type { Provider } from '#commons/clients/lazy';
import { logger } from '#commons/powertools/logger';
import { measuredEngine, metrics } from '#commons/powertools/metrics';

export interface RefreshOccupancyDeps {
  readonly store: Provider<Pick<LocationStore, 'listForRefresh' | 'putOccupancy' | 'deleteOccupancy'>>;
  readonly engine: Provider<ReportEngine>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Thrown only when every location failed (e.g. the engine is down), so that the run counts as an error. */
export class RefreshFailedError extends Error {}

/**
 * EventBridge schedule (cron 0/5): refreshes the occupancy cache of every location. Failing locations
 * are logged and counted in the summary (the function's result); the run fails only if all did.
 */
export function createRefreshOccupancyHandler(deps: RefreshOccupancyDeps = { store: locationStore, engine: reportEngine }) {
  return middy<ScheduledEvent, RefreshSummary>()
    .use(observability())
    .handler(async () => {
      const [store, engine] = await Promise.all([deps.store(), deps.engine()]);
      const summary = await refreshOccupancy({ store, engine: measuredEngine(engine), logger }, (deps.now ?? Date.now)());
      const { failures, ...counts } = summary;
      logger.info('occupancy refreshed', counts);
      metrics.addMetric('OccupancyRefreshFailures', MetricUnit.Count, summary.failedLocations);
      metrics.addMetric('OccupancyRefreshedLocations', MetricUnit.Count, summary.refreshedLocations);
      if (summary.failedLocations > 0 && summary.refreshedLocations === 0) {
        throw new RefreshFailedError(`occupancy refresh failed for all ${summary.failedLocations} locations: ${failures[0]?.message}`);
      }
      return summary;
    });
}

export const handler = createRefreshOccupancyHandler();
