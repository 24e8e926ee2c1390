import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { grants, requireAdmin } from '#shared/access/scope';
import { ValidationError } from '#shared/errors';
import type { ItemTable } from '#shared/locations/item-table';
import {
  addDelivery,
  type Delivery,
  listDeliveries,
  newDelivery,
  refOf,
  retryDelivery,
} from '#shared/webhooks/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  readEndpoint,
  replaceEndpoint,
  rotateSecret,
  type StoredEndpoint,
} from '#shared/webhooks/endpoints';
import { TEST_EVENT_TYPE, validateEndpointInput, viewOf, type WebhookEndpointInput } from '#shared/webhooks/model';
import { type SendPolicy, urlProblem } from '#shared/webhooks/send';
import { randomDeliveryId } from '#shared/webhooks/signing';
import type { DeliveryQueue } from '#shared/webhooks/sink';
import { itemTable } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { deliveryQueue, sendPolicy } from '#commons/clients/webhooks';
import { ifMatchOf, revisionEtag } from '#commons/http/preconditions';
import { type FamilyRequest, type FamilyRoute, routeFamily } from '#commons/http/route-family';

/** Largest endpoint body: a 2 KiB URL, the events and a description fit. */
export const MAX_ENDPOINT_BODY_BYTES = 4096;
/** Deliveries listed at most (`?limit=`, default 50). */
export const MAX_DELIVERY_PAGE = 200;

export interface ManageWebhookEndpointsDeps {
  readonly table: Provider<ItemTable>;
  readonly queue: () => DeliveryQueue;
  /** The URL rules: AWS's unless the local server allows http to loopback. */
  readonly policy: () => SendPolicy;
  /** @default Date.now */
  readonly now?: () => number;
}

type Request = FamilyRequest<ManageWebhookEndpointsDeps>;

/**
 * Webhook endpoints (one Lambda for the family), organization-wide: admins of the whole organization
 * write, viewers read (a token limited to some locations sees the deliveries of those only). The
 * secret is answered once, by `POST /webhook-endpoints` and by the rotation. The rules are in
 * shared/webhooks/; docs/webhooks.md says what a receiver gets.
 */
export function createManageWebhookEndpointsHandler(
  deps: ManageWebhookEndpointsDeps = { table: itemTable, queue: deliveryQueue, policy: sendPolicy },
) {
  return routeFamily('manage-webhook-endpoints', WEBHOOK_ENDPOINT_ROUTES, deps);
}

const ONE = '/webhook-endpoints/{endpointId}';

/** The family's routes, by their keys in functions/routes.ts. */
export const WEBHOOK_ENDPOINT_ROUTES: Readonly<Record<string, FamilyRoute<ManageWebhookEndpointsDeps>>> = {
  'POST /webhook-endpoints': { purpose: 'admin', bodyMaxBytes: MAX_ENDPOINT_BODY_BYTES, run: create },
  'GET /webhook-endpoints': { purpose: 'read', run: list },
  [`GET ${ONE}`]: { purpose: 'read', run: get },
  [`PUT ${ONE}`]: { purpose: 'admin', bodyMaxBytes: MAX_ENDPOINT_BODY_BYTES, run: replace },
  [`DELETE ${ONE}`]: { purpose: 'admin', run: remove },
  [`POST ${ONE}/test`]: { purpose: 'admin', run: sendTest },
  [`POST ${ONE}/secret:rotate`]: { purpose: 'admin', run: rotate },
  [`GET ${ONE}/deliveries`]: { purpose: 'read', run: deliveries },
  [`POST ${ONE}/deliveries/{deliveryId}/retry`]: { purpose: 'admin', run: retry },
};

async function create({ scope, deps, body }: Request) {
  requireAdmin(scope, 'Creating a webhook endpoint', { organizationWide: true });
  const input = checked(deps, validateEndpointInput(body));
  const { endpoint, secret } = await createEndpoint(await deps.table(), context(scope, deps), input);
  return json(
    201,
    { ...viewOf(endpoint), secret },
    {
      'Cache-Control': 'no-store',
      ETag: revisionEtag(endpoint.revision),
      Location: `/webhook-endpoints/${endpoint.id}`,
    },
  );
}

async function list({ scope, deps }: Request) {
  const endpoints = await listEndpoints(await deps.table(), scope.organizationId);
  return json(200, { endpoints: endpoints.map((e) => viewOf(e.endpoint)) });
}

async function get({ event, scope, deps }: Request) {
  return answer(200, await readEndpoint(await deps.table(), scope.organizationId, pathId(event)));
}

async function replace({ event, scope, deps, body }: Request) {
  const id = pathId(event);
  requireAdmin(scope, 'Changing a webhook endpoint', { organizationWide: true });
  const table = await deps.table();
  await readEndpoint(table, scope.organizationId, id);
  const expected = ifMatchOf(event, true, `PUT /webhook-endpoints/${id}`)!;
  const input = checked(deps, validateEndpointInput(body));
  return answer(200, await replaceEndpoint(table, context(scope, deps), id, input, expected));
}

async function remove({ event, scope, deps }: Request): Promise<APIGatewayProxyStructuredResultV2> {
  const id = pathId(event);
  requireAdmin(scope, 'Deleting a webhook endpoint', { organizationWide: true });
  const table = await deps.table();
  await readEndpoint(table, scope.organizationId, id);
  await deleteEndpoint(table, scope.organizationId, id, ifMatchOf(event, false, `DELETE /webhook-endpoints/${id}`));
  return { statusCode: 204, headers: { 'Cache-Control': 'no-store' } };
}

async function sendTest({ event, scope, deps }: Request) {
  requireAdmin(scope, 'Sending a test delivery', { organizationWide: true });
  const table = await deps.table();
  const { endpoint } = await readEndpoint(table, scope.organizationId, pathId(event));
  const now = new Date((deps.now ?? Date.now)());
  const id = randomDeliveryId();
  const delivery = newDelivery({
    id,
    organizationId: scope.organizationId,
    endpointId: endpoint.id,
    type: TEST_EVENT_TYPE,
    eventId: id,
    locationId: null,
    body: JSON.stringify({
      type: TEST_EVENT_TYPE,
      timestamp: now.toISOString(),
      data: {
        endpointId: endpoint.id,
        message: 'A test delivery: verify its signature with the secret of this endpoint.',
      },
    }),
    now,
  });
  await addDelivery(table, delivery);
  await deps.queue().enqueue([refOf(delivery)]);
  return json(202, deliveryView(delivery), { 'Cache-Control': 'no-store', Location: deliveriesPath(endpoint.id) });
}

async function rotate({ event, scope, deps }: Request) {
  const id = pathId(event);
  requireAdmin(scope, 'Rotating a webhook secret', { organizationWide: true });
  const table = await deps.table();
  await readEndpoint(table, scope.organizationId, id);
  const expected = ifMatchOf(event, false, `POST /webhook-endpoints/${id}/secret:rotate`);
  const { endpoint, secret, previousSecretExpiresAt } = await rotateSecret(table, context(scope, deps), id, expected);
  return json(
    200,
    { secret, previousSecretExpiresAt },
    { 'Cache-Control': 'no-store', ETag: revisionEtag(endpoint.revision) },
  );
}

async function deliveries({ event, scope, deps }: Request) {
  const table = await deps.table();
  const { endpoint, state } = await readEndpoint(table, scope.organizationId, pathId(event));
  const limit = limitOf(event.queryStringParameters?.limit);
  const found = await listDeliveries(table, scope.organizationId, endpoint.id, MAX_DELIVERY_PAGE);
  const visible = found.filter((d) => d.locationId === null || grants(scope, d.locationId)).slice(0, limit);
  return json(200, {
    endpointId: endpoint.id,
    status: viewOf(endpoint).status,
    failingSince: state.failingSince,
    deliveries: visible.map(deliveryView),
  });
}

async function retry({ event, scope, deps }: Request) {
  requireAdmin(scope, 'Retrying a delivery', { organizationWide: true });
  const table = await deps.table();
  const { endpoint } = await readEndpoint(table, scope.organizationId, pathId(event));
  const deliveryId = event.pathParameters?.deliveryId ?? '';
  const ref = { organizationId: scope.organizationId, endpointId: endpoint.id, deliveryId };
  const delivery = await retryDelivery(table, ref, new Date((deps.now ?? Date.now)()), endpoint.enabled);
  await deps.queue().enqueue([ref]);
  return json(202, deliveryView(delivery), { 'Cache-Control': 'no-store' });
}

/** A delivery as the log shows it: the payload parsed back, the claim's bookkeeping left out. */
function deliveryView(d: Delivery) {
  return {
    id: d.id,
    type: d.type,
    eventId: d.eventId,
    locationId: d.locationId,
    createdAt: d.createdAt,
    status: d.status,
    reason: d.reason,
    attempts: d.attempts,
    nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
    payload: JSON.parse(d.body) as unknown,
  };
}

/** The URL's rules beyond its form (scheme, literal addresses): a 400 naming `/url`. */
function checked(deps: ManageWebhookEndpointsDeps, input: WebhookEndpointInput): WebhookEndpointInput {
  const problem = urlProblem(input.url, deps.policy());
  if (problem) throw new ValidationError([{ path: '/url', message: problem }]);
  return input;
}

function limitOf(value: string | undefined): number {
  if (value === undefined) return 50;
  if (!/^[1-9]\d{0,2}$/.test(value) || Number(value) > MAX_DELIVERY_PAGE)
    throw new ValidationError([{ path: '/query/limit', message: `must be an integer from 1 to ${MAX_DELIVERY_PAGE}` }]);
  return Number(value);
}

const pathId = (event: Request['event']): string => event.pathParameters?.endpointId ?? '';
const deliveriesPath = (id: string) => `/webhook-endpoints/${id}/deliveries`;

const context = (scope: Request['scope'], deps: ManageWebhookEndpointsDeps) => ({
  organizationId: scope.organizationId,
  actor: scope.subject,
  now: new Date((deps.now ?? Date.now)()),
});

function answer(statusCode: number, stored: StoredEndpoint): APIGatewayProxyStructuredResultV2 {
  return json(statusCode, viewOf(stored.endpoint), {
    'Cache-Control': 'private, no-cache',
    ETag: revisionEtag(stored.endpoint.revision),
  });
}

function json(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = { 'Cache-Control': 'private, no-cache' },
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export const handler = createManageWebhookEndpointsHandler();
