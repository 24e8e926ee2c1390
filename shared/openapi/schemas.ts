import * as z from 'zod/mini';
import { ReportRequestSchema } from '../report/schema/request';

type Json = Record<string, unknown>;

/** The component schemas: the request from the validating zod schema, the answers written out. */
export function componentSchemas(): Record<string, Json> {
  return {
    ReportRequest: withoutDialect(z.toJSONSchema(ReportRequestSchema, { target: 'draft-2020-12' })),
    ReportResponse: {
      oneOf: [
        {
          type: 'array',
          description: 'Shape 1: one object per time bucket, its start and one number per series (a series without documents in a bucket is left out).',
          items: { type: 'object', required: ['timestamp'], properties: { timestamp: { type: 'string', format: 'date-time' } }, additionalProperties: { type: 'number' } },
        },
        { type: 'object', description: 'Shape 2: one number per series and stat.', additionalProperties: { type: 'number' } },
      ],
    },
    Location: {
      type: 'object',
      required: ['id', 'organizationId', 'type', 'timezone', 'createdBy', 'updatedBy', 'createdAt', 'updatedAt'],
      properties: {
        id: { type: 'string' },
        organizationId: { type: 'string', format: 'uuid' },
        type: { type: 'string' },
        timezone: { type: 'string', description: 'IANA time zone' },
        createdBy: { type: ['string', 'null'] },
        updatedBy: { type: ['string', 'null'] },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    LiveInsights: {
      type: 'object',
      required: ['insights'],
      properties: {
        insights: {
          type: 'object',
          properties: {
            occupancy: {
              type: 'array',
              items: {
                type: 'object',
                required: ['sensorGroup', 'occupancy'],
                properties: {
                  sensorGroup: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
                  occupancy: { type: 'number' },
                },
              },
            },
          },
        },
      },
    },
    Health: {
      type: 'object',
      description: 'Whether the service can answer: `ok` when every check is; a check that is not says `fail` (an error, logged) or `timeout` (no answer within 3 s).',
      required: ['status', 'checks'],
      properties: {
        status: { type: 'string', enum: ['ok', 'fail'] },
        checks: {
          type: 'object',
          required: ['engine', 'table'],
          properties: {
            engine: { $ref: '#/components/schemas/CheckStatus', description: 'The report engine (OpenSearch in AWS, DuckDB locally) answers a query.' },
            table: { $ref: '#/components/schemas/CheckStatus', description: 'The DynamoDB table of locations and occupancy answers a read.' },
          },
        },
      },
    },
    CheckStatus: { type: 'string', enum: ['ok', 'fail', 'timeout'] },
    GatewayMessage: {
      type: 'object',
      description: "API Gateway's own answer (deployed only), before or instead of the function: the JWT authorizer's 401, throttling's 429, a function that failed (500) or did not answer in time (503).",
      required: ['message'],
      properties: { message: { type: 'string', enum: ['Unauthorized', 'Too Many Requests', 'Internal Server Error', 'Service Unavailable'] } },
    },
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details, with the id of the request.',
      required: ['type', 'title', 'status', 'detail'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        requestId: { type: 'string', description: 'The id of the request, as in X-Request-Id: quote it to find the request in the logs.' },
        errors: {
          type: 'array',
          description: 'Every invalid part of the request (400).',
          items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string', description: 'JSON Pointer' }, message: { type: 'string' } } },
        },
        allowed: { type: 'array', items: { type: 'string' }, description: 'The media types allowed (406, 415).' },
        maxBuckets: { type: 'integer', description: "The engine's bucket limit (422 too-many-buckets)." },
        bytes: { type: 'integer', description: 'The size the answer would have had, as sent (422 response-too-large).' },
        maxBytes: { type: 'integer', description: 'The most an answer may take, as sent (422 response-too-large).' },
        timeoutMs: { type: 'integer', description: 'The time the report had before it was stopped, ms (503 report-timeout).' },
      },
    },
  };
}

/** Component schemas inherit the document's dialect; a per-schema $schema is noise there. */
function withoutDialect(schema: Json): Json {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
