import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { Client } from '@opensearch-project/opensearch';
import { z } from 'zod';
import { type DailySnapshotResult, runDailySnapshot, serviceIndexPatterns } from '#shared/backups/snapshots';
import { ENV } from '#commons/env';
import { logger } from '#commons/powertools/logger';
import { metrics } from '#commons/powertools/metrics';
import { observability } from '#commons/powertools/observability';

const settings = z.object({
  [ENV.snapshotRepository]: z.string().min(1),
  [ENV.snapshotBucket]: z.string().min(1),
  [ENV.snapshotRoleArn]: z.string().startsWith('arn:'),
  [ENV.snapshotKeepDays]: z.coerce.number().int().min(1),
  [ENV.openSearchIndexPrefix]: z.string().default(''),
  AWS_REGION: z.string().min(1),
});

/** Thrown when yesterday's snapshot did not succeed, so the run counts as an error and its alarm fires. */
export class SnapshotFailedError extends Error {}

export interface TakeSnapshotDeps {
  readonly client: () => Promise<Client>;
  readonly env?: NodeJS.ProcessEnv;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

const signedClient = async (): Promise<Client> =>
  (await import('#commons/clients/opensearch-client')).createOpenSearchClient(process.env);

/**
 * EventBridge schedule (daily): registers the S3 snapshot repository if it is not (idempotent),
 * deletes the daily snapshots past the kept days, and starts today's (it does not wait: the next run
 * sees its state). The restore runbook is docs/runbooks.md#restore-opensearch.
 */
export function createTakeSnapshotHandler(deps: TakeSnapshotDeps = { client: signedClient }) {
  return middy<ScheduledEvent, DailySnapshotResult>()
    .use(observability())
    .handler(async () => {
      const env = settings.parse(deps.env ?? process.env);
      const result = await runDailySnapshot(await deps.client(), {
        repository: {
          name: env[ENV.snapshotRepository],
          type: 's3',
          settings: { bucket: env[ENV.snapshotBucket], region: env.AWS_REGION, role_arn: env[ENV.snapshotRoleArn] },
        },
        indices: serviceIndexPatterns(env[ENV.openSearchIndexPrefix]),
        keepDays: env[ENV.snapshotKeepDays],
        now: (deps.now ?? (() => new Date()))(),
      });
      logger.info('daily snapshot', { ...result });
      metrics.addMetric('SnapshotsPruned', MetricUnit.Count, result.pruned.length);
      if (result.previous)
        throw new SnapshotFailedError(
          `the previous daily snapshot ${result.previous.name} is ${result.previous.state}`,
        );
      return result;
    });
}

export const handler = createTakeSnapshotHandler();
