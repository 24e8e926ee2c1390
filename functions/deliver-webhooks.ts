import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { ItemTable } from '#shared/locations/item-table';
import { type AttemptResult, attemptDelivery } from '#shared/webhooks/attempt';
import type { DeliveryRef } from '#shared/webhooks/deliveries';
import type { SendPolicy } from '#shared/webhooks/send';
import type { DeliveryQueue } from '#shared/webhooks/sink';
import { itemTable } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { deliveryQueue, sendPolicy } from '#commons/clients/webhooks';
import { logger } from '#commons/powertools/logger';
import { metrics } from '#commons/powertools/metrics';
import { observability } from '#commons/powertools/observability';

export interface DeliverWebhooksDeps {
  readonly table: Provider<ItemTable>;
  readonly queue: () => DeliveryQueue;
  readonly policy: () => SendPolicy;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * The delivery queue's consumer (SQS, batches of up to 10): one attempt of each due delivery
 * (shared/webhooks/attempt.ts, the local server's timer runs the same). A delivery with a later
 * attempt goes back on the queue delayed until then (at most SQS's 15 minutes; a longer gap comes
 * back early, finds itself not due, and is queued again): the retry schedule is the delivery's own,
 * kept in the table, and a failed attempt is not a failed message. A message fails (and after the
 * queue's receives, lands in its dead-letter queue, which raises an alarm) only when the function
 * itself failed, e.g. the table was unreachable.
 */
export function createDeliverWebhooksHandler(
  deps: DeliverWebhooksDeps = { table: itemTable, queue: deliveryQueue, policy: sendPolicy },
) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(observability())
    .handler(async (event) => {
      const table = await deps.table();
      const now = () => new Date((deps.now ?? Date.now)());
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        const ref = refOf(record.body);
        if (!ref) {
          logger.warn('a delivery message that names no delivery was dropped', { messageId: record.messageId });
          continue;
        }
        try {
          const result = await attemptDelivery({ table, policy: deps.policy(), now }, ref);
          count(result);
          const next = nextOf(result);
          if (next) await deps.queue().enqueue([ref], (next.getTime() - now().getTime()) / 1000);
        } catch (error) {
          logger.error('a delivery attempt failed', { ...ref, error: error as Error });
          failures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures: failures };
    });
}

const nextOf = (result: AttemptResult): Date | null =>
  result.kind === 'later' ? result.at : result.kind === 'attempted' ? result.retryAt : null;

function count(result: AttemptResult): void {
  if (result.kind !== 'attempted') return;
  const status = result.delivery.status;
  metrics.addMetric(
    status === 'delivered' ? 'WebhookDelivered' : status === 'pending' ? 'WebhookRetried' : 'WebhookFailed',
    MetricUnit.Count,
    1,
  );
}

function refOf(body: string): DeliveryRef | undefined {
  try {
    const { organizationId, endpointId, deliveryId } = JSON.parse(body) as Record<string, unknown>;
    return typeof organizationId === 'string' && typeof endpointId === 'string' && typeof deliveryId === 'string'
      ? { organizationId, endpointId, deliveryId }
      : undefined;
  } catch {
    return undefined;
  }
}

export const handler = createDeliverWebhooksHandler();
