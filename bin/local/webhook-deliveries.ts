import type { ItemTable } from '#shared/locations/item-table';
import { attemptDelivery } from '#shared/webhooks/attempt';
import { dueDeliveries } from '#shared/webhooks/deliveries';
import type { SendPolicy } from '#shared/webhooks/send';

/** How often the local server looks for due deliveries. */
export const DELIVERY_TICK_MS = 1000;

/** Attempts made at once: a slow receiver delays the others at most this much. */
const CONCURRENT_ATTEMPTS = 4;

export interface LocalDeliveries {
  stop(): Promise<void>;
}

/**
 * The local server's delivery worker: every second, every due delivery of the table is attempted
 * (shared/webhooks/attempt.ts, the code the delivery function runs in AWS from its queue), at most
 * four at once; a tick still running when the next is due lets it pass.
 */
export function startWebhookDeliveries(
  table: () => Promise<ItemTable>,
  policy: SendPolicy,
  options: { readonly everyMs?: number; readonly gapsMs?: readonly number[] } = {},
): LocalDeliveries {
  let running: Promise<void> | undefined;
  const tick = async () => {
    const t = await table();
    const due = await dueDeliveries(t, new Date());
    for (let i = 0; i < due.length; i += CONCURRENT_ATTEMPTS)
      await Promise.all(
        due
          .slice(i, i + CONCURRENT_ATTEMPTS)
          .map((ref) =>
            attemptDelivery(
              { table: t, policy, now: () => new Date(), ...(options.gapsMs ? { gapsMs: options.gapsMs } : {}) },
              ref,
            ),
          ),
      );
  };
  const timer = setInterval(() => {
    running ??= tick()
      .catch((e: unknown) => console.error('webhook deliveries failed:', e instanceof Error ? e.message : e))
      .finally(() => {
        running = undefined;
      });
  }, options.everyMs ?? DELIVERY_TICK_MS);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
