import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { ReportEngine } from '#shared/report/engines/engine';
import type { LocationStore } from '#shared/locations/store';
import { refreshOccupancy, type RefreshSummary } from '#shared/occupancy/refresh';
import { locationStore } from '#commons/dynamo';
import { reportEngine } from '#commons/engine';
import { logger } from '#commons/logger';

export interface RefreshOccupancyDeps {
  readonly store: () => Pick<LocationStore, 'listForRefresh' | 'putOccupancy' | 'deleteOccupancy'>;
  readonly engine: () => ReportEngine;
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
  return middy<ScheduledEvent, RefreshSummary>().handler(async () => {
    const summary = await refreshOccupancy({ store: deps.store(), engine: deps.engine(), logger }, (deps.now ?? Date.now)());
    const { failures, ...counts } = summary;
    logger.info('occupancy refreshed', counts);
    if (summary.failedLocations > 0 && summary.refreshedLocations === 0) {
      throw new RefreshFailedError(`occupancy refresh failed for all ${summary.failedLocations} locations: ${failures[0]?.message}`);
    }
    return summary;
  });
}

export const handler = createRefreshOccupancyHandler();
