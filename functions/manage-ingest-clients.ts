import { requireAdmin } from '#shared/access/scope';
import type { ItemTable } from '#shared/locations/item-table';
import {
  type ClientIssuer,
  listClientsOf,
  registerMachineClient,
  revokeMachineClient,
  validateMachineClientInput,
} from '#shared/ingest/machine-clients';
import { itemTable } from '#commons/clients/dynamo';
import { clientIssuer } from '#commons/clients/client-issuer';
import type { Provider } from '#commons/clients/lazy';
import { INGEST_SCOPE } from '#commons/http/identity';
import { type FamilyRequest, type FamilyRoute, routeFamily } from '#commons/http/route-family';

export interface ManageIngestClientsDeps {
  readonly table: Provider<ItemTable>;
  /** Who makes the credentials: Cognito in AWS, the local server's own locally. */
  readonly issuer: Provider<ClientIssuer>;
  /** @default Date.now */
  readonly now?: () => number;
}

type Request = FamilyRequest<ManageIngestClientsDeps>;

/**
 * Gateways through the API (one Lambda for the family), for an admin of the whole organization:
 * `POST /ingest-clients` registers one (201 with its id and secret, shown once), `GET /ingest-clients`
 * lists the organization's (revoked ones too, with their last use), `DELETE /ingest-clients/{clientId}`
 * revokes one (204). The same records as `npm run ingest-client` (shared/ingest/machine-clients.ts).
 */
export function createManageIngestClientsHandler(
  deps: ManageIngestClientsDeps = { table: itemTable, issuer: clientIssuer },
) {
  return routeFamily('manage-ingest-clients', INGEST_CLIENT_ROUTES, deps);
}

/** The family's routes, by their keys in functions/routes.ts. */
export const INGEST_CLIENT_ROUTES: Readonly<Record<string, FamilyRoute<ManageIngestClientsDeps>>> = {
  'POST /ingest-clients': { purpose: 'admin', bodyMaxBytes: 4096, run: register },
  'GET /ingest-clients': { purpose: 'admin', run: list },
  'DELETE /ingest-clients/{clientId}': { purpose: 'admin', run: revoke },
};

async function register({ scope, deps, body }: Request) {
  requireAdmin(scope, 'Registering a gateway', { organizationWide: true });
  const { name } = validateMachineClientInput(body);
  const [table, issuer] = await Promise.all([deps.table(), deps.issuer()]);
  const client = await registerMachineClient(table, issuer, {
    organizationId: scope.organizationId,
    name,
    now: new Date((deps.now ?? Date.now)()),
    scope: INGEST_SCOPE,
  });
  return {
    statusCode: 201,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
    body: JSON.stringify(client),
  };
}

async function list({ scope, deps }: Request) {
  requireAdmin(scope, 'Listing gateways', { organizationWide: true });
  const clients = await listClientsOf(await deps.table(), scope.organizationId);
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-cache' },
    body: JSON.stringify({ clients }),
  };
}

async function revoke({ event, scope, deps }: Request) {
  requireAdmin(scope, 'Revoking a gateway', { organizationWide: true });
  const [table, issuer] = await Promise.all([deps.table(), deps.issuer()]);
  await revokeMachineClient(
    table,
    issuer,
    scope.organizationId,
    event.pathParameters?.clientId ?? '',
    new Date((deps.now ?? Date.now)()),
  );
  return { statusCode: 204, headers: { 'Cache-Control': 'no-store' } };
}

export const handler = createManageIngestClientsHandler();
