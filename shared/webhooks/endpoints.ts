import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../errors';
import type { ExpectedRevision } from '../locations/admin';
import { PreconditionFailedError } from '../locations/errors';
import { type ItemTable, type TransactAction, TransactionConflictError } from '../locations/item-table';
import type { Item } from '../locations/items';
import {
  type EndpointSecret,
  type EndpointState,
  HEALTHY,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  type WebhookEventType,
} from './model';
import { newSecret, ROTATION_OVERLAP_MS } from './signing';

/**
 * The endpoints of an organization in the service's table (DynamoDB in AWS, the local server's
 * embedded twin), one partition per organization, so that listing them and finding who gets an
 * event is one Query and no read can reach another organization's:
 *
 * | item                  | PK                      | SK                  |
 * |-----------------------|-------------------------|---------------------|
 * | endpoint              | `ORG#<org>#WEBHOOKS`    | `EP#<endpoint id>`  |
 * | its delivery state    | `ORG#<org>#WEBHOOKS`    | `STATE#<endpoint id>` |
 *
 * The endpoint's item is what its admins write, under its revision (the ETag, If-Match as for
 * locations: docs/admin-api.md); the service writes it too when it disables the endpoint (a change
 * of the resource: a new revision). Since when its deliveries fail is written blind by the delivery
 * worker in an item of its own, so that it never makes an admin's PUT a 412.
 * Secrets are kept in the endpoint's item: the table is encrypted at rest with KMS (docs/webhooks.md).
 */

const partition = (org: string): string => `ORG#${org}#WEBHOOKS`;
const endpointKey = (id: string): string => `EP#${id}`;
const stateKey = (id: string): string => `STATE#${id}`;

export interface WriteContext {
  readonly organizationId: string;
  readonly actor: string | null;
  readonly now: Date;
}

export interface StoredEndpoint {
  readonly endpoint: WebhookEndpoint;
  readonly state: EndpointState;
}

function endpointItem(e: WebhookEndpoint): Item {
  return { PK: partition(e.organizationId), SK: endpointKey(e.id), kind: 'webhookEndpoint', ...e };
}

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  return {
    id: String(item.id),
    organizationId: String(item.organizationId),
    url: String(item.url),
    events: (item.events as WebhookEventType[]) ?? [],
    description: String(item.description ?? ''),
    enabled: item.enabled !== false,
    disabledReason: item.disabledReason === 'gone' || item.disabledReason === 'failing' ? item.disabledReason : null,
    disabledAt: typeof item.disabledAt === 'string' ? item.disabledAt : null,
    revision: Number(item.revision),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    createdBy: typeof item.createdBy === 'string' ? item.createdBy : null,
    updatedBy: typeof item.updatedBy === 'string' ? item.updatedBy : null,
    secrets: (item.secrets as EndpointSecret[]) ?? [],
  };
}

function toState(item: Record<string, unknown> | undefined): EndpointState {
  if (!item) return HEALTHY;
  return { failingSince: typeof item.failingSince === 'string' ? item.failingSince : null };
}

const notFound = (id: string) => new NotFoundError(`There is no webhook endpoint '${id.slice(0, 128)}'.`);

/** Every endpoint of the organization with its state, oldest first. */
export async function listEndpoints(
  table: Pick<ItemTable, 'query'>,
  organizationId: string,
): Promise<StoredEndpoint[]> {
  const items = await table.query(partition(organizationId));
  const states = new Map(items.filter((i) => i.kind === 'webhookEndpointState').map((i) => [String(i.id), i]));
  return items
    .filter((i) => i.kind === 'webhookEndpoint')
    .map((i) => ({ endpoint: toEndpoint(i), state: toState(states.get(String(i.id))) }))
    .sort(
      (a, b) => a.endpoint.createdAt.localeCompare(b.endpoint.createdAt) || a.endpoint.id.localeCompare(b.endpoint.id),
    );
}

/** The endpoint of the organization with this id, or undefined (another organization's too). */
export async function findEndpoint(
  table: Pick<ItemTable, 'get'>,
  organizationId: string,
  id: string,
): Promise<StoredEndpoint | undefined> {
  const [item, state] = await Promise.all([
    table.get(partition(organizationId), endpointKey(id)),
    table.get(partition(organizationId), stateKey(id)),
  ]);
  return item ? { endpoint: toEndpoint(item), state: toState(state) } : undefined;
}

/** The endpoint, or a 404 (unknown, and another organization's alike). */
export async function readEndpoint(
  table: Pick<ItemTable, 'get'>,
  organizationId: string,
  id: string,
): Promise<StoredEndpoint> {
  const found = await findEndpoint(table, organizationId, id);
  if (!found) throw notFound(id);
  return found;
}

/** Creates an endpoint with a new secret; the secret is in the answer, once. */
export async function createEndpoint(
  table: Pick<ItemTable, 'transact'>,
  context: WriteContext,
  input: WebhookEndpointInput,
  id: string = randomUUID(),
): Promise<{ readonly endpoint: WebhookEndpoint; readonly secret: string }> {
  const at = context.now.toISOString();
  const secret = newSecret();
  const endpoint: WebhookEndpoint = {
    id,
    organizationId: context.organizationId,
    ...input,
    disabledReason: null,
    disabledAt: input.enabled ? null : at,
    revision: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: context.actor,
    updatedBy: context.actor,
    secrets: [{ secret, createdAt: at, expiresAt: null }],
  };
  await table.transact([{ put: endpointItem(endpoint), condition: { kind: 'absent' } }]);
  return { endpoint, secret };
}

/**
 * Replaces an endpoint's URL, events, description and `enabled` (If-Match: `expected`). `enabled:
 * true` on an endpoint the service disabled enables it again (its state is cleared in the same write).
 */
export async function replaceEndpoint(
  table: Pick<ItemTable, 'get' | 'transact'>,
  context: WriteContext,
  id: string,
  input: WebhookEndpointInput,
  expected: ExpectedRevision,
): Promise<StoredEndpoint> {
  const current = await readEndpoint(table, context.organizationId, id);
  checkExpected(current.endpoint, expected);
  const at = context.now.toISOString();
  const was = current.endpoint;
  const endpoint: WebhookEndpoint = {
    ...was,
    ...input,
    disabledReason: input.enabled || !was.enabled ? (input.enabled ? null : was.disabledReason) : null,
    disabledAt: input.enabled ? null : (was.disabledAt ?? at),
    revision: was.revision + 1,
    updatedAt: at,
    updatedBy: context.actor,
  };
  // Enabling a disabled endpoint starts it afresh: not failing (until its next failure).
  const reenabled = input.enabled && !was.enabled;
  await write(table, was, [
    { put: endpointItem(endpoint), condition: { kind: 'revision', revision: was.revision } },
    ...(reenabled ? [{ delete: { PK: partition(context.organizationId), SK: stateKey(id) } }] : []),
  ]);
  return { endpoint, state: reenabled ? HEALTHY : current.state };
}

/** Deletes an endpoint and its state (If-Match honoured when sent); its deliveries stay until they expire. */
export async function deleteEndpoint(
  table: Pick<ItemTable, 'get' | 'transact'>,
  organizationId: string,
  id: string,
  expected: ExpectedRevision | undefined,
): Promise<void> {
  const current = await readEndpoint(table, organizationId, id);
  if (expected !== undefined) checkExpected(current.endpoint, expected);
  await write(table, current.endpoint, [
    {
      delete: { PK: partition(organizationId), SK: endpointKey(id) },
      condition: { kind: 'revision', revision: current.endpoint.revision },
    },
    { delete: { PK: partition(organizationId), SK: stateKey(id) } },
  ]);
}

/**
 * A new current secret; the one it replaces keeps signing beside it for {@link ROTATION_OVERLAP_MS}
 * (both signatures in `webhook-signature`, as Standard Webhooks provides for rotation), and secrets
 * whose overlap is over are dropped. A second rotation within the overlap ends the first's at once.
 */
export async function rotateSecret(
  table: Pick<ItemTable, 'get' | 'transact'>,
  context: WriteContext,
  id: string,
  expected: ExpectedRevision | undefined,
): Promise<{ readonly endpoint: WebhookEndpoint; readonly secret: string; readonly previousSecretExpiresAt: string }> {
  const current = await readEndpoint(table, context.organizationId, id);
  if (expected !== undefined) checkExpected(current.endpoint, expected);
  const at = context.now.toISOString();
  const previousSecretExpiresAt = new Date(context.now.getTime() + ROTATION_OVERLAP_MS).toISOString();
  const previous = current.endpoint.secrets.find((s) => s.expiresAt === null);
  const secret = newSecret();
  const endpoint: WebhookEndpoint = {
    ...current.endpoint,
    revision: current.endpoint.revision + 1,
    updatedAt: at,
    updatedBy: context.actor,
    secrets: [
      { secret, createdAt: at, expiresAt: null },
      ...(previous ? [{ ...previous, expiresAt: previousSecretExpiresAt }] : []),
    ],
  };
  await write(table, current.endpoint, [
    { put: endpointItem(endpoint), condition: { kind: 'revision', revision: current.endpoint.revision } },
  ]);
  return { endpoint, secret, previousSecretExpiresAt };
}

/**
 * The service disables an endpoint (410 Gone, or failing throughout the schedule): a new revision,
 * written on the revision read (read again after a concurrent write, up to 3 times). Nothing when an
 * admin disabled or deleted it meanwhile.
 */
export async function disableEndpoint(
  table: Pick<ItemTable, 'get' | 'transact'>,
  organizationId: string,
  id: string,
  reason: 'gone' | 'failing',
  now: Date,
): Promise<void> {
  for (let tries = 0; tries < 3; tries++) {
    const current = await findEndpoint(table, organizationId, id);
    if (!current?.endpoint.enabled) return;
    const at = now.toISOString();
    const endpoint: WebhookEndpoint = {
      ...current.endpoint,
      enabled: false,
      disabledReason: reason,
      disabledAt: at,
      revision: current.endpoint.revision + 1,
      updatedAt: at,
      updatedBy: null,
    };
    try {
      await table.transact([
        { put: endpointItem(endpoint), condition: { kind: 'revision', revision: current.endpoint.revision } },
      ]);
      return;
    } catch (e) {
      if (!(e instanceof TransactionConflictError)) throw e;
    }
  }
}

/** The delivery worker's record of an endpoint's health (a blind write). */
export async function putEndpointState(
  table: Pick<ItemTable, 'put'>,
  organizationId: string,
  id: string,
  state: EndpointState,
): Promise<void> {
  await table.put({
    PK: partition(organizationId),
    SK: stateKey(id),
    kind: 'webhookEndpointState',
    id,
    organizationId,
    ...state,
  });
}

function checkExpected(current: WebhookEndpoint, expected: ExpectedRevision): void {
  if (expected === '*') return;
  const revisions = typeof expected === 'number' ? [expected] : expected;
  if (!revisions.includes(current.revision)) throw stale(current);
}

const stale = (current: WebhookEndpoint) =>
  new PreconditionFailedError(
    `The webhook endpoint ${current.id} is at revision ${current.revision} (ETag "${current.revision}"); read it again and apply your change to that.`,
  );

async function write(table: Pick<ItemTable, 'transact'>, current: WebhookEndpoint, actions: TransactAction[]) {
  try {
    await table.transact(actions);
  } catch (e) {
    if (e instanceof TransactionConflictError) throw stale(current);
    throw e;
  }
}
