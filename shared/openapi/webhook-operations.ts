import '../webhooks/model';
import { adminWriteErrors, ifMatch, json, noStore, notAdmin, type Json } from './admin-operations';
import { cacheControl, common, header, problemResponse, ref, type ProblemExample } from './responses';

/**
 * Webhook endpoints and their deliveries (`/webhook-endpoints`, docs/webhooks.md); the problem
 * examples are asked of the real handler (test/unit/openapi/examples.test.ts).
 */

export const WEBHOOK_EXAMPLE_ID = '5b0c3c9e-7d0a-4d52-9a51-2f0c1a8e6b11';
const AT = '2024-03-01T09:45:00.000Z';
const endpointView = {
  id: WEBHOOK_EXAMPLE_ID,
  url: 'https://hooks.example.com/lrs',
  events: ['occupancy.above', 'sensor.silent'],
  description: '',
  status: 'enabled',
  disabledReason: null,
  disabledAt: null,
  revision: 1,
  createdAt: AT,
  updatedAt: AT,
  createdBy: 'user-1',
  updatedBy: 'user-1',
};
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3n5Q0e3ry9o=';
const payload = {
  type: 'occupancy.above',
  timestamp: '2024-03-01T10:05:00.000Z',
  data: {
    state: 'started',
    ruleId: 'r-1',
    locationId: 'berlin-mall',
    sensorGroupId: 1,
    value: 322,
    capacity: 400,
    percent: 80.5,
    threshold: 80,
  },
};
const delivery = {
  id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  type: 'occupancy.above',
  eventId: 'occupancy.above:r-1:2024-03-01T10:05:00.000Z:started',
  locationId: 'berlin-mall',
  createdAt: '2024-03-01T10:05:01.000Z',
  status: 'pending',
  reason: null,
  attempts: [
    { at: '2024-03-01T10:05:01.000Z', status: 500, latencyMs: 84, error: null, response: 'Internal Server Error' },
    { at: '2024-03-01T10:05:06.000Z', status: 500, latencyMs: 79, error: null, response: 'Internal Server Error' },
  ],
  nextAttemptAt: '2024-03-01T10:05:36.000Z',
  payload,
};

const endpointIdParameter: Json = {
  name: 'endpointId',
  in: 'path',
  required: true,
  description: 'A webhook endpoint of the caller’s organization (the id `POST /webhook-endpoints` answered).',
  schema: { type: 'string' },
  example: WEBHOOK_EXAMPLE_ID,
};
const unknownEndpoint = (problem: ProblemExample) =>
  problemResponse("An unknown endpoint, or another organization's (the same answer).", {
    unknownEndpoint: problem('not-found', `There is no webhook endpoint '${WEBHOOK_EXAMPLE_ID}'.`),
  });
const staleEndpoint = (problem: ProblemExample) =>
  problemResponse('If-Match names another revision (or the endpoint changed meanwhile): nothing was written.', {
    stale: problem(
      'precondition-failed',
      `The webhook endpoint ${WEBHOOK_EXAMPLE_ID} is at revision 1 (ETag "1"); read it again and apply your change to that.`,
    ),
  });
const viewerRefused = (problem: ProblemExample, what: string) => notAdmin(problem, what);
const revalidated = {
  ETag: header('ETag'),
  'Cache-Control': cacheControl('private, no-cache', 'Revalidate with If-None-Match.'),
  Vary: header('Vary'),
  'X-Request-Id': header('X-Request-Id'),
};
const withRevision = {
  ETag: header('LocationETag'),
  'Cache-Control': cacheControl('private, no-cache', 'Revalidate with If-None-Match.'),
  Vary: header('Vary'),
  'X-Request-Id': header('X-Request-Id'),
};
const badUrl = (problem: ProblemExample) =>
  problemResponse(
    'The body breaks the schema (every error with its JSON Pointer in `errors`), the URL is not https, or it names a private, loopback, link-local or other special-purpose address.',
    {
      notHttps: problem('validation', '/url: must be an https URL', {
        errors: [{ path: '/url', message: 'must be an https URL' }],
      }),
    },
  );

export function createWebhookEndpoint(problem: ProblemExample): Json {
  return {
    operationId: 'createWebhookEndpoint',
    tags: ['webhooks'],
    summary: 'Registers a webhook endpoint: its id and signing secret, shown once (admin of the whole organization).',
    description:
      'Deliveries of the events listed are POSTed to the URL, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the base64-decoded part of the `whsec_` secret). The URL must be https; its host must resolve to public addresses only (checked at every attempt). Store the secret now: it is never shown again (rotate it with `POST /webhook-endpoints/{endpointId}/secret:rotate`).',
    requestBody: {
      required: true,
      content: json(ref('schemas', 'WebhookEndpointInput'), {
        alerts: { value: { url: 'https://hooks.example.com/lrs', events: ['occupancy.above', 'sensor.silent'] } },
      }),
    },
    responses: {
      '201': {
        description: 'Registered: the endpoint and its secret.',
        headers: {
          ...noStore,
          ETag: header('LocationETag'),
          Location: {
            description: 'The endpoint’s path.',
            schema: { type: 'string' },
            example: `/webhook-endpoints/${WEBHOOK_EXAMPLE_ID}`,
          },
        },
        content: json(ref('schemas', 'CreatedWebhookEndpoint'), {
          alerts: { value: { ...endpointView, secret: SECRET } },
        }),
      },
      '400': badUrl(problem),
      ...adminWriteErrors(problem, 'Creating a webhook endpoint', '4 KiB'),
    },
  };
}

export function listWebhookEndpoints(): Json {
  return {
    operationId: 'listWebhookEndpoints',
    tags: ['webhooks'],
    summary: 'The organization’s webhook endpoints, oldest first (any user of the organization); never a secret.',
    description:
      '`status` says whether deliveries go to each: `disabled` by an admin, `disabled-by-service` after a 410 Gone or deliveries that failed throughout the retry schedule (`disabledReason`).',
    parameters: [ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The endpoints.',
        headers: revalidated,
        content: json(ref('schemas', 'WebhookEndpointList'), { one: { value: { endpoints: [endpointView] } } }),
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function getWebhookEndpoint(problem: ProblemExample): Json {
  return {
    operationId: 'getWebhookEndpoint',
    tags: ['webhooks'],
    summary: 'One webhook endpoint, with the strong ETag of its revision (never its secret).',
    description:
      'Send the ETag back in If-Match to change it. The service disabling it is a change too (a new revision).',
    parameters: [endpointIdParameter, ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The endpoint.',
        headers: withRevision,
        content: json(ref('schemas', 'WebhookEndpoint'), { one: { value: endpointView } }),
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '404': unknownEndpoint(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function replaceWebhookEndpoint(problem: ProblemExample): Json {
  return {
    operationId: 'replaceWebhookEndpoint',
    tags: ['webhooks'],
    summary:
      'Replaces an endpoint’s URL, events, description and `enabled` (admin of the whole organization), If-Match required.',
    description:
      '`enabled: true` enables an endpoint again, also one the service disabled; `enabled: false` pauses it (its pending deliveries are abandoned). The secret is kept.',
    parameters: [endpointIdParameter, ifMatch(true)],
    requestBody: {
      required: true,
      content: json(ref('schemas', 'WebhookEndpointInput'), {
        enableAgain: {
          value: { url: 'https://hooks.example.com/lrs', events: ['occupancy.above', 'sensor.silent'], enabled: true },
        },
      }),
    },
    responses: {
      '200': {
        description: 'The endpoint as it now is, with its new ETag.',
        headers: withRevision,
        content: json(ref('schemas', 'WebhookEndpoint'), { one: { value: { ...endpointView, revision: 2 } } }),
      },
      '400': badUrl(problem),
      '404': unknownEndpoint(problem),
      '412': staleEndpoint(problem),
      '428': problemResponse('No If-Match.', {
        noIfMatch: problem(
          'precondition-required',
          `PUT /webhook-endpoints/${WEBHOOK_EXAMPLE_ID} needs If-Match with the ETag of the version it changes (or If-Match: * to change whatever is there), so that no one's change is overwritten unseen.`,
        ),
      }),
      ...adminWriteErrors(problem, 'Changing a webhook endpoint', '4 KiB'),
    },
  };
}

export function deleteWebhookEndpoint(problem: ProblemExample): Json {
  return {
    operationId: 'deleteWebhookEndpoint',
    tags: ['webhooks'],
    summary: 'Deletes an endpoint (admin of the whole organization): 204, then 404.',
    description:
      'Its pending deliveries are abandoned; its delivery log expires 30 days after each delivery. If-Match is honoured when sent.',
    parameters: [endpointIdParameter, ifMatch(false)],
    responses: {
      '204': { description: 'Deleted.', headers: noStore },
      '401': ref('responses', 'Unauthorized'),
      '403': viewerRefused(problem, 'Deleting a webhook endpoint'),
      '404': unknownEndpoint(problem),
      '412': staleEndpoint(problem),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function sendWebhookTest(problem: ProblemExample): Json {
  return {
    operationId: 'sendWebhookTest',
    tags: ['webhooks'],
    summary: 'Sends a signed `webhook.test` delivery to the endpoint now (admin of the whole organization).',
    description:
      'Whatever events it subscribes to; attempted and retried like any other delivery, and listed in its log.',
    parameters: [endpointIdParameter],
    responses: {
      '202': {
        description: 'Made and queued: the delivery (its first attempt follows within a second or two).',
        headers: { ...noStore, Location: { description: 'The endpoint’s delivery log.', schema: { type: 'string' } } },
        content: json(ref('schemas', 'WebhookDelivery'), {
          test: {
            value: {
              id: 'msg_Vb3l0cSg4bWc8QHk6o2oJ5mRr7t',
              type: 'webhook.test',
              eventId: 'msg_Vb3l0cSg4bWc8QHk6o2oJ5mRr7t',
              locationId: null,
              createdAt: AT,
              status: 'pending',
              reason: null,
              attempts: [],
              nextAttemptAt: AT,
              payload: {
                type: 'webhook.test',
                timestamp: AT,
                data: {
                  endpointId: WEBHOOK_EXAMPLE_ID,
                  message: 'A test delivery: verify its signature with the secret of this endpoint.',
                },
              },
            },
          },
        }),
      },
      '401': ref('responses', 'Unauthorized'),
      '403': viewerRefused(problem, 'Sending a test delivery'),
      '404': unknownEndpoint(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function rotateWebhookSecret(problem: ProblemExample): Json {
  return {
    operationId: 'rotateWebhookSecret',
    tags: ['webhooks'],
    summary:
      'A new signing secret, shown once; the old one keeps signing beside it for 24 hours (admin of the whole organization).',
    description:
      'Until `previousSecretExpiresAt` every delivery carries two signatures in `webhook-signature` (space-separated, as Standard Webhooks provides for rotation), so a receiver can switch secrets without missing one. If-Match is honoured when sent.',
    parameters: [endpointIdParameter, ifMatch(false)],
    responses: {
      '200': {
        description: 'The new secret.',
        headers: { ...noStore, ETag: header('LocationETag') },
        content: json(ref('schemas', 'RotatedWebhookSecret'), {
          rotated: { value: { secret: SECRET, previousSecretExpiresAt: '2024-03-02T09:45:00.000Z' } },
        }),
      },
      '401': ref('responses', 'Unauthorized'),
      '403': viewerRefused(problem, 'Rotating a webhook secret'),
      '404': unknownEndpoint(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      '412': staleEndpoint(problem),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function listWebhookDeliveries(problem: ProblemExample): Json {
  return {
    operationId: 'listWebhookDeliveries',
    tags: ['webhooks'],
    summary:
      'The endpoint’s delivery log, newest first: every attempt with its status and latency, and the next attempt.',
    description:
      'A token limited to some locations sees the deliveries of those only (and test deliveries). Kept 30 days.',
    parameters: [
      endpointIdParameter,
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'At most this many deliveries (1 to 200).',
        schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
        example: 50,
      },
      ref('parameters', 'IfNoneMatch'),
    ],
    responses: {
      '200': {
        description: 'The log.',
        headers: revalidated,
        content: json(ref('schemas', 'WebhookDeliveryLog'), {
          retrying: {
            value: {
              endpointId: WEBHOOK_EXAMPLE_ID,
              status: 'enabled',
              failingSince: '2024-03-01T10:05:01.000Z',
              deliveries: [delivery],
            },
          },
        }),
      },
      '304': ref('responses', 'NotModified'),
      '400': problemResponse('`limit` is not an integer from 1 to 200.', {
        badLimit: problem('validation', '/query/limit: must be an integer from 1 to 200', {
          errors: [{ path: '/query/limit', message: 'must be an integer from 1 to 200' }],
        }),
      }),
      '401': ref('responses', 'Unauthorized'),
      '404': unknownEndpoint(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

export function retryWebhookDelivery(problem: ProblemExample): Json {
  return {
    operationId: 'retryWebhookDelivery',
    tags: ['webhooks'],
    summary: 'Attempts a delivery again now, with the same webhook-id (admin of the whole organization).',
    description:
      'A new round of attempts on the retry schedule, whatever the delivery’s state: a delivered one is sent again (a replay; receivers deduplicate by `webhook-id`).',
    parameters: [
      endpointIdParameter,
      {
        name: 'deliveryId',
        in: 'path',
        required: true,
        description: 'A delivery of the endpoint: its webhook-id.',
        schema: { type: 'string' },
        example: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      },
    ],
    responses: {
      '202': {
        description: 'Queued: the delivery, due now.',
        headers: noStore,
        content: json(ref('schemas', 'WebhookDelivery'), {
          again: { value: { ...delivery, nextAttemptAt: '2024-03-01T10:06:00.000Z' } },
        }),
      },
      '401': ref('responses', 'Unauthorized'),
      '403': viewerRefused(problem, 'Retrying a delivery'),
      '404': problemResponse('An unknown endpoint or delivery.', {
        unknownDelivery: problem(
          'not-found',
          "There is no delivery 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' of this endpoint.",
        ),
      }),
      '406': ref('responses', 'NotAcceptableJson'),
      '409': problemResponse(
        'The endpoint is disabled (`reason: endpoint-disabled`), or the delivery is being attempted (`in-flight`).',
        {
          disabled: problem(
            'conflict',
            'The endpoint is disabled: enable it (PUT with "enabled": true) before retrying its deliveries.',
            { reason: 'endpoint-disabled' },
          ),
        },
      ),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

const describedAs = (description: string, schema: Json): Json => ({ description, ...schema });
const text = (description: string, nullable = false): Json =>
  describedAs(description, { type: nullable ? ['string', 'null'] : 'string' });

/** The answers' schemas of the webhook routes. */
export const webhookSchemas: Record<string, Json> = {
  WebhookEndpoint: {
    type: 'object',
    description: 'A webhook endpoint (never its secret).',
    required: [
      'id',
      'url',
      'events',
      'description',
      'status',
      'disabledReason',
      'disabledAt',
      'revision',
      'createdAt',
      'updatedAt',
      'createdBy',
      'updatedBy',
    ],
    properties: {
      id: text('Its id.'),
      url: text('Where deliveries are POSTed.'),
      events: describedAs('The event types it receives.', {
        type: 'array',
        items: { type: 'string', enum: ['occupancy.above', 'parking.full', 'sensor.silent'] },
      }),
      description: text('What it is for.'),
      status: describedAs('Whether deliveries go to it.', {
        type: 'string',
        enum: ['enabled', 'disabled', 'disabled-by-service'],
      }),
      disabledReason: describedAs(
        'Why the service disabled it: `gone` (it answered 410), `failing` (deliveries failed throughout the retry schedule).',
        {
          type: ['string', 'null'],
          enum: ['gone', 'failing', null],
        },
      ),
      disabledAt: text('When it was disabled, or null.', true),
      revision: describedAs('Its revision: the ETag.', { type: 'integer', minimum: 1 }),
      createdAt: text('ISO 8601.'),
      updatedAt: text('ISO 8601.'),
      createdBy: text("The creating token's subject.", true),
      updatedBy: text("The last writer's subject; null when the service disabled it.", true),
    },
  },
  CreatedWebhookEndpoint: {
    description: 'The endpoint just registered, with its secret (shown this once).',
    allOf: [
      ref('schemas', 'WebhookEndpoint'),
      {
        type: 'object',
        required: ['secret'],
        properties: {
          secret: text('`whsec_` and the base64 of 32 random bytes: verify signatures with it. Never shown again.'),
        },
      },
    ],
  },
  WebhookEndpointList: {
    type: 'object',
    description: 'The organization’s endpoints.',
    required: ['endpoints'],
    properties: {
      endpoints: describedAs('Oldest first.', { type: 'array', items: ref('schemas', 'WebhookEndpoint') }),
    },
  },
  RotatedWebhookSecret: {
    type: 'object',
    description: 'A new secret.',
    required: ['secret', 'previousSecretExpiresAt'],
    properties: {
      secret: text('The new secret: shown this once.'),
      previousSecretExpiresAt: text('Until then the previous secret signs too (a second `v1,` signature).'),
    },
  },
  WebhookDelivery: {
    type: 'object',
    description: 'One delivery: one event for one endpoint, with every attempt.',
    required: [
      'id',
      'type',
      'eventId',
      'locationId',
      'createdAt',
      'status',
      'reason',
      'attempts',
      'nextAttemptAt',
      'payload',
    ],
    properties: {
      id: text('Its `webhook-id`, the same on every attempt.'),
      type: text('The event type (`webhook.test` for a test delivery).'),
      eventId: text('The event it delivers.'),
      locationId: text('The location the event concerns, or null.', true),
      createdAt: text('ISO 8601.'),
      status: describedAs(
        '`pending` (an attempt is due at `nextAttemptAt`), `delivered` (a 2xx), `failed` (410, or every attempt of the schedule failed), `abandoned` (the endpoint was disabled or deleted).',
        {
          type: 'string',
          enum: ['pending', 'delivered', 'failed', 'abandoned'],
        },
      ),
      reason: text('Why it failed or was abandoned, or null.', true),
      attempts: describedAs('Every attempt, oldest first (the newest 50).', {
        type: 'array',
        items: {
          type: 'object',
          description: 'One attempt.',
          required: ['at', 'status', 'latencyMs', 'error', 'response'],
          properties: {
            at: text('When it was sent: its `webhook-timestamp`.'),
            status: describedAs('The HTTP status answered, or null when none came.', { type: ['integer', 'null'] }),
            latencyMs: describedAs('Milliseconds until the answer was read (or the failure).', { type: 'integer' }),
            error: text('Why no answer came (`timeout`, `refused`, `network`, with details), or null.', true),
            response: text('The start of the answer’s body (256 characters).'),
          },
        },
      }),
      nextAttemptAt: text('When the next attempt is due, or null.', true),
      payload: describedAs('The body sent: `{type, timestamp, data}`.', { type: 'object' }),
    },
  },
  WebhookDeliveryLog: {
    type: 'object',
    description: 'An endpoint’s deliveries.',
    required: ['endpointId', 'status', 'failingSince', 'deliveries'],
    properties: {
      endpointId: text('The endpoint.'),
      status: describedAs('The endpoint’s status.', {
        type: 'string',
        enum: ['enabled', 'disabled', 'disabled-by-service'],
      }),
      failingSince: text('Since when its deliveries fail (no success since), or null.', true),
      deliveries: describedAs('Newest first.', { type: 'array', items: ref('schemas', 'WebhookDelivery') }),
    },
  },
};
