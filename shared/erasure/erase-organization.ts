import { toMachineClient, type MachineClient } from '../ingest/machine-clients';
import type { ItemTable } from '../locations/item-table';
import { orgKey, type Item, type ItemKind } from '../locations/items';
import type { DeletedDocuments } from '../stores/store';

/** Table items deleted (or that a dry run would delete) per kind. */
export type ErasedItems = Record<ItemKind, number>;

export interface OrganizationErasureTargets {
  /** The service's table: locations, sensor groups, occupancy entries, machine clients, idempotency records. */
  readonly table: ItemTable;
  /** Deletes (with `dryRun`: counts) the organization's documents in the report store, every collection and month. */
  readonly documents: (organizationId: string, dryRun: boolean) => Promise<DeletedDocuments>;
  /** Called for each machine client before its item goes, e.g. to delete its Cognito app client. */
  readonly removeClient?: (client: MachineClient) => Promise<void>;
}

export interface OrganizationErasureOutcome {
  readonly documents: DeletedDocuments;
  readonly items: ErasedItems;
  /** The organization's machine clients (deleted, or that a dry run would delete). */
  readonly machineClients: readonly MachineClient[];
}

/**
 * In the order they are deleted: clients, then locations before their groups, so that a run cut short leaves nothing
 * that could accept a document.
 */
const ITEM_KINDS: readonly ItemKind[] = [
  'machineClient',
  'webhookEndpoint',
  'webhookEndpointState',
  'webhookDelivery',
  'location',
  'sensorGroup',
  'occupancy',
  'idempotency',
  'deletedLocation',
  'locationChange',
  'machineClientUse',
];

/**
 * Erases one organization: its table items first (its machine clients then get no token and its
 * locations take no document, so nothing new arrives), then its documents. Touches nothing of
 * another organization: the items are those under the organization's keys (`ORG#<org>` and
 * `ORG#<org>#...`) or carrying its `organizationId` (machine clients, idempotency records written
 * since they carry it; older ones expire within 24 hours). Safe to run again: a second run finds
 * nothing. With `dryRun`, counts what it would delete and deletes nothing.
 */
export async function eraseOrganization(
  targets: OrganizationErasureTargets,
  organizationId: string,
  options: { readonly dryRun?: boolean } = {},
): Promise<OrganizationErasureOutcome> {
  const dryRun = options.dryRun ?? false;
  const items = (await targets.table.scan()).filter((item) => belongsTo(item, organizationId));
  const count = Object.fromEntries(ITEM_KINDS.map((k) => [k, 0])) as ErasedItems;
  for (const item of items) count[item.kind] += 1;
  const machineClients = items.filter((i) => i.kind === 'machineClient').map(toMachineClient);
  if (!dryRun) {
    for (const client of machineClients) await targets.removeClient?.(client);
    const order = (i: Item) => ITEM_KINDS.indexOf(i.kind);
    for (const item of [...items].sort((a, b) => order(a) - order(b))) await targets.table.delete(item.PK, item.SK);
  }
  const documents = await targets.documents(organizationId, dryRun);
  return { documents, items: count, machineClients };
}

function belongsTo(item: Item, organizationId: string): boolean {
  const key = orgKey(organizationId);
  return item.PK === key || item.PK.startsWith(`${key}#`) || item.organizationId === organizationId;
}
