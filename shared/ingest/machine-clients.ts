import * as z from 'zod/mini';
import { NotFoundError } from '../errors';
import type { ItemTable } from '../locations/item-table';
import type { Item } from '../locations/items';
import { parseOrThrow } from '../validation';
import { described, named } from '../openapi/registry';

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
 * | its last use   | `MACHINE_CLIENTS` | `USED#<client id>`   |
 *
 * The last use is an item of its own, written blind by the ingest function (at most once a minute
 * per client and process), so that it never races the revocation of the client's own item.
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
  /**
   * SHA-256 (hex) of the secret of a client whose credentials the local server issued (its token
   * endpoint checks it); absent for a Cognito app client, whose secret only Cognito knows.
   */
  readonly secretHash?: string;
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
    ...(typeof item.secretHash === 'string' ? { secretHash: item.secretHash } : {}),
  };
}

/** Why a client may not have tokens: it was never registered, or it was revoked. */
export class UnknownMachineClientError extends Error {
  constructor(
    readonly clientId: string,
    readonly reason: 'unknown' | 'revoked',
  ) {
    super(
      reason === 'unknown'
        ? `Client ${clientId} is not a registered machine client.`
        : `Client ${clientId} was revoked.`,
    );
    this.name = 'UnknownMachineClientError';
  }
}

/** The machine client with this id, if registered (revoked ones too). */
export async function findMachineClient(
  table: Pick<ItemTable, 'get'>,
  clientId: string,
): Promise<MachineClient | undefined> {
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

/**
 * Who makes the credentials of a machine client: in AWS a Cognito app client with the
 * client-credentials grant and the ingest scope (functions/commons/clients/cognito-issuer.ts), locally
 * the local server's own (bin/local/machine-credentials.ts). The records are the same either way.
 */
export interface ClientIssuer {
  /** New credentials named `name`; the secret is shown once. `secretHash` when the service checks the secret itself. */
  create(
    name: string,
  ): Promise<{ readonly clientId: string; readonly clientSecret: string; readonly secretHash?: string }>;
  /** Deletes the credentials (no error when they are gone already). */
  remove(clientId: string): Promise<void>;
  /** Where a client exchanges its id and secret for an access token (OAuth 2.0 client credentials, RFC 6749 §4.4). */
  readonly tokenUrl: string;
}

/** A client as `GET /ingest-clients` lists it. */
export interface MachineClientView extends Omit<MachineClient, 'secretHash'> {
  /** ISO 8601 of the last batch it sent (to within a minute), or null. */
  readonly lastUsedAt: string | null;
}

/** What `POST /ingest-clients` answers, once: the client and its secret. */
export interface RegisteredClient extends MachineClientView {
  readonly clientSecret: string;
  readonly tokenUrl: string;
  readonly scope: string;
}

/** Cognito's pattern for an app client's name. */
const CLIENT_NAME = /^[\w\s+=,.@-]{1,128}$/;

/** The body of `POST /ingest-clients`. */
export const MachineClientInputSchema = named(
  z.strictObject({
    name: described(
      z
        .string()
        .check(
          z.regex(
            CLIENT_NAME,
            'must be 1 to 128 letters, digits, spaces or + = , . @ - _ (say, the site of the gateway)',
          ),
        ),
      'What to call the gateway (1 to 128 letters, digits, spaces or `+ = , . @ - _`), say its site.',
    ),
  }),
  'IngestClientInput',
  'A gateway (machine client) to register.',
);

export function validateMachineClientInput(json: unknown): { readonly name: string } {
  return parseOrThrow(MachineClientInputSchema, json);
}

const USED_PREFIX = 'USED#';

/**
 * Registers a machine client of the organization: credentials from the issuer, then the record the
 * token trigger and the authorizer read. Without its record the credentials are deleted again, so
 * nothing is left half made.
 */
export async function registerMachineClient(
  table: ItemTable,
  issuer: ClientIssuer,
  request: { readonly organizationId: string; readonly name: string; readonly now: Date; readonly scope: string },
): Promise<RegisteredClient> {
  const { clientId, clientSecret, secretHash } = await issuer.create(request.name);
  const client: MachineClient = {
    clientId,
    organizationId: request.organizationId,
    name: request.name,
    createdAt: request.now.toISOString(),
    revokedAt: null,
    ...(secretHash ? { secretHash } : {}),
  };
  try {
    await putMachineClient(table, client);
  } catch (e) {
    await issuer.remove(clientId);
    throw e;
  }
  return { ...viewOf(client, null), clientSecret, tokenUrl: issuer.tokenUrl, scope: request.scope };
}

/**
 * Revokes a machine client of the organization: its record first (from then on no token is issued
 * to it and the authorizer takes none of its tokens), then its credentials. Revoking a revoked one
 * again deletes its credentials again (a run cut short completes); another organization's, or an
 * unknown one, is a 404.
 */
export async function revokeMachineClient(
  table: ItemTable,
  issuer: Pick<ClientIssuer, 'remove'>,
  organizationId: string,
  clientId: string,
  now: Date,
): Promise<MachineClient> {
  const client = await findMachineClient(table, clientId);
  if (!client || client.organizationId !== organizationId)
    throw new NotFoundError(`There is no ingest client '${clientId.slice(0, 128)}'.`);
  const revoked = client.revokedAt === null ? { ...client, revokedAt: now.toISOString() } : client;
  if (client.revokedAt === null) await putMachineClient(table, revoked);
  await issuer.remove(clientId);
  return revoked;
}

/** The organization's clients, revoked ones too, with their last use, in client id order. */
export async function listClientsOf(table: ItemTable, organizationId: string): Promise<MachineClientView[]> {
  const items = await table.query(MACHINE_CLIENTS_PARTITION);
  const used = new Map(
    items
      .filter((i) => i.SK.startsWith(USED_PREFIX))
      .map((i) => [i.SK.slice(USED_PREFIX.length), String(i.lastUsedAt)]),
  );
  return items
    .filter((i) => i.kind === 'machineClient')
    .map(toMachineClient)
    .filter((c) => c.organizationId === organizationId)
    .map((c) => viewOf(c, used.get(c.clientId) ?? null));
}

/** Notes that a client of the organization sent a batch at `now` (a blind write of its last-use item). */
export async function noteClientUse(
  table: Pick<ItemTable, 'put'>,
  organizationId: string,
  clientId: string,
  now: Date,
): Promise<void> {
  await table.put({
    PK: MACHINE_CLIENTS_PARTITION,
    SK: `${USED_PREFIX}${clientId}`,
    kind: 'machineClientUse',
    organizationId,
    clientId,
    lastUsedAt: now.toISOString(),
  });
}

function viewOf(c: MachineClient, lastUsedAt: string | null): MachineClientView {
  return {
    clientId: c.clientId,
    organizationId: c.organizationId,
    name: c.name,
    createdAt: c.createdAt,
    revokedAt: c.revokedAt,
    lastUsedAt,
  };
}
