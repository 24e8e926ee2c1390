import type { Json } from './admin-operations';
import { ref } from './responses';

/** The schemas and headers of the administration API (./admin-operations.ts, ./ingest-client-operations.ts). */

const describedAs = (description: string, schema: Json): Json => ({ description, ...schema });

/** The answers' schemas of the administration API. */
export const adminSchemas: Record<string, Json> = {
  LocationResource: {
    description: 'A location with its sensor groups: what GET answers and POST and PUT answer after a write.',
    allOf: [
      ref('schemas', 'Location'),
      {
        type: 'object',
        required: ['sensorGroups'],
        properties: {
          sensorGroups: describedAs(
            'Its sensor groups in id order, each with its capacity (when set) and the capacity history the service keeps.',
            { type: 'array', items: ref('schemas', 'SensorGroup') },
          ),
        },
      },
    ],
  },
  LocationChange: {
    type: 'object',
    description: 'One write of a location.',
    required: ['revision', 'at', 'by', 'action', 'changes'],
    properties: {
      revision: describedAs('The revision after the write (its ETag then).', { type: 'integer', minimum: 1 }),
      at: describedAs('When (ISO 8601 UTC).', { type: 'string', format: 'date-time' }),
      by: describedAs("Who: the token's subject (`sub`), or an import's actor; null when unknown.", {
        type: ['string', 'null'],
      }),
      action: describedAs('`recreated`: created under the id of a deleted location (`reuseDeletedId`).', {
        type: 'string',
        enum: ['created', 'updated', 'deleted', 'recreated'],
      }),
      changes: describedAs('Each field that changed.', {
        type: 'array',
        items: {
          type: 'object',
          description: 'One field: `before` absent when it did not exist, `after` when it no longer does.',
          required: ['path'],
          properties: {
            path: describedAs(
              'A JSON Pointer into the location, sensor groups named by their id: `/name`, `/sensorGroups/3` (added or removed), `/sensorGroups/3/capacity`.',
              { type: 'string' },
            ),
            before: describedAs('The value before.', {}),
            after: describedAs('The value after.', {}),
          },
        },
      }),
      valuesOmitted: describedAs('True when the values were too large to keep: the paths are all there.', {
        type: 'boolean',
      }),
    },
  },
  LocationChangePage: {
    type: 'object',
    description: 'A page of a change log, newest first.',
    required: ['changes'],
    properties: {
      changes: describedAs('The entries.', { type: 'array', items: ref('schemas', 'LocationChange') }),
      next: describedAs('The path of the older page, when there may be one.', { type: 'string' }),
    },
  },
  IngestClient: {
    type: 'object',
    description: 'A gateway (machine client) of the organization.',
    required: ['clientId', 'organizationId', 'name', 'createdAt', 'revokedAt', 'lastUsedAt'],
    properties: {
      clientId: describedAs('Its client id (`client_id` of its tokens).', { type: 'string' }),
      organizationId: describedAs('The organization its documents belong to.', { type: 'string', format: 'uuid' }),
      name: describedAs('What it is called.', { type: 'string' }),
      createdAt: describedAs('When it was registered.', { type: 'string', format: 'date-time' }),
      revokedAt: describedAs('When it was revoked; null while it may send.', {
        type: ['string', 'null'],
        format: 'date-time',
      }),
      lastUsedAt: describedAs('When it last sent a batch (to within a minute); null when never.', {
        type: ['string', 'null'],
        format: 'date-time',
      }),
    },
  },
  RegisteredIngestClient: {
    description: 'A gateway just registered, with its secret (shown this once) and where to get tokens.',
    allOf: [
      ref('schemas', 'IngestClient'),
      {
        type: 'object',
        required: ['clientSecret', 'tokenUrl', 'scope'],
        properties: {
          clientSecret: describedAs('Its secret: store it with the gateway now, it is never shown again.', {
            type: 'string',
          }),
          tokenUrl: describedAs('The token endpoint (OAuth 2.0 client credentials, RFC 6749 §4.4).', {
            type: 'string',
          }),
          scope: describedAs('The scope its tokens carry.', { type: 'string', enum: ['lrs/ingest'] }),
        },
      },
    ],
  },
  IngestClientList: {
    type: 'object',
    description: 'The organization’s gateways.',
    required: ['clients'],
    properties: {
      clients: describedAs('In client id order, revoked ones too.', {
        type: 'array',
        items: ref('schemas', 'IngestClient'),
      }),
    },
  },
};

/** The strong ETag of the location resource. */
export const adminHeaders: Record<string, Json> = {
  LocationETag: {
    description:
      'The strong validator of the location: its revision (`"3"`). Send it in If-Match to change the location, in If-None-Match to revalidate. Never on a compressed answer (a strong validator names one representation).',
    schema: { type: 'string' },
    example: '"1"',
  },
};
