import type { ItemTable } from '../locations/item-table';
import {
  CLAIM_MS,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryRef,
  findDelivery,
  MAX_KEPT_ATTEMPTS,
  RETRY_GAPS_MS,
  saveDelivery,
} from './deliveries';
import { disableEndpoint, findEndpoint, putEndpointState } from './endpoints';
import type { EndpointState } from './model';
import { type SendOutcome, type SendPolicy, sendDelivery } from './send';
import { signDelivery, signingSecrets } from './signing';

/**
 * One attempt of a due delivery, the same code in AWS (the delivery function, from the queue) and
 * locally (the local server's timer):
 *
 * 1. The delivery is claimed (a conditional write moving its next attempt {@link CLAIM_MS} on), so a
 *    second worker with the same message sends nothing.
 * 2. It is signed with the endpoint's signing secrets at the attempt's time and POSTed under the
 *    address rules (./send.ts).
 * 3. The attempt is recorded. A 2xx delivers it. A 410 Gone fails it and disables the endpoint at
 *    once (Standard Webhooks: the receiver wants no more). Anything else (another status, a timeout,
 *    a refused address, a network error) schedules the next attempt after the round's next gap
 *    ({@link RETRY_GAPS_MS}); after the last the delivery has failed, and when no delivery to the
 *    endpoint succeeded since this one's round began (the endpoint failed for the whole schedule,
 *    about 47 hours), the service disables the endpoint.
 */

export interface AttemptDeps {
  readonly table: Pick<ItemTable, 'get' | 'put' | 'transact'>;
  readonly policy?: SendPolicy;
  /** @default RETRY_GAPS_MS */
  readonly gapsMs?: readonly number[];
  readonly now: () => Date;
}

/** What became of a delivery: `retryAt` when a later attempt is due (the queue's delay). */
export type AttemptResult =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'later'; readonly at: Date }
  | { readonly kind: 'attempted'; readonly delivery: Delivery; readonly retryAt: Date | null };

export async function attemptDelivery(deps: AttemptDeps, ref: DeliveryRef): Promise<AttemptResult> {
  const delivery = await findDelivery(deps.table, ref);
  if (delivery?.status !== 'pending' || delivery.nextAttemptAt === null) return { kind: 'skipped' };
  const now = deps.now();
  if (Date.parse(delivery.nextAttemptAt) > now.getTime())
    return { kind: 'later', at: new Date(delivery.nextAttemptAt) };
  const stored = await findEndpoint(deps.table, ref.organizationId, ref.endpointId);
  if (!stored?.endpoint.enabled) {
    const reason = !stored ? 'The endpoint was deleted.' : 'The endpoint is disabled.';
    const saved = await saveDelivery(deps.table, delivery, {
      ...delivery,
      status: 'abandoned',
      reason,
      nextAttemptAt: null,
    });
    return saved ? { kind: 'attempted', delivery: saved, retryAt: null } : { kind: 'skipped' };
  }
  const claimed = await saveDelivery(deps.table, delivery, {
    ...delivery,
    nextAttemptAt: new Date(now.getTime() + CLAIM_MS).toISOString(),
  });
  if (!claimed) return { kind: 'skipped' };

  const headers = signDelivery(signingSecrets(stored.endpoint.secrets, now), delivery.id, now, delivery.body);
  const outcome = await sendDelivery(stored.endpoint.url, headers, delivery.body, deps.policy);
  const attempt = attemptOf(now, outcome);
  const after = deps.now();
  const gaps = deps.gapsMs ?? RETRY_GAPS_MS;
  const attempts = [...claimed.attempts, attempt].slice(-MAX_KEPT_ATTEMPTS);
  const status = outcome.kind === 'answered' ? outcome.status : null;
  const ok = status !== null && status >= 200 && status < 300;
  const gap = gaps[claimed.roundAttempts];
  let next: Omit<Delivery, 'revision'>;
  if (ok) next = { ...claimed, attempts, status: 'delivered', reason: null, nextAttemptAt: null };
  else if (status === 410)
    next = {
      ...claimed,
      attempts,
      status: 'failed',
      reason: 'The endpoint answered 410 Gone: it was disabled.',
      nextAttemptAt: null,
    };
  else if (gap !== undefined)
    next = {
      ...claimed,
      attempts,
      roundAttempts: claimed.roundAttempts + 1,
      nextAttemptAt: new Date(after.getTime() + gap).toISOString(),
    };
  else
    next = {
      ...claimed,
      attempts,
      roundAttempts: claimed.roundAttempts + 1,
      status: 'failed',
      reason: `No attempt of ${claimed.roundAttempts + 1} succeeded.`,
      nextAttemptAt: null,
    };
  const saved = await saveDelivery(deps.table, claimed, next);
  await noteHealth(deps, ref, stored.state, claimed, next, after);
  return saved
    ? { kind: 'attempted', delivery: saved, retryAt: saved.nextAttemptAt ? new Date(saved.nextAttemptAt) : null }
    : { kind: 'skipped' };
}

function attemptOf(at: Date, outcome: SendOutcome): DeliveryAttempt {
  const seconds = new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
  return outcome.kind === 'answered'
    ? { at: seconds, status: outcome.status, latencyMs: outcome.latencyMs, error: null, response: outcome.body }
    : {
        at: seconds,
        status: null,
        latencyMs: outcome.latencyMs,
        error: `${outcome.reason}: ${outcome.message}`,
        response: '',
      };
}

/**
 * The endpoint's health after an attempt: not failing after a success, failing since the first failure, disabled by the
 * rules above.
 */
async function noteHealth(
  deps: AttemptDeps,
  ref: DeliveryRef,
  state: EndpointState,
  delivery: Delivery,
  next: Omit<Delivery, 'revision'>,
  now: Date,
): Promise<void> {
  const attemptedAt = next.attempts.at(-1)?.at ?? now.toISOString();
  const failingSince = next.status === 'delivered' ? null : (state.failingSince ?? attemptedAt);
  if (failingSince !== state.failingSince)
    await putEndpointState(deps.table, ref.organizationId, ref.endpointId, { failingSince });
  if (next.attempts.at(-1)?.status === 410)
    await disableEndpoint(deps.table, ref.organizationId, ref.endpointId, 'gone', now);
  else if (next.status === 'failed' && failingSince !== null) {
    // Failing since the round's first attempt at the latest: no delivery to the endpoint succeeded since.
    const roundBegan = next.attempts.at(-next.roundAttempts)?.at ?? delivery.roundStartedAt;
    if (failingSince <= roundBegan)
      await disableEndpoint(deps.table, ref.organizationId, ref.endpointId, 'failing', now);
  }
}
