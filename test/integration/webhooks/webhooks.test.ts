import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { AlertEvent } from '#shared/alerts/events';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import { attemptDelivery } from '#shared/webhooks/attempt';
import type { DeliveryRef } from '#shared/webhooks/deliveries';
import { deliveryIdOf } from '#shared/webhooks/signing';
import { createWebhookSink } from '#shared/webhooks/sink';
import { invoke, type HttpRequest } from '../../../bin/dev/lambda-events';
import { createManageWebhookEndpointsHandler } from '../../../functions/manage-webhook-endpoints';
import { ORG_A, ORG_B } from '../../fixtures/locations';
import { createTestTable, type TestTable } from '../locations/table';

/**
 * Webhooks end to end on DynamoDB Local: the routes through the real handler, the sink the alert
 * evaluator publishes to, and the delivery worker sending to a real HTTP receiver on loopback, which
 * verifies every delivery with the `standardwebhooks` package (the reference implementation).
 */
interface Received {
  readonly at: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

let table: TestTable;
let items: DynamoItemTable;
let server: Server;
let port: number;
let received: Received[];
let answer: number;
const queued: DeliveryRef[] = [];

beforeEach(async () => {
  table = await createTestTable('webhooks');
  items = new DynamoItemTable(table.client, table.name);
  received = [];
  answer = 200;
  queued.length = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ at: performance.now(), headers: req.headers as Record<string, string>, body });
      res.writeHead(answer).end(answer === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise((r) => server.close(r));
  await table.drop();
});

const handler = () =>
  createManageWebhookEndpointsHandler({
    table: () => items,
    queue: () => ({ enqueue: async (refs) => void queued.push(...refs) }),
    policy: () => ({ allowHttpLoopback: true }),
  });
const as = (who: 'admin' | 'viewer', request: HttpRequest, org = ORG_A) =>
  invoke(handler(), { org, sub: `${who}-1`, ...(who === 'admin' ? { groups: ['admin'] } : {}), ...request });
const hookUrl = () => `http://127.0.0.1:${port}/hooks`;

async function register(events = ['occupancy.above', 'sensor.silent'], org = ORG_A) {
  const created = await as(
    'admin',
    { method: 'POST', path: '/webhook-endpoints', body: { url: hookUrl(), events } },
    org,
  );
  return created.json<{ id: string; secret: string }>();
}

const sink = () =>
  createWebhookSink({ table: items, queue: { enqueue: async (r) => void queued.push(...r) }, now: () => new Date() });
const worker = (gapsMs: readonly number[] = [200, 600]) => ({
  table: items,
  policy: { allowHttpLoopback: true },
  gapsMs,
  now: () => new Date(),
});
const event = (overrides: Partial<AlertEvent> = {}): AlertEvent => ({
  type: 'occupancy.above',
  id: 'rule-1:2024-05-01T10:05:00.000Z:started',
  organizationId: ORG_A,
  occurredAt: '2024-05-01T10:05:00.000Z',
  data: {
    state: 'started',
    ruleId: 'rule-1',
    locationId: 'lisbon',
    sensorGroupId: 1,
    value: 25,
    capacity: 30,
    percent: 83.3,
    threshold: 80,
  },
  ...overrides,
});
const path = (id: string, suffix = '') => ({
  path: `/webhook-endpoints/${id}${suffix}`,
  pathParameters: { endpointId: id },
});

/** Attempts what the queue got until nothing is due any more (as the delivery function would). */
async function drain(gapsMs?: readonly number[]): Promise<void> {
  const refs = [...new Map(queued.map((r) => [r.deliveryId, r])).values()];
  for (const ref of refs) {
    for (;;) {
      const result = await attemptDelivery(worker(gapsMs), ref);
      if (result.kind === 'later') await new Promise((r) => setTimeout(r, result.at.getTime() - Date.now() + 5));
      else if (result.kind === 'attempted' && result.retryAt)
        await new Promise((r) => setTimeout(r, result.retryAt!.getTime() - Date.now() + 5));
      else break;
    }
  }
}

test('POST /webhook-endpoints {url, events} answers 201 {id, secret}; the secret is never shown again, and only admins write', async () => {
  // Act
  const created = await as('admin', {
    method: 'POST',
    path: '/webhook-endpoints',
    body: { url: hookUrl(), events: ['occupancy.above', 'sensor.silent'] },
  });
  const { id, secret } = created.json<{ id: string; secret: string }>();
  const read = await as('viewer', { method: 'GET', ...path(id) });
  const listed = await as('viewer', { method: 'GET', path: '/webhook-endpoints' });
  const byViewer = await as('viewer', {
    method: 'POST',
    path: '/webhook-endpoints',
    body: { url: hookUrl(), events: ['sensor.silent'] },
  });
  const otherOrganization = await as('admin', { method: 'GET', ...path(id) }, ORG_B);

  // Assess
  expect([created.status, created.headers.etag, created.headers['cache-control']]).toEqual([201, '"1"', 'no-store']);
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  expect(read.json()).toMatchObject({
    id,
    url: hookUrl(),
    events: ['occupancy.above', 'sensor.silent'],
    status: 'enabled',
    revision: 1,
  });
  expect([
    read.body.includes('whsec_'),
    listed.body.includes('whsec_'),
    listed.json<{ endpoints: unknown[] }>().endpoints.length,
  ]).toEqual([false, false, 1]);
  expect([byViewer.status, otherOrganization.status]).toEqual([403, 404]);
});

test('an alert event published twice makes one delivery, which a real receiver gets signed and verifies with the secret', async () => {
  // Prepare
  const { id, secret } = await register();
  const { id: otherOrg } = await register(['occupancy.above'], ORG_B);
  const notSubscribed = await register(['parking.full']);

  // Act
  await sink().publish([event()]);
  await drain();
  await sink().publish([event()]);
  await drain();

  // Assess: one delivery, to the subscribed endpoint of the event's organization only.
  expect(received).toHaveLength(1);
  const [got] = received;
  const payload = new Webhook(secret).verify(got!.body, got!.headers);
  expect(payload).toEqual({
    type: 'occupancy.above',
    timestamp: '2024-05-01T10:05:00.000Z',
    data: {
      state: 'started',
      ruleId: 'rule-1',
      locationId: 'lisbon',
      sensorGroupId: 1,
      value: 25,
      capacity: 30,
      percent: 83.3,
      threshold: 80,
    },
  });
  expect(got!.headers['webhook-id']).toBe(deliveryIdOf(event().id, id));
  expect(got!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  expect(() => new Webhook(notSubscribed.secret).verify(got!.body, got!.headers)).toThrow(
    'No matching signature found',
  );
  const log = await as('viewer', { method: 'GET', ...path(id, '/deliveries') });
  expect(log.json()).toMatchObject({
    endpointId: id,
    status: 'enabled',
    failingSince: null,
    deliveries: [
      {
        id: deliveryIdOf(event().id, id),
        status: 'delivered',
        attempts: [{ status: 200, error: null, response: 'ok' }],
        nextAttemptAt: null,
      },
    ],
  });
  const others = await as('admin', { method: 'GET', ...path(otherOrg, '/deliveries') }, ORG_B);
  expect(others.json<{ deliveries: unknown[] }>().deliveries).toEqual([]);
});

test('a receiver answering 500 gets retries with growing gaps and the same webhook-id, all in the log; then the endpoint is disabled', async () => {
  // Prepare
  const { id } = await register();
  answer = 500;

  // Act: the schedule is two retries, 200 ms and 600 ms after the attempts before them.
  await sink().publish([event()]);
  await drain([200, 600]);

  // Assess
  expect(received.map((r) => r.headers['webhook-id'])).toEqual(Array(3).fill(deliveryIdOf(event().id, id)));
  const [first, second, third] = received.map((r) => r.at);
  expect(second! - first!).toBeGreaterThanOrEqual(200);
  expect(third! - second!).toBeGreaterThanOrEqual(600);
  const timestamps = received.map((r) => Number(r.headers['webhook-timestamp']));
  expect(timestamps[2]! - timestamps[0]!).toBeGreaterThanOrEqual(0);
  const log = (await as('viewer', { method: 'GET', ...path(id, '/deliveries') })).json<{
    status: string;
    failingSince: string;
    deliveries: { status: string; reason: string; attempts: { status: number }[]; nextAttemptAt: null }[];
  }>();
  expect(log.status).toBe('disabled-by-service');
  expect(log.deliveries[0]).toMatchObject({
    status: 'failed',
    reason: 'No attempt of 3 succeeded.',
    nextAttemptAt: null,
  });
  expect(log.deliveries[0]!.attempts.map((a) => a.status)).toEqual([500, 500, 500]);
  const endpoint = await as('viewer', { method: 'GET', ...path(id) });
  expect(endpoint.json()).toMatchObject({ status: 'disabled-by-service', disabledReason: 'failing', revision: 2 });
});

test('a 410 Gone disables the endpoint at once, and later events make no delivery to it until it is enabled again', async () => {
  // Prepare
  const { id } = await register();
  answer = 410;

  // Act
  await sink().publish([event()]);
  await drain();
  await sink().publish([event({ id: 'second' })]);
  const enabled = await as('admin', {
    method: 'PUT',
    ...path(id),
    headers: { 'if-match': '"2"' },
    body: { url: hookUrl(), events: ['occupancy.above'], enabled: true },
  });

  // Assess
  expect(received).toHaveLength(1);
  expect(enabled.json()).toMatchObject({ status: 'enabled', disabledReason: null, revision: 3 });
  const log = (await as('viewer', { method: 'GET', ...path(id, '/deliveries') })).json<{
    deliveries: { status: string }[];
  }>();
  expect(log.deliveries.map((d) => d.status)).toEqual(['failed']);
});

test('after a rotation a delivery carries two signatures, each verifying with its secret, until the old one expires', async () => {
  // Prepare
  const { id, secret: old } = await register();
  const rotated = await as('admin', { method: 'POST', ...path(id, '/secret:rotate') });
  const { secret: fresh, previousSecretExpiresAt } = rotated.json<{
    secret: string;
    previousSecretExpiresAt: string;
  }>();

  // Act
  const test = await as('admin', { method: 'POST', ...path(id, '/test') });
  await drain();

  // Assess
  expect([rotated.status, fresh === old, Date.parse(previousSecretExpiresAt) - Date.now()]).toEqual([
    200,
    false,
    expect.any(Number),
  ]);
  expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
  const [got] = received;
  const signatures = got!.headers['webhook-signature']!.split(' ');
  expect(signatures).toHaveLength(2);
  for (const secret of [old, fresh])
    expect(new Webhook(secret).verify(got!.body, got!.headers)).toMatchObject({ type: 'webhook.test' });
  expect(() =>
    new Webhook(fresh).verify(got!.body, { ...got!.headers, 'webhook-signature': signatures[1]! }),
  ).toThrow();
  expect(test.json()).toMatchObject({ type: 'webhook.test', status: 'pending' });
});

test('a retry sends a delivered delivery again with the same webhook-id, and is refused while the endpoint is disabled', async () => {
  // Prepare
  const { id, secret } = await register();
  await sink().publish([event()]);
  await drain();
  const deliveryId = deliveryIdOf(event().id, id);
  const retryPath = {
    path: `/webhook-endpoints/${id}/deliveries/${deliveryId}/retry`,
    pathParameters: { endpointId: id, deliveryId },
  };

  // Act
  const retried = await as('admin', { method: 'POST', ...retryPath });
  await drain();
  await as('admin', {
    method: 'PUT',
    ...path(id),
    headers: { 'if-match': '*' },
    body: { url: hookUrl(), events: ['sensor.silent'], enabled: false },
  });
  const refused = await as('admin', { method: 'POST', ...retryPath });

  // Assess
  expect(retried.status).toBe(202);
  expect(received.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId]);
  expect(new Webhook(secret).verify(received[1]!.body, received[1]!.headers)).toMatchObject({
    type: 'occupancy.above',
  });
  expect([refused.status, refused.json<{ reason: string }>().reason]).toEqual([409, 'endpoint-disabled']);
});

test('a token limited to some locations lists the deliveries of those only', async () => {
  // Prepare
  const { id } = await register();
  await sink().publish([event(), event({ id: 'porto-event', data: { ...event().data, locationId: 'porto' } })]);

  // Act
  const limited = await as('viewer', { method: 'GET', ...path(id, '/deliveries'), locations: ['porto'] });
  const whole = await as('viewer', { method: 'GET', ...path(id, '/deliveries') });

  // Assess
  const locations = (r: typeof whole) =>
    r
      .json<{ deliveries: { locationId: string }[] }>()
      .deliveries.map((d) => d.locationId)
      .sort();
  expect([locations(limited), locations(whole)]).toEqual([['porto'], ['lisbon', 'porto']]);
});
