import * as z from 'zod/mini';
import { ReportRequestSchema } from '../report/schema/request';

/**
 * The OpenAPI 3.1 document of the service, generated from the same zod schemas that validate
 * requests (OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits natively). Written to
 * openapi.json by `npm run openapi` and served by the local server; never part of a Lambda bundle.
 */
export function openApiDocument(serverUrl = 'http://localhost:3000'): Record<string, unknown> {
  const problem = { $ref: '#/components/schemas/Problem' };
  const problemResponse = (description: string) => ({ description, content: { 'application/problem+json': { schema: problem } } });
  const errors = {
    '400': problemResponse('Invalid request: every error with its JSON Pointer in `errors`.'),
    '401': {
      description:
        'Missing, expired, not yet valid or invalid bearer token, or one whose organization claim is not a UUID. Deployed, API Gateway\'s JWT authorizer refuses the request before the service sees it: `{"message":"Unauthorized"}` as application/json, with the reason in `www-authenticate` (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-jwt.html). The local server answers problem+json; so does the service for a token whose organization claim is missing.',
      headers: {
        'WWW-Authenticate': {
          description: 'Bearer challenge; from API Gateway with `error="invalid_token"` and an `error_description` such as "the token has expired".',
          schema: { type: 'string', example: 'Bearer scope="" error="invalid_token" error_description="the token has expired"' },
        },
      },
      content: {
        'application/problem+json': { schema: problem },
        'application/json': { schema: { $ref: '#/components/schemas/GatewayUnauthorized' } },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Location and Reporting Service',
      version: '1.0.0',
      description: 'Locations, live occupancy per sensor group, and reporting queries over movement events, parking lot stats and parking events.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths: {
      '/locations': {
        get: {
          operationId: 'listLocations',
          summary: "The caller's organization's locations, ordered by id.",
          responses: {
            '200': { description: 'Locations', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Location' } } } } },
            '401': errors['401'],
            '406': problemResponse('Accept does not allow application/json.'),
          },
        },
      },
      '/locations/{locationId}/insights/live': {
        get: {
          operationId: 'getLiveInsights',
          summary: 'Live occupancy per sensor group (refreshed every 5 minutes).',
          parameters: [
            { name: 'locationId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'filter', in: 'query', required: true, description: 'Comma-separated insight kinds. Allowed: occupancy.', schema: { type: 'string', example: 'occupancy' } },
          ],
          responses: {
            '200': { description: 'Live insights', content: { 'application/json': { schema: { $ref: '#/components/schemas/LiveInsights' } } } },
            ...errors,
            '404': problemResponse("Unknown location, or another organization's."),
            '406': problemResponse('Accept does not allow application/json.'),
          },
        },
      },
      '/reports:query': {
        post: {
          operationId: 'queryReport',
          summary: 'Runs a report: filters plus a pipeline of aggregations, as JSON or CSV.',
          parameters: [
            {
              name: 'Accept',
              in: 'header',
              required: false,
              description: 'application/json or text/csv (media ranges and q-values as in RFC 9110; the parameters charset=utf-8 and, for CSV, header=present may be given).',
              schema: { type: 'string', default: 'application/json', examples: ['text/csv', 'text/csv; charset=utf-8'] },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ReportRequest' } } } },
          responses: {
            '200': {
              description: 'Shape 1 (array of time buckets) when the pipeline starts with dateHistogram, else shape 2 (one object).',
              headers: {
                'X-Report-Truncated': { description: 'true when a terms aggregation had more keys than the cap.', schema: { type: 'string' } },
                Deprecation: { description: 'Present when the request names a deprecated field (crossedPaths.start).', schema: { type: 'string' } },
              },
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/ReportResponse' } },
                'text/csv': { schema: { type: 'string' } },
              },
            },
            ...errors,
            '406': problemResponse('Accept is neither application/json nor text/csv.'),
            '413': problemResponse('Body larger than 64 KiB.'),
            '415': {
              ...problemResponse('Body not declared as application/json (no Content-Type, another media type, or a charset other than UTF-8); `allowed` names application/json.'),
              headers: { Accept: { description: 'The media type a body may have: application/json.', schema: { type: 'string' } } },
            },
            '422': problemResponse('The pipeline would create more buckets than the engine allows; use splitInterval.'),
            '503': problemResponse('The engine is unavailable; retry after Retry-After seconds.'),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        ReportRequest: withoutDialect(z.toJSONSchema(ReportRequestSchema, { target: 'draft-2020-12' })),
        ReportResponse: {
          oneOf: [
            {
              type: 'array',
              items: { type: 'object', required: ['timestamp'], properties: { timestamp: { type: 'string', format: 'date-time' } }, additionalProperties: { type: 'number' } },
            },
            { type: 'object', additionalProperties: { type: 'number' } },
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
        GatewayUnauthorized: {
          type: 'object',
          description: "API Gateway's own answer when its JWT authorizer refuses a token (deployed only).",
          required: ['message'],
          properties: { message: { type: 'string', const: 'Unauthorized' } },
        },
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details.',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string', format: 'uri' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: {
              type: 'array',
              items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string', description: 'JSON Pointer' }, message: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
}

/** Component schemas inherit the document's dialect; a per-schema $schema is noise there. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
