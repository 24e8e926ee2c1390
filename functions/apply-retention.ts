import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { Client } from '@opensearch-project/opensearch';
import { ENV } from '#commons/env';
import { logger } from '#commons/powertools/logger';
import { metrics } from '#commons/powertools/metrics';
import { observability } from '#commons/powertools/observability';
import { formatMonth } from '#shared/documents/retention';

export interface ApplyRetentionDeps {
  readonly client: () => Promise<Client>;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

export interface RetentionSummary {
  readonly months: number;
  readonly deleted: readonly string[];
  readonly kept: number;
}

const defaultClient = async (): Promise<Client> => (await import('#commons/clients/opensearch-client')).createOpenSearchClient(process.env);

/**
 * EventBridge schedule (daily): deletes the monthly indices older than RETENTION_MONTHS, judged by
 * the month in their names (shared/stores/opensearch/retention.ts). A failure fails the run
 * (the function's error alarm sees it); the next day's run deletes what this one left.
 */
export function createApplyRetentionHandler(deps: ApplyRetentionDeps = { client: defaultClient }) {
  return middy<ScheduledEvent, RetentionSummary>()
    .use(observability())
    .handler(async () => {
      const env = deps.env ?? process.env;
      const months = Number(env[ENV.retentionMonths] ?? '0');
      const prefix = env[ENV.openSearchIndexPrefix] ?? '';
      const { deleteExpiredIndices } = await import('#shared/stores/opensearch/retention');
      const outcome = await deleteExpiredIndices(await deps.client(), prefix, { months, nowMs: (deps.now ?? Date.now)() });
      const deleted = outcome.expired.map((i) => i.index);
      logger.info('retention applied', { months, deleted, kept: outcome.kept.length, oldestKept: outcome.kept.map((i) => formatMonth(i.month)).sort()[0] });
      metrics.addMetric('RetentionDeletedIndices', MetricUnit.Count, deleted.length);
      return { months, deleted, kept: outcome.kept.length };
    });
}

export const handler = createApplyRetentionHandler();
