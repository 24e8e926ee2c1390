import type { AlertEvent, AlertSink } from '../alerts/events';
import type { ItemTable } from '../locations/item-table';
import { addDelivery, type DeliveryRef, newDelivery, refOf } from './deliveries';
import { listEndpoints } from './endpoints';
import { deliveryIdOf } from './signing';

/**
 * Where made deliveries go to be attempted: in AWS an SQS queue read by the delivery function
 * (functions/commons/clients/delivery-queue.ts); locally nowhere, because the local server's timer
 * finds due deliveries in its table. `delaySeconds`: not before then (SQS takes at most 900).
 */
export interface DeliveryQueue {
  enqueue(refs: readonly DeliveryRef[], delaySeconds?: number): Promise<void>;
}

/** The local server's queue: the timer finds due deliveries itself. */
export const NO_QUEUE: DeliveryQueue = { enqueue: async () => undefined };

/**
 * The payload of an alert event, as Standard Webhooks recommends: `{type, timestamp, data}`, the
 * timestamp when the condition started or ended (not when it was delivered), `data` the event's data
 * as the alerts define it (state, rule, location, group or lot or camera, values). The organization
 * is not in it: an endpoint belongs to one organization, so its receiver knows which.
 */
export const alertPayload = (event: AlertEvent): string =>
  JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: event.data });

export interface WebhookSinkDeps {
  readonly table: Pick<ItemTable, 'query' | 'transact'>;
  readonly queue: DeliveryQueue;
  readonly now: () => Date;
}

/**
 * The alert evaluator's sink for webhooks: each event becomes one delivery per endpoint of its
 * organization that takes deliveries and subscribes to its type, with a webhook-id derived from the
 * event's id and the endpoint's, written only if absent, so that an evaluator that publishes an event
 * again (a retried refresh) makes no second delivery. New deliveries are queued for their first
 * attempt; the organization's endpoints are read once per publish.
 */
export function createWebhookSink(deps: WebhookSinkDeps): AlertSink {
  return {
    async publish(events) {
      const byOrganization = new Map<string, AlertEvent[]>();
      for (const e of events)
        byOrganization.set(e.organizationId, [...(byOrganization.get(e.organizationId) ?? []), e]);
      const made: DeliveryRef[] = [];
      for (const [organizationId, ofOrganization] of byOrganization) {
        const endpoints = (await listEndpoints(deps.table, organizationId)).filter((e) => e.endpoint.enabled);
        for (const event of ofOrganization)
          for (const { endpoint } of endpoints.filter((e) => e.endpoint.events.includes(event.type))) {
            const delivery = newDelivery({
              id: deliveryIdOf(event.id, endpoint.id),
              organizationId,
              endpointId: endpoint.id,
              type: event.type,
              eventId: event.id,
              locationId: event.data.locationId,
              body: alertPayload(event),
              now: deps.now(),
            });
            if (await addDelivery(deps.table, delivery)) made.push(refOf(delivery));
          }
      }
      if (made.length > 0) await deps.queue.enqueue(made);
    },
  };
}
