import type { AlertSink } from '#shared/alerts/events';
import type { AlertStore } from '#shared/alerts/store';
import { itemTable } from './dynamo';
import { deliveryQueue } from './webhooks';

/**
 * The alert rules' store, over the service's one table, and the sink of their events: each event
 * logged, then made into webhook deliveries (shared/webhooks/sink.ts) in the same table, queued on the
 * process's delivery queue (functions/commons/clients/webhooks.ts: SQS in AWS when set, the local
 * server's timer otherwise).
 */
export async function alertDeps(): Promise<{ readonly store: AlertStore; readonly sink: AlertSink }> {
  const [table, { AlertStore }] = await Promise.all([itemTable(), import('#shared/alerts/store')]);
  return { store: new AlertStore(table), sink: await defaultSink() };
}

async function defaultSink(): Promise<AlertSink> {
  const [{ loggingSink }, { createWebhookSink }, { logger }, table] = await Promise.all([
    import('#shared/alerts/events'),
    import('#shared/webhooks/sink'),
    import('#commons/powertools/logger'),
    itemTable(),
  ]);
  const webhooks = createWebhookSink({ table, queue: deliveryQueue(), now: () => new Date() });
  return loggingSink((message, extra) => logger.info(message, extra), webhooks);
}
