import type { ItemTable } from '../locations/item-table';
import type { Item } from '../locations/items';

/**
 * Machine clients: the gateways and backfill jobs that send documents to `POST /ingest/{collection}`.
 * In AWS each is a Cognito app client with the client-credentials grant and the ingest scope; its
 * organization is not in Cognito but here, in the service's table, written by
 * `npm run ingest-client -- create` (bin/ingest-client.ts) and read by the pre-token-generation
 * trigger, which puts it into every access token the client gets, and by the ingest route's
 * authorizer, which refuses tokens of a client revoked since.
 *
 * | item           | PK                | SK                   |
 * |----------------|-------------------|----------------------|
 * | machine client | `MACHINE_CLIENTS` | `CLIENT#<client id>` |
 *
 * One partition for all: `list` is one Query, and clients are few and read about once an hour each
 * (when a token is issued) or per authorizer cache miss.
 */
export interface MachineClient {
  /** The Cognito app client id (`client_id` of its tokens). */
  readonly clientId: string;
  readonly organizationId: string;
  /** What the operator called it (`--name`), e.g. the gateway's site. */
  readonly name: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601 when revoked (its tokens are refused from then on), else null. */
  readonly revokedAt: string | null;
}

export const MACHINE_CLIENTS_PARTITION = 'MACHINE_CLIENTS';
export const machineClientSortKey = (clientId: string): string => `CLIENT#${clientId}`;

export function machineClientItem(c: MachineClient): Item {
  return { PK: MACHINE_CLIENTS_PARTITION, SK: machineClientSortKey(c.clientId), kind: 'machineClient', ...c };
}

export function toMachineClient(item: Record<string, unknown>): MachineClient {
  return {
    clientId: String(item.clientId),
    organizationId: String(item.organizationId),
    name: String(item.name),
    createdAt: String(item.createdAt),
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : null,
  };
}

/** Why a client may not have tokens: it was never registered, or it was revoked. */
export class UnknownMachineClientError extends Error {
  constructor(
    readonly clientId: string,
    readonly reason: 'unknown' | 'revoked',
  ) {
    super(reason === 'unknown' ? `Client ${clientId} is not a registered machine client.` : `Client ${clientId} was revoked.`);
    this.name = 'UnknownMachineClientError';
  }
}

/** The machine client with this id, if registered (revoked ones too). */
export async function findMachineClient(table: Pick<ItemTable, 'get'>, clientId: string): Promise<MachineClient | undefined> {
  const item = await table.get(MACHINE_CLIENTS_PARTITION, machineClientSortKey(clientId));
  return item ? toMachineClient(item) : undefined;
}

/** The organization of a registered, unrevoked client; throws UnknownMachineClientError otherwise. */
export async function organizationOfClient(table: Pick<ItemTable, 'get'>, clientId: string): Promise<string> {
  const client = await findMachineClient(table, clientId);
  if (!client) throw new UnknownMachineClientError(clientId, 'unknown');
  if (client.revokedAt !== null) throw new UnknownMachineClientError(clientId, 'revoked');
  return client.organizationId;
}

/** Every registered client, revoked ones too, in client id order. */
export async function listMachineClients(table: ItemTable): Promise<MachineClient[]> {
  return (await table.query(MACHINE_CLIENTS_PARTITION, 'CLIENT#')).map(toMachineClient);
}

export async function putMachineClient(table: ItemTable, client: MachineClient): Promise<void> {
  await table.put(machineClientItem(client));
}
