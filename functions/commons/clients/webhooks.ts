import type { DeliveryRef } from '#shared/webhooks/deliveries';
import type { SendPolicy } from '#shared/webhooks/send';
import { type DeliveryQueue, NO_QUEUE } from '#shared/webhooks/sink';
import { ENV } from '../env';
import { lazy } from './lazy';

const sqsClient = lazy(async () => {
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  return new SQSClient({});
});

/** SQS's largest message delay. */
export const MAX_DELAY_SECONDS = 900;

/**
 * In AWS: the delivery queue (WEBHOOK_QUEUE_URL), one message per delivery in batches of 10 (SQS's
 * SendMessageBatch limit), each delayed by `delaySeconds` (at most 15 minutes: a later attempt is
 * re-queued by the delivery function until it is due). Unset: nothing to send to.
 */
const sqsQueue: DeliveryQueue = {
  async enqueue(refs: readonly DeliveryRef[], delaySeconds = 0) {
    const url = process.env[ENV.webhookQueueUrl];
    if (!url || refs.length === 0) return;
    const [{ SendMessageBatchCommand }, client] = await Promise.all([import('@aws-sdk/client-sqs'), sqsClient()]);
    for (let i = 0; i < refs.length; i += 10) {
      const batch = refs.slice(i, i + 10);
      const { Failed } = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: batch.map((ref, n) => ({
            Id: String(n),
            MessageBody: JSON.stringify(ref),
            DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(delaySeconds))),
          })),
        }),
      );
      if (Failed && Failed.length > 0)
        throw new Error(`SQS refused ${Failed.length} delivery messages: ${Failed[0]?.Message ?? Failed[0]?.Code}`);
    }
  },
};

let providedQueue: DeliveryQueue | undefined;
let providedPolicy: SendPolicy | undefined;

/** The local server puts its own in place: no queue (its timer finds due deliveries) and http to loopback allowed. */
export function provideWebhookDelivery(queue: DeliveryQueue, policy: SendPolicy): void {
  providedQueue = queue;
  providedPolicy = policy;
}

/** The process's delivery queue: the provided one, else SQS when WEBHOOK_QUEUE_URL is set, else none. */
export const deliveryQueue = (): DeliveryQueue =>
  providedQueue ?? (process.env[ENV.webhookQueueUrl] ? sqsQueue : NO_QUEUE);

/**
 * The process's rules for sending: the provided ones, else AWS's (https only, no special-purpose
 * address), unless WEBHOOK_ALLOW_LOOPBACK is `true` (only the stack test sets it, for its receiver).
 */
export const sendPolicy = (): SendPolicy =>
  providedPolicy ?? (process.env[ENV.webhookAllowLoopback] === 'true' ? { allowHttpLoopback: true } : {});
