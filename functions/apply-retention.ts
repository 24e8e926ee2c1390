import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import type { Store } from '#shared/stores/store';
import { formatMonth } from '#shared/documents/retention';
import type { Provider } from '#commons/clients/lazy';
import { store } from '#commons/clients/store';
import { ENV } from '#commons/env';
import { logger } from '#commons/powertools/logger';
import { metrics } from '#commons/powertools/metrics';
import { observability } from '#commons/powertools/observability';

export interface ApplyRetentionDeps {
  /** @default the process's store (OpenSearch from the environment) */
  readonly store: Provider<Store>;
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

/**
 * EventBridge schedule (daily): deletes the monthly indices older than RETENTION_MONTHS, judged by
 * the month in their names (Store.applyRetention; shared/stores/opensearch/retention.ts). A failure fails the run
 * (the function's error alarm sees it); the next day's run deletes what this one left.
 */
export function createApplyRetentionHandler(deps: ApplyRetentionDeps = { store }) {
  return middy<ScheduledEvent, RetentionSummary>()
    .use(observability())
    .handler(async () => {
      const env = deps.env ?? process.env;
      const months = Number(env[ENV.retentionMonths] ?? '0');
      const outcome = await (await deps.store()).applyRetention({ months, nowMs: (deps.now ?? Date.now)() });
      // In AWS the store is OpenSearch, whose retention deletes whole monthly indices.
      const [expired, kept] = outcome.kind === 'indices' ? [outcome.expired, outcome.kept] : [[], []];
      const deleted = expired.map((i) => i.index);
      logger.info('retention applied', {
        months,
        deleted,
        kept: kept.length,
        oldestKept: kept.map((i) => formatMonth(i.month)).sort()[0],
      });
      metrics.addMetric('RetentionDeletedIndices', MetricUnit.Count, deleted.length);
      return { months, deleted, kept: kept.length };
    });
}

export const handler = createApplyRetentionHandler();
