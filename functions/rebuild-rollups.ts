import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { RebuildOutcome, Store } from '#shared/stores/store';
import type { Provider } from '#commons/clients/lazy';
import { store } from '#commons/clients/store';
import { logger } from '#commons/powertools/logger';
import { metrics } from '#commons/powertools/metrics';
import { observability } from '#commons/powertools/observability';

export interface RebuildRollupsDeps {
  /** @default the process's store (OpenSearch from the environment) */
  readonly store: Provider<Store>;
}

/** Time kept back at the end of a run: another pass is not started with less left. */
const RESERVE_MS = 60_000;

/**
 * EventBridge schedule (every minute): brings the rollups up to date (docs/rollups.md, "On
 * OpenSearch"), pass after pass while dirty grains remain and time is left. A failure fails the run
 * (the function's errors alarm sees it); the grains stay marked, reports read them raw, and the next
 * run takes them again.
 */
export function createRebuildRollupsHandler(deps: RebuildRollupsDeps = { store }) {
  return middy<ScheduledEvent, RebuildOutcome[]>()
    .use(observability())
    .handler(async (_event, context: Context) => {
      const documents = await deps.store();
      const passes: RebuildOutcome[] = [];
      do {
        passes.push(await documents.rebuildRollups());
      } while (passes.at(-1)?.more && !passes.at(-1)?.busy && context.getRemainingTimeInMillis() > RESERVE_MS);
      const grains = passes.reduce((n, p) => n + Object.values(p.rebuilt).reduce((a, b) => a + b, 0), 0);
      logger.info('rollups rebuilt', { passes: passes.length, grains, last: passes.at(-1) });
      metrics.addMetric('RollupGrainsRebuilt', MetricUnit.Count, grains);
      // Dirty grains left for the next run: a backlog that grows means the rollups fall behind
      // (docs/runbooks.md#rollups-behind).
      metrics.addMetric('RollupBacklog', MetricUnit.Count, passes.at(-1)?.more ? 1 : 0);
      return passes;
    });
}

export const handler = createRebuildRollupsHandler();
