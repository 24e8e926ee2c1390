import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Client } from '@opensearch-project/opensearch';
import { ENV } from '#commons/env';
import { logger } from '#commons/powertools/logger';
import { metrics } from '#commons/powertools/metrics';
import { observability } from '#commons/powertools/observability';
import type { RebuildOutcome } from '#shared/stores/opensearch/rollups/rebuild';

export interface RebuildRollupsDeps {
  readonly client: () => Promise<Client>;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** Time kept back at the end of a run: another pass is not started with less left. */
const RESERVE_MS = 60_000;

const defaultClient = async (): Promise<Client> => (await import('#commons/clients/opensearch-client')).createOpenSearchClient(process.env);

/**
 * EventBridge schedule (every minute): brings the rollups up to date (docs/rollups.md, "On
 * OpenSearch"), pass after pass while dirty grains remain and time is left. A failure fails the run
 * (the function's errors alarm sees it); the grains stay marked, reports read them raw, and the next
 * run takes them again.
 */
export function createRebuildRollupsHandler(deps: RebuildRollupsDeps = { client: defaultClient }) {
  return middy<ScheduledEvent, RebuildOutcome[]>()
    .use(observability())
    .handler(async (_event, context: Context) => {
      const prefix = (deps.env ?? process.env)[ENV.openSearchIndexPrefix] ?? '';
      const { rebuildRollups } = await import('#shared/stores/opensearch/rollups/rebuild');
      const client = await deps.client();
      const passes: RebuildOutcome[] = [];
      do {
        passes.push(await rebuildRollups(client, prefix));
      } while (passes.at(-1)?.more && !passes.at(-1)?.busy && context.getRemainingTimeInMillis() > RESERVE_MS);
      const grains = passes.reduce((n, p) => n + Object.values(p.rebuilt).reduce((a, b) => a + b, 0), 0);
      logger.info('rollups rebuilt', { passes: passes.length, grains, last: passes.at(-1) });
      metrics.addMetric('RollupGrainsRebuilt', MetricUnit.Count, grains);
      // Dirty grains left for the next run: a backlog that grows means the rollups fall behind (docs/runbooks.md#rollups-behind).
      metrics.addMetric('RollupBacklog', MetricUnit.Count, passes.at(-1)?.more ? 1 : 0);
      return passes;
    });
}

export const handler = createRebuildRollupsHandler();
