/**
 * The reusable parts of the OpenAPI document's answers: headers, parameters, and one response per
 * error status, each with an example of what the service (or API Gateway in front of it) sends.
 * Problem examples are real answers, copied from the handlers with the request id below.
 */
import { PROBLEM_TYPES, type ProblemSlug } from '../problem-types';
import { problemTypeUri } from '../problem-uri';

type Json = Record<string, unknown>;

/** The request id the examples show (the form of API Gateway's). */
export const EXAMPLE_REQUEST_ID = 'Jq3q5j9xIAMEbAg=';

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const header = (name: string) => ref('headers', name);
const problemSchema = ref('schemas', 'Problem');
const gatewaySchema = ref('schemas', 'GatewayMessage');

/** A problem example: the members the service sends, in its order, with the request id last. */
export type ProblemExample = (slug: ProblemSlug, detail: string, extensions?: Json) => { value: Json };

/** Problem examples whose types are documented at `typeBase` (see shared/problem-types.ts). */
export const problemExample =
  (typeBase?: string): ProblemExample =>
  (slug, detail, extensions = {}) => ({
    value: {
      type: problemTypeUri(slug, typeBase),
      title: PROBLEM_TYPES[slug].title,
      status: PROBLEM_TYPES[slug].status,
      detail,
      ...extensions,
      requestId: EXAMPLE_REQUEST_ID,
    },
  });

const problemResponse = (
  description: string,
  examples: Record<string, { summary?: string; value: Json }>,
  headers: Json = {},
) => ({
  description,
  headers: { 'X-Request-Id': header('X-Request-Id'), ...headers },
  content: { 'application/problem+json': { schema: problemSchema, examples } },
});

export const headers: Record<string, Json> = {
  'X-Request-Id': {
    description:
      "The request's id: API Gateway's request id in AWS (its access log's `requestId`; API Gateway's own answers carry it as `apigw-requestid` instead), one per request locally. The same id is the problem's `requestId` and the `correlation_id` of the request's log lines.",
    schema: { type: 'string' },
    example: EXAMPLE_REQUEST_ID,
  },
  ETag: {
    description:
      'A weak validator of the answer (weak because the same JSON may be sent compressed); send it back in If-None-Match to get a 304 while nothing changed.',
    schema: { type: 'string' },
    example: 'W/"pVnU0hbnj6c8AgHFEaRHDw"',
  },
  'Cache-Control': {
    description: 'How long the answer may be reused (see each operation).',
    schema: { type: 'string' },
    example: 'private, no-cache',
  },
  Vary: {
    description: 'The request headers the answer was chosen by: Accept-Encoding always, Accept too for reports.',
    schema: { type: 'string' },
    example: 'Accept-Encoding',
  },
  'Content-Encoding': {
    description:
      'Present when the body is compressed: `br` or `gzip`, chosen by Accept-Encoding (br when both weigh the same), for bodies of 1 KiB or more.',
    schema: { type: 'string', enum: ['br', 'gzip'] },
    example: 'gzip',
  },
  'X-Report-Truncated': {
    description: '`true` when a terms aggregation had more keys than the cap and kept the smallest.',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
  'Server-Timing': {
    description:
      'Which rows answered (docs/rollups.md), when rollups are on (absent when they are off): `source;desc="rollup"` (exact pre-aggregated rollups), `"raw"` (the documents) or, for a `splitInterval` or `compare` report whose parts differ, `"mixed"`. ' +
      'With `raw` or `mixed`, `raw-reason;desc="…"` says why rollups could not answer (the first such part); with `rollup`, `rollup-window;desc="<from>/<to>"` is the ISO 8601 interval read from rollup rows, the rest of the range (partial 15-minute grains at its ends, documents after the rollups\' watermark) read from the documents. ' +
      'The body is the same bytes either way. W3C Server Timing syntax: browsers show it in their network panel.',
    schema: { type: 'string' },
    example: 'source;desc="raw", raw-reason;desc="reverseNested counts each document once per bucket its items reach"',
  },
  Deprecation: {
    description: 'RFC 9745: present when the request names a deprecated field (crossedPaths.start).',
    schema: { type: 'string' },
    example: '@1795305600',
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' }, example: 5 },
  Allow: {
    description:
      'The methods the path answers (RFC 9110, 10.2.1): `GET, POST, HEAD, OPTIONS` for `/locations`, `POST, OPTIONS` for `/reports:query`.',
    schema: { type: 'string' },
    example: 'GET, POST, HEAD, OPTIONS',
  },
  'WWW-Authenticate': {
    description:
      'Bearer challenge; from API Gateway with `error="invalid_token"` and an `error_description` such as "the token has expired".',
    schema: { type: 'string' },
    example: 'Bearer scope="" error="invalid_token" error_description="the token has expired"',
  },
};

export const parameters: Record<string, Json> = {
  AcceptEncoding: {
    name: 'Accept-Encoding',
    in: 'header',
    required: false,
    description:
      'Content codings the client takes (RFC 9110, 12.5.3): `br` and `gzip` are answered; without it, or for a short body, the answer is sent as it is.',
    schema: { type: 'string' },
    example: 'gzip, deflate, br',
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag of an earlier answer (or `*`): 304 with no body while the answer is still the same.',
    schema: { type: 'string' },
    example: 'W/"pVnU0hbnj6c8AgHFEaRHDw"',
  },
};

/** The path and query parameters of the insight operations (live insights, occupancy history). */
export const insightParameters = (kinds: readonly string[] = ['occupancy']): Json[] => [
  {
    name: 'locationId',
    in: 'path',
    required: true,
    description: "A location of the caller's organization.",
    schema: { type: 'string' },
    example: 'berlin-mall',
  },
  {
    name: 'filter',
    in: 'query',
    required: true,
    description: `Comma-separated insight kinds. Allowed: ${kinds.join(', ')}.`,
    schema: { type: 'string' },
    example: kinds.join(','),
  },
];

/** The responses several operations share. */
export const sharedResponses = (problem: ProblemExample): Record<string, Json> => ({
  NotModified: {
    description:
      'The answer has not changed since the ETag given in If-None-Match: no body; the headers of the 200 it stands for.',
    headers: {
      ETag: header('ETag'),
      'Cache-Control': header('Cache-Control'),
      Vary: header('Vary'),
      'X-Request-Id': header('X-Request-Id'),
    },
  },
  Unauthorized: {
    description:
      'Missing, expired, not yet valid or invalid bearer token, or one whose organization claim is not a UUID. Deployed, API Gateway\'s JWT authorizer refuses the request before the service sees it: `{"message":"Unauthorized"}` as application/json, with the reason in `www-authenticate` (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-jwt.html). The local server answers problem+json; so does the service for a token whose organization claim is missing.',
    headers: { 'WWW-Authenticate': header('WWW-Authenticate'), 'X-Request-Id': header('X-Request-Id') },
    content: {
      'application/problem+json': {
        schema: problemSchema,
        examples: { noOrganization: problem('unauthorized', 'The token carries no organization.') },
      },
      'application/json': {
        schema: gatewaySchema,
        examples: {
          authorizer: { summary: "API Gateway's JWT authorizer (deployed)", value: { message: 'Unauthorized' } },
        },
      },
    },
  },
  NotAcceptableJson: problemResponse('Accept does not allow application/json.', {
    notAcceptable: problem('not-acceptable', 'Allowed values of Accept: application/json.', {
      allowed: ['application/json'],
    }),
  }),
  MethodNotAllowed: problemResponse(
    'The path exists, but not with this method (`DELETE /locations`, `GET /reports:query`): `Allow` and `allowed` list its methods. Every path with GET also answers HEAD, with the headers of GET and no body; every path answers OPTIONS (a CORS preflight among others) 204 with `Allow`, without a token. Deployed, a path behind the JWT authorizer answers 401 first without a valid token.',
    {
      deleteLocations: problem(
        'method-not-allowed',
        '/locations does not answer DELETE; it answers GET, POST, HEAD, OPTIONS.',
        { allowed: ['GET', 'POST', 'HEAD', 'OPTIONS'] },
      ),
    },
    { Allow: header('Allow') },
  ),
  MisdirectedRequest: problemResponse(
    'The local server (`npm start`) only: `Host` is not one of its own names (localhost, 127.0.0.1, [::1] with its port), as a page of another site rebound to 127.0.0.1 (DNS rebinding) would send. Use http://localhost:<port>.',
    {
      otherHost: problem(
        'misdirected-request',
        'This server does not answer for the host "evil.example"; use localhost:3000.',
        { allowed: ['localhost:3000', '127.0.0.1:3000', '[::1]:3000'] },
      ),
    },
  ),
  TooManyRequests: {
    description:
      "API Gateway's throttling (deployed): the stage's rate or the route's own was exceeded. Retry later, with backoff.",
    content: {
      'application/json': {
        schema: gatewaySchema,
        examples: { throttled: { value: { message: 'Too Many Requests' } } },
      },
    },
  },
  InternalError: {
    description:
      'A bug: the detail says nothing about internals, the cause is logged under the request id. Deployed, API Gateway answers `{"message":"Internal Server Error"}` itself when the function fails without an answer.',
    headers: { 'X-Request-Id': header('X-Request-Id') },
    content: {
      'application/problem+json': {
        schema: problemSchema,
        examples: { bug: problem('internal', 'An unexpected error occurred.') },
      },
      'application/json': {
        schema: gatewaySchema,
        examples: {
          gateway: { summary: 'API Gateway, when the function failed', value: { message: 'Internal Server Error' } },
        },
      },
    },
  },
  GatewayTimeout: {
    description:
      'Deployed: API Gateway answers 503 itself when the function does not answer within its integration timeout (30 s).',
    content: {
      'application/json': {
        schema: gatewaySchema,
        examples: { timeout: { value: { message: 'Service Unavailable' } } },
      },
    },
  },
});

/** What every successful GET answer carries besides its body. */
const cacheControl = (example: string, description: string) => ({ description, schema: { type: 'string' }, example });
const getHeaders = (cacheControlHeader: Json) => ({
  ETag: header('ETag'),
  'Cache-Control': cacheControlHeader,
  Vary: header('Vary'),
  'Content-Encoding': header('Content-Encoding'),
  'X-Request-Id': header('X-Request-Id'),
});

/**
 * The statuses every operation may get: another method on its path, another Host locally, API Gateway's throttling, a
 * bug.
 */
const common = {
  '405': ref('responses', 'MethodNotAllowed'),
  '421': ref('responses', 'MisdirectedRequest'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
};

/**
 * 503 of an operation that counts on the engine: the engine's problem (and the operation's `more` examples), or API
 * Gateway's own message past its timeout.
 */
const engineUnavailable = (
  problem: ProblemExample,
  description: string,
  more: Record<string, { value: Json }> = {},
): Json => ({
  description,
  headers: { 'Retry-After': ref('headers', 'Retry-After'), 'X-Request-Id': ref('headers', 'X-Request-Id') },
  content: {
    'application/problem+json': {
      schema: ref('schemas', 'Problem'),
      examples: {
        engineUnavailable: problem(
          'engine-unavailable',
          'The search engine did not answer in time; try again shortly.',
        ),
        ...more,
      },
    },
    'application/json': {
      schema: ref('schemas', 'GatewayMessage'),
      examples: { timeout: { value: { message: 'Service Unavailable' } } },
    },
  },
});

export { cacheControl, common, engineUnavailable, getHeaders, header, problemResponse, ref };
