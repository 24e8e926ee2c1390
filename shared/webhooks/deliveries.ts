import { ConflictError } from '../locations/errors';
import { NotFoundError } from '../errors';
import { type ItemTable, TransactionConflictError } from '../locations/item-table';
import type { Item } from '../locations/items';

/**
 * Deliveries: one per (event, endpoint), with every attempt, in the endpoint's partition of the
 * service's table:
 *
 * | item     | PK                                  | SK                  |
 * |----------|-------------------------------------|---------------------|
 * | delivery | `ORG#<org>#WHD#<endpoint id>`       | `DLV#<webhook-id>`  |
 *
 * The key is the webhook-id, derived from the event and the endpoint (./signing.ts), and a delivery is
 * written only if absent: publishing an event twice makes one delivery. A delivery keeps a revision;
 * the worker claims one (a conditional write) before it sends, so that two workers (SQS delivers at
 * least once; the local timer) never send the same attempt twice. Deliveries expire (TTL) 30 days
 * after they were made.
 */

/**
 * The gaps between automatic attempts: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h (11 attempts over
 * about 47 h).
 */
export const RETRY_GAPS_MS: readonly number[] = [
  5,
  30,
  120,
  600,
  1800,
  3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  24 * 3600,
].map((s) => s * 1000);

/** Deliveries are kept 30 days (DynamoDB TTL). */
export const DELIVERY_TTL_SECONDS = 30 * 24 * 3600;

/** How long a worker holds a claimed delivery before another may take it: the attempt's 5 s and room. */
export const CLAIM_MS = 60_000;

/** The most attempts a delivery keeps (manual retries add to the automatic ones); the oldest go first. */
export const MAX_KEPT_ATTEMPTS = 50;

export interface DeliveryAttempt {
  /** ISO 8601 when it was sent (its `webhook-timestamp`, to the second). */
  readonly at: string;
  /** The HTTP status answered, or null when none came (timeout, refused address, network). */
  readonly status: number | null;
  readonly latencyMs: number;
  /** Why it failed without an answer, or null. */
  readonly error: string | null;
  /** The start of the answer's body (at most 256 characters). */
  readonly response: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'abandoned';

export interface Delivery {
  /** The webhook-id, the same on every attempt. */
  readonly id: string;
  readonly organizationId: string;
  readonly endpointId: string;
  readonly type: string;
  /** The id of the event it delivers (an alert event's id; the test delivery's own). */
  readonly eventId: string;
  /** The location the event concerns (a token limited to some locations sees only theirs), or null. */
  readonly locationId: string | null;
  /** The exact body sent (the JSON payload `{type, timestamp, data}`). */
  readonly body: string;
  readonly createdAt: string;
  readonly status: DeliveryStatus;
  /** Why it was abandoned or failed for good, or null. */
  readonly reason: string | null;
  readonly attempts: readonly DeliveryAttempt[];
  /** When the next attempt is due (ISO 8601), or null when none will be made. */
  readonly nextAttemptAt: string | null;
  /** When the current round of attempts began (creation, or a manual retry). */
  readonly roundStartedAt: string;
  /** Automatic attempts made in the current round: the index into {@link RETRY_GAPS_MS}. */
  readonly roundAttempts: number;
  readonly revision: number;
}

/** What the queue carries (and the local timer finds): which delivery to attempt. */
export interface DeliveryRef {
  readonly organizationId: string;
  readonly endpointId: string;
  readonly deliveryId: string;
}

export const refOf = (d: Pick<Delivery, 'organizationId' | 'endpointId' | 'id'>): DeliveryRef => ({
  organizationId: d.organizationId,
  endpointId: d.endpointId,
  deliveryId: d.id,
});

const partition = (org: string, endpointId: string): string => `ORG#${org}#WHD#${endpointId}`;
const deliveryKey = (id: string): string => `DLV#${id}`;

function deliveryItem(d: Delivery): Item {
  return {
    PK: partition(d.organizationId, d.endpointId),
    SK: deliveryKey(d.id),
    kind: 'webhookDelivery',
    ...d,
    expiresAt: Math.floor(Date.parse(d.createdAt) / 1000) + DELIVERY_TTL_SECONDS,
  };
}

function toDelivery(item: Record<string, unknown>): Delivery {
  const { PK: _pk, SK: _sk, kind: _kind, expiresAt: _expires, ...rest } = item;
  return rest as unknown as Delivery;
}

/** A new delivery, due at once. */
export function newDelivery(fields: {
  readonly id: string;
  readonly organizationId: string;
  readonly endpointId: string;
  readonly type: string;
  readonly eventId: string;
  readonly locationId: string | null;
  readonly body: string;
  readonly now: Date;
}): Delivery {
  const at = fields.now.toISOString();
  const { now: _now, ...rest } = fields;
  return {
    ...rest,
    createdAt: at,
    status: 'pending',
    reason: null,
    attempts: [],
    nextAttemptAt: at,
    roundStartedAt: at,
    roundAttempts: 0,
    revision: 1,
  };
}

/** Writes a new delivery unless one with its id exists: true when written. */
export async function addDelivery(table: Pick<ItemTable, 'transact'>, delivery: Delivery): Promise<boolean> {
  try {
    await table.transact([{ put: deliveryItem(delivery), condition: { kind: 'absent' } }]);
    return true;
  } catch (e) {
    if (e instanceof TransactionConflictError) return false;
    throw e;
  }
}

export async function findDelivery(table: Pick<ItemTable, 'get'>, ref: DeliveryRef): Promise<Delivery | undefined> {
  const item = await table.get(partition(ref.organizationId, ref.endpointId), deliveryKey(ref.deliveryId));
  return item ? toDelivery(item) : undefined;
}

/** Writes the next revision of a delivery if no one else did since `from`: false when someone did. */
export async function saveDelivery(
  table: Pick<ItemTable, 'transact'>,
  from: Delivery,
  next: Omit<Delivery, 'revision'>,
): Promise<Delivery | undefined> {
  const saved: Delivery = { ...next, revision: from.revision + 1 };
  try {
    await table.transact([{ put: deliveryItem(saved), condition: { kind: 'revision', revision: from.revision } }]);
    return saved;
  } catch (e) {
    if (e instanceof TransactionConflictError) return undefined;
    throw e;
  }
}

/** The endpoint's deliveries, newest first, at most `limit`. */
export async function listDeliveries(
  table: Pick<ItemTable, 'query'>,
  organizationId: string,
  endpointId: string,
  limit: number,
): Promise<Delivery[]> {
  const items = await table.query(partition(organizationId, endpointId), 'DLV#');
  return items
    .map(toDelivery)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
    .slice(0, limit);
}

/** Every delivery due at `now` (the local server's timer; in AWS the queue carries them instead). */
export async function dueDeliveries(table: Pick<ItemTable, 'scan'>, now: Date): Promise<DeliveryRef[]> {
  const at = now.toISOString();
  return (await table.scan())
    .filter((i) => i.kind === 'webhookDelivery' && i.status === 'pending' && String(i.nextAttemptAt) <= at)
    .sort((a, b) => String(a.nextAttemptAt).localeCompare(String(b.nextAttemptAt)))
    .map((i) => refOf(toDelivery(i)));
}

/**
 * A manual retry (`POST …/deliveries/{deliveryId}/retry`): a new round of attempts, due at once, for a
 * delivery in any state (a delivered one is sent again: a replay, with the same webhook-id). 404 for
 * an unknown one; 409 while the endpoint does not take deliveries.
 */
export async function retryDelivery(
  table: Pick<ItemTable, 'get' | 'transact'>,
  ref: DeliveryRef,
  now: Date,
  endpointTakesDeliveries: boolean,
): Promise<Delivery> {
  const current = await findDelivery(table, ref);
  if (!current) throw new NotFoundError(`There is no delivery '${ref.deliveryId.slice(0, 64)}' of this endpoint.`);
  if (!endpointTakesDeliveries)
    throw new ConflictError(
      'The endpoint is disabled: enable it (PUT with "enabled": true) before retrying its deliveries.',
      { reason: 'endpoint-disabled' },
    );
  const at = now.toISOString();
  const saved = await saveDelivery(table, current, {
    ...current,
    status: 'pending',
    reason: null,
    nextAttemptAt: at,
    roundStartedAt: at,
    roundAttempts: 0,
  });
  if (!saved)
    throw new ConflictError('The delivery is being attempted right now; try again in a moment.', {
      reason: 'in-flight',
    });
  return saved;
}
