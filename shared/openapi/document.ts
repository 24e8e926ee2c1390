import { createLocation, deleteLocation, getLocation, listLocationChanges, replaceLocation } from './admin-operations';
import { adminHeaders, adminSchemas } from './admin-schemas';
import { listIngestClients, registerIngestClient, revokeIngestClient } from './ingest-client-operations';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  replaceWebhookEndpoint,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTest,
  webhookSchemas,
} from './webhook-operations';
import {
  alertHeaders,
  alertSchemas,
  createAlertRule,
  deleteAlertRule,
  getAlertRule,
  listAlertRules,
  replaceAlertRule,
} from './alert-operations';
import { historySchema, occupancyHistory } from './history-operation';
import { overviewSchema, sitesOverview } from './overview-operation';
import { ingestDocuments, ingestHeaders, ingestParameters, ingestSchemas } from './ingest-operation';
import { health, problemsPage } from './public-operations';
import {
  cacheControl,
  common,
  engineUnavailable,
  getHeaders,
  header,
  headers,
  insightParameters,
  parameters,
  problemExample,
  problemResponse,
  ref,
  sharedResponses,
  type ProblemExample,
} from './responses';
import { componentSchemas } from './schemas';
import { listLocations } from './locations-operation';

type Json = Record<string, unknown>;

const MARCH_1_TO_4 = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-04T00:00:00Z' };

export interface OpenApiOptions {
  /** Where the problem types are documented. @default DEFAULT_PROBLEM_TYPE_BASE (shared/problem-uri.ts) */
  readonly problemTypeBase?: string;
}

/**
 * The OpenAPI 3.1 document of the service: the request schema generated from the zod schemas that
 * validate requests (OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod emits natively), every
 * status the service and API Gateway answer, with headers and an example each. Written to
 * openapi.json by `npm run openapi`, linted by Redocly CLI in the tests (redocly.yaml), served by
 * the local server; never part of a Lambda bundle.
 */
export function openApiDocument(options: OpenApiOptions = {}): Json {
  const problem = problemExample(options.problemTypeBase);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Location and Reporting Service',
      version: '1.0.0',
      description:
        'Locations, live occupancy per sensor group, and reporting queries over movement events, parking lot stats and parking events. Every answer carries `X-Request-Id`; answers of 1 KiB or more are compressed (br or gzip) when Accept-Encoding allows. Every GET operation also answers HEAD (the headers of GET, no body); another method on a path answers 405 with `Allow`.',
      license: { name: 'Proprietary', url: 'https://lrs.example.com/terms' },
    },
    // Relative: the API is where this document is served from (the local server, or the stack's ApiUrl).
    servers: [
      {
        url: '/',
        description:
          'The API serving this document: http://localhost:3000 for `npm start`, the `ApiUrl` output of the stack in AWS.',
      },
    ],
    security: [{ bearer: [] }],
    tags: [
      { name: 'locations', description: 'Locations and their live occupancy.' },
      {
        name: 'administration',
        description:
          'Managing locations and gateways: the admin role (the Cognito group `admin`; `npm run token -- --role admin` locally).',
      },
      {
        name: 'webhooks',
        description:
          'Signed webhooks (Standard Webhooks): endpoints, their deliveries and retries (docs/webhooks.md). Admins of the whole organization write; any user of it reads.',
      },
      {
        name: 'alerts',
        description:
          'Alert rules (docs/alerts.md): occupancy above a level, a parking lot full, a sensor silent; evaluated at every refresh, each firing once when it starts and once when it ends. Admins write; any user reads, within the token’s grant.',
      },
      { name: 'reports', description: 'Reporting queries.' },
      { name: 'ingest', description: 'Documents in: what gateways and the backfill send.' },
      { name: 'operations', description: 'For monitors and load balancers.' },
      { name: 'documentation', description: 'The pages the answers point to.' },
    ],
    paths: {
      '/locations': { get: listLocations(), post: createLocation(problem) },
      '/locations/{locationId}': {
        get: getLocation(problem),
        put: replaceLocation(problem),
        delete: deleteLocation(problem),
      },
      '/locations/{locationId}/changes': { get: listLocationChanges(problem) },
      '/locations/{locationId}/insights/live': { get: liveInsights(problem) },
      '/locations/{locationId}/insights/history': { get: occupancyHistory(problem) },
      '/insights/overview': { get: sitesOverview(problem) },
      '/reports:query': { post: queryReport(problem) },
      '/ingest/{collection}': { post: ingestDocuments(problem) },
      '/ingest-clients': { post: registerIngestClient(problem), get: listIngestClients(problem) },
      '/ingest-clients/{clientId}': { delete: revokeIngestClient(problem) },
      '/webhook-endpoints': { post: createWebhookEndpoint(problem), get: listWebhookEndpoints() },
      '/webhook-endpoints/{endpointId}': {
        get: getWebhookEndpoint(problem),
        put: replaceWebhookEndpoint(problem),
        delete: deleteWebhookEndpoint(problem),
      },
      '/webhook-endpoints/{endpointId}/test': { post: sendWebhookTest(problem) },
      '/webhook-endpoints/{endpointId}/secret:rotate': { post: rotateWebhookSecret(problem) },
      '/webhook-endpoints/{endpointId}/deliveries': { get: listWebhookDeliveries(problem) },
      '/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry': { post: retryWebhookDelivery(problem) },
      '/alert-rules': { post: createAlertRule(problem), get: listAlertRules() },
      '/alert-rules/{ruleId}': {
        get: getAlertRule(problem),
        put: replaceAlertRule(problem),
        delete: deleteAlertRule(problem),
      },
      '/health': { get: health() },
      '/problems': { get: problemsPage() },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "An ID token whose `custom:organizationId` claim names the caller's organization; `cognito:groups` holding `admin` makes it an admin's (a viewer's otherwise), and `custom:locations` (ids separated by commas) limits it to those locations (docs/access.md).",
        },
      },
      headers: { ...headers, ...ingestHeaders, ...adminHeaders, ...alertHeaders },
      parameters: { ...parameters, ...ingestParameters },
      responses: sharedResponses(problem),
      schemas: {
        ...componentSchemas(options.problemTypeBase),
        ...ingestSchemas,
        ...adminSchemas,
        ...webhookSchemas,
        ...alertSchemas,
        OccupancyHistory: historySchema,
        SitesOverview: overviewSchema,
      },
    },
  };
}

function liveInsights(problem: ProblemExample): Json {
  return {
    operationId: 'getLiveInsights',
    tags: ['locations'],
    summary:
      'Live occupancy per sensor group (refreshed every 5 minutes), with utilization where a capacity is set, and sensor health.',
    description:
      "Occupancy of each open sensor group counted in its current open period, from the cache the refresh writes every 5 minutes; a group with a capacity also has `capacity` (its capacity now) and `utilization` (occupancy ÷ capacity, rounded half up to 3 decimals). Cache-Control lasts until the next refresh has written; If-None-Match with the ETag gives 304 while the occupancy is the same, so a dashboard polling every minute moves no bytes. `health`: for every camera of the sensor groups' lines and every parking lot with stats in the last 28 days, its last event and whether it is `ok`, `silent` (nothing for longer than its usual gap at this hour, learned from its own 28 days before today, while a group of it is open) or `unknown` (less than a week of history); the rule is in docs/sensor-health.md.",
    parameters: [
      ...insightParameters(['occupancy', 'health']),
      ref('parameters', 'AcceptEncoding'),
      ref('parameters', 'IfNoneMatch'),
    ],
    responses: {
      '200': {
        description: 'Live insights; an open sensor group without fresh data, or a closed one, is left out.',
        headers: getHeaders(
          cacheControl(
            'private, max-age=210',
            'Fresh until the next refresh has written (the refresh runs on the 5-minute marks; at 12:02:30 it is 210 s).',
          ),
        ),
        content: {
          'application/json': {
            schema: ref('schemas', 'LiveInsights'),
            examples: {
              open: {
                summary: 'Two open groups; the first has a capacity',
                value: {
                  insights: {
                    occupancy: [
                      { sensorGroup: { id: 1, name: 'Entrance hall' }, occupancy: 2, capacity: 40, utilization: 0.05 },
                      { sensorGroup: { id: 3, name: 'Parking' }, occupancy: 0 },
                    ],
                  },
                },
              },
              closed: { summary: 'Closed, or no data', value: { insights: { occupancy: [] } } },
              health: {
                summary: 'filter=health: a silent camera, a lot without enough history',
                value: {
                  insights: {
                    health: {
                      cameras: [
                        {
                          trackingCameraId: 'cam-gate',
                          sensorGroupIds: [1],
                          status: 'silent',
                          lastEventAt: '2024-06-11T08:00:00.000Z',
                          usualGapSeconds: 600,
                        },
                        {
                          trackingCameraId: 'cam-lunch',
                          sensorGroupIds: [1],
                          status: 'ok',
                          lastEventAt: '2024-06-11T09:50:00.000Z',
                          usualGapSeconds: null,
                        },
                      ],
                      parkingLots: [
                        {
                          parkingLotId: 'P1',
                          status: 'unknown',
                          lastEventAt: '2024-06-11T10:45:00.000Z',
                          usualGapSeconds: null,
                        },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
      },
      '304': ref('responses', 'NotModified'),
      '400': problemResponse('`filter` is missing, empty or names another kind.', {
        unknownKind: problem('validation', "/query/filter: unknown insight kind 'dwell'; allowed: occupancy, health", {
          errors: [{ path: '/query/filter', message: "unknown insight kind 'dwell'; allowed: occupancy, health" }],
        }),
      }),
      '401': ref('responses', 'Unauthorized'),
      '404': problemResponse(
        "Unknown location, another organization's, or one outside the token's location grant (the same answer).",
        { unknownLocation: problem('not-found', "There is no location 'berlin-mall'.") },
      ),
      '406': ref('responses', 'NotAcceptableJson'),
      ...common,
      '503': ref('responses', 'GatewayTimeout'),
    },
  };
}

function queryReport(problem: ProblemExample): Json {
  const dailyByLabel = {
    filters: [MARCH_1_TO_4],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
    ],
  };
  const dayOverDay = {
    ...dailyByLabel,
    filters: [{ ...MARCH_1_TO_4, from: '2024-03-02T00:00:00Z' }],
    compare: { offset: '1d' },
  };
  return {
    operationId: 'queryReport',
    tags: ['reports'],
    summary: 'Runs a report: filters plus a pipeline of aggregations, as JSON or CSV.',
    description:
      "The caller's organization's documents only, and with a location grant its granted locations only. JSON or CSV by Accept; compressed by Accept-Encoding from 1 KiB on, and the 5.5 MiB ceiling applies to the answer as sent, so a compressed report may be many times larger than a plain one. A long time series may run in slices (`splitInterval`).",
    parameters: [ref('parameters', 'AcceptEncoding')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref('schemas', 'ReportRequest'),
          examples: {
            dailyByLabel: { summary: 'Objects per day and label', value: dailyByLabel },
            polygonStats: {
              summary: 'Time spent per polygon',
              value: {
                aggregations: [
                  { type: 'nested', path: 'polygons' },
                  { type: 'terms', field: 'polygons.id' },
                  { type: 'stats', field: 'polygons.value', max: true, sum: true },
                ],
              },
            },
            parkingPercentiles: {
              summary: 'Median and 90th percentile of parking time per lot (series `lot-1 median`, `lot-1 p90`, …)',
              value: {
                source: 'parkingEvents',
                aggregations: [
                  { type: 'terms', field: 'parkingLotId' },
                  { type: 'stats', field: 'duration', count: true, median: true, percentiles: [90] },
                ],
              },
            },
            busiestHour: {
              summary:
                'A weekly profile: events of 2024 by weekday and local hour in Berlin (series `monday 08:00`, …)',
              value: {
                source: 'movementEvents',
                filters: [
                  { type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' },
                ],
                aggregations: [
                  { type: 'profile', unit: 'weekday', timeZone: 'Europe/Berlin' },
                  { type: 'profile', unit: 'hour', timeZone: 'Europe/Berlin' },
                ],
              },
            },
            dayOverDay: {
              summary: 'Each day by label beside the day before (`compare`; `1w`, `1M`, `1y` alike)',
              value: dayOverDay,
            },
            split: {
              summary: 'A year of 15-minute buckets, in monthly slices',
              value: {
                source: 'movementEvents',
                filters: [
                  { type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' },
                ],
                aggregations: [{ type: 'dateHistogram', interval: '15m', timeZone: 'Europe/Berlin' }],
                splitInterval: '1M',
              },
            },
          },
        },
      },
    },
    responses: {
      '200': {
        description:
          'Shape 1 (array of time buckets) when the pipeline starts with dateHistogram, else shape 2 (one object); with `compare`, both periods paired (`current`, `previous`). JSON or CSV by Accept (application/json by default).',
        headers: {
          'Cache-Control': cacheControl(
            'no-store',
            "A report is the organization's data as of the moment it was asked: no cache, private or shared, keeps it.",
          ),
          'X-Report-Truncated': header('X-Report-Truncated'),
          Deprecation: header('Deprecation'),
          'Server-Timing': header('Server-Timing'),
          Vary: {
            description: 'Reports are chosen by Accept and Accept-Encoding.',
            schema: { type: 'string' },
            example: 'Accept, Accept-Encoding',
          },
          'Content-Encoding': header('Content-Encoding'),
          'X-Request-Id': header('X-Request-Id'),
        },
        content: {
          'application/json': {
            schema: ref('schemas', 'ReportResponse'),
            examples: {
              dailyByLabel: {
                summary: 'Shape 1, the answer to dailyByLabel',
                value: [
                  { timestamp: '2024-03-01T00:00:00.000Z', car: 2, person: 1 },
                  { timestamp: '2024-03-02T00:00:00.000Z', truck: 1 },
                  { timestamp: '2024-03-03T00:00:00.000Z', car: 1 },
                ],
              },
              polygonStats: {
                summary: 'Shape 2, the answer to polygonStats',
                value: { 'z1 max': 10, 'z1 avg': 5, 'z1 sum': 15, 'z2 max': 6, 'z2 avg': 4, 'z2 sum': 8 },
              },
              dayOverDay: {
                summary:
                  "The answer to dayOverDay: pairs of days, the report's in `current`, the day before in `previous`",
                value: [
                  {
                    current: { timestamp: '2024-03-02T00:00:00.000Z', truck: 1 },
                    previous: { timestamp: '2024-03-01T00:00:00.000Z', car: 2, person: 1 },
                  },
                  {
                    current: { timestamp: '2024-03-03T00:00:00.000Z', car: 1 },
                    previous: { timestamp: '2024-03-02T00:00:00.000Z', truck: 1 },
                  },
                ],
              },
              parkingPercentiles: {
                summary:
                  'Shape 2, the answer to parkingPercentiles: a lot whose events have no duration has a count of 0 and no percentiles',
                value: { 'lot-1 count': 3, 'lot-1 median': 600.5, 'lot-1 p90': 1200, 'lot-2 count': 0 },
              },
            },
          },
          'text/csv': {
            schema: { type: 'string' },
            examples: {
              dailyByLabel: {
                summary: 'The answer to dailyByLabel as CSV (RFC 4180, CRLF)',
                value:
                  'timestamp,car,person,truck\r\n2024-03-01T00:00:00.000Z,2,1,0\r\n2024-03-02T00:00:00.000Z,0,0,1\r\n2024-03-03T00:00:00.000Z,1,0,0\r\n',
              },
              dayOverDay: {
                summary:
                  "The answer to dayOverDay as CSV: the earlier period's columns after the report's, named `previous <series>`",
                value:
                  'timestamp,car,person,truck,previous timestamp,previous car,previous person,previous truck\r\n' +
                  '2024-03-02T00:00:00.000Z,0,0,1,2024-03-01T00:00:00.000Z,2,1,0\r\n2024-03-03T00:00:00.000Z,1,0,0,2024-03-02T00:00:00.000Z,0,0,1\r\n',
              },
            },
          },
        },
      },
      '400': problemResponse(
        'The body breaks the request language (every error with its JSON Pointer in `errors`), or is not JSON, or nests arrays and objects more than 64 levels deep.',
        {
          invalidInterval: problem(
            'validation',
            '/aggregations/0/interval: must be <n>s, <n>m, <n>h or <n>d (fixed, n from 1) or 1w, 1M, 1q, 1y (calendar)',
            {
              errors: [
                {
                  path: '/aggregations/0/interval',
                  message: 'must be <n>s, <n>m, <n>h or <n>d (fixed, n from 1) or 1w, 1M, 1q, 1y (calendar)',
                },
              ],
            },
          ),
          notJson: problem('malformed-body', 'The body is not valid JSON: Unexpected end of JSON input'),
        },
      ),
      '401': ref('responses', 'Unauthorized'),
      '403': problemResponse(
        "`locationIds` names a location outside the token's location grant (`custom:locations`): refused, never narrowed silently. Without `locationIds`, such a token's report covers its granted locations.",
        {
          outsideGrant: problem(
            'forbidden',
            "A location of locationIds is outside this token's grant: /locationIds/0.",
            {
              errors: [
                { path: '/locationIds/0', message: "'berlin-mall' is not among the locations this token may see" },
              ],
            },
          ),
        },
        { 'WWW-Authenticate': header('WWW-Authenticate') },
      ),
      '406': problemResponse('Accept is neither application/json nor text/csv.', {
        notAcceptable: problem('not-acceptable', 'Allowed values of Accept: application/json, text/csv.', {
          allowed: ['application/json', 'text/csv'],
        }),
      }),
      '413': problemResponse('Body larger than 64 KiB.', {
        tooLarge: problem('payload-too-large', 'The body must be at most 65536 bytes.'),
      }),
      '415': problemResponse(
        'Body not declared as application/json (no Content-Type, another media type, or a charset other than UTF-8), or sent with a Content-Encoding (send it as it is: `Accept-Encoding: identity` says so); `allowed` names application/json.',
        {
          otherType: problem(
            'unsupported-media-type',
            'Content-Type text/plain is not supported; the body must be application/json.',
            { allowed: ['application/json'] },
          ),
        },
        {
          Accept: {
            description: 'The media type a body may have: application/json.',
            schema: { type: 'string' },
            example: 'application/json',
          },
        },
      ),
      '422': problemResponse(
        'The pipeline would create more buckets than the engine allows (use splitInterval; refused before any work when the buckets that exist whatever the data, such as every `filters` bucket, already exceed it), or the answer would be over 5.5 MiB as sent (ask for it compressed, as CSV, or smaller).',
        {
          tooManyBuckets: problem(
            'too-many-buckets',
            'This report would create more buckets than the bucket limit of 65535. Narrow the time range, use a coarser dateHistogram interval, or add "splitInterval" (for example "1M") to run it in slices.',
            { maxBuckets: 65535 },
          ),
          responseTooLarge: problem(
            'response-too-large',
            'This report would be 7.3 MiB, more than the 5.5 MiB a response may carry. Ask for it as CSV (Accept: text/csv, 3.9 MiB), or narrow the time range, use a coarser dateHistogram interval, or filter to fewer series.',
            { bytes: 7654321, maxBytes: 5767168 },
          ),
        },
      ),
      ...common,
      '503': engineUnavailable(
        problem,
        'The engine is unreachable or overloaded, or the report needed more memory than the engine gives the reports running at once (`report-too-expensive`), or it reached its deadline (the function\'s time less 2 s) and its query was stopped (`report-timeout`): retry after Retry-After seconds, or make the report cheaper. Deployed, API Gateway answers `{"message":"Service Unavailable"}` itself when the function does not answer within 30 s.',
        {
          reportTimeout: problem(
            'report-timeout',
            'This report did not finish within the 27.0 s a report may take, and its query was stopped. Try again when the service is less busy, or make the report cheaper: narrow the time range, use fewer buckets (a coarser dateHistogram interval, fewer filters buckets), or add "splitInterval".',
            { timeoutMs: 27000 },
          ),
          reportTooExpensive: problem(
            'report-too-expensive',
            'This report needed more memory than the report engine gives the reports running at once, and was stopped. Try again when fewer reports run; if it is refused again, make it cheaper: narrow the time range, use fewer buckets (a coarser dateHistogram interval, fewer filters buckets or terms values), or add "splitInterval".',
          ),
        },
      ),
    },
  };
}
