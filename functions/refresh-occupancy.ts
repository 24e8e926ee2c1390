import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { ReportEngine } from '#shared/stores/store';
import type { LocationStore } from '#shared/locations/store';
import { type LocationKey, refreshOccupancy, type RefreshSummary } from '#shared/occupancy/refresh';
import type { LocationRefreshEvent } from '#commons/clients/refresh-trigger';
import { locationStore } from '#commons/clients/dynamo';
import { observability } from '#commons/powertools/observability';
import { reportEngine } from '#commons/clients/store';
import { alertDeps } from '#commons/clients/alerts';
import type { RefreshDeps } from '#shared/occupancy/refresh';
import type { Provider } from '#commons/clients/lazy';
import { logger } from '#commons/powertools/logger';
import { measuredEngine, metrics } from '#commons/powertools/metrics';

export interface RefreshOccupancyDeps {
  readonly store: Provider<Pick<LocationStore, 'listForRefresh' | 'putOccupancy' | 'deleteOccupancy' | 'getLiveView'>>;
  readonly engine: Provider<ReportEngine>;
  /** The alert rules' store and the sink of their events (docs/alerts.md). @default the table's, each event logged */
  readonly alerts?: Provider<NonNullable<RefreshDeps['alerts']>>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** Thrown only when every location failed (e.g. the engine is down), so that the run counts as an error. */
export class RefreshFailedError extends Error {}

/**
 * EventBridge schedule (cron 0/5): refreshes the occupancy cache of every location. Also invoked
 * asynchronously by the administration API with the locations it just changed
 * ({@link LocationRefreshEvent}: those only, so a new site shows live occupancy at once). Failing
 * locations are logged and counted in the summary (the function's result); the run fails only if all did.
 */
export function createRefreshOccupancyHandler(
  deps: RefreshOccupancyDeps = { store: locationStore, engine: reportEngine, alerts: alertDeps },
) {
  return middy<ScheduledEvent | LocationRefreshEvent, RefreshSummary>()
    .use(observability())
    .handler(async (event) => {
      const [store, engine, alerts] = await Promise.all([deps.store(), deps.engine(), deps.alerts?.()]);
      const summary = await refreshOccupancy(
        { store, engine: measuredEngine(engine), logger, ...(alerts ? { alerts } : {}) },
        (deps.now ?? Date.now)(),
        locationsOf(event),
      );
      const { failures, ...counts } = summary;
      logger.info('occupancy refreshed', counts);
      metrics.addMetric('OccupancyRefreshFailures', MetricUnit.Count, summary.failedLocations);
      metrics.addMetric('OccupancyRefreshedLocations', MetricUnit.Count, summary.refreshedLocations);
      if (summary.failedLocations > 0 && summary.refreshedLocations === 0) {
        throw new RefreshFailedError(
          `occupancy refresh failed for all ${summary.failedLocations} locations: ${failures[0]?.message}`,
        );
      }
      return summary;
    });
}

/** The locations an event names (only well-formed ones), or undefined for the schedule's event: every location. */
function locationsOf(event: ScheduledEvent | LocationRefreshEvent | undefined): LocationKey[] | undefined {
  if (event?.source !== 'lrs.locations') return undefined;
  const listed = (event as LocationRefreshEvent).locations;
  return (Array.isArray(listed) ? listed : [])
    .filter((l) => typeof l?.organizationId === 'string' && typeof l.locationId === 'string')
    .map(({ organizationId, locationId }) => ({ organizationId, locationId }));
}

export const handler = createRefreshOccupancyHandler();
