import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/**
 * The organization an event's token names when the request says none: the first organization of
 * the report tests' fixtures (test/integration/report/fixtures.ts takes it from here).
 */
export const DEFAULT_EVENT_ORGANIZATION = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

export interface HttpRequest {
  readonly method?: string;
  readonly path?: string;
  readonly body?: unknown;
  /** Raw body text (wins over `body`). */
  readonly rawBody?: string;
  /** Raw body bytes, handed over base64-encoded as API Gateway does for a binary body (wins over both). */
  readonly binaryBody?: Buffer;
  /** The token's scopes (`jwt.scopes`). @default none, as a user's ID token */
  readonly scopes?: readonly string[];
  /** Headers over the default `content-type: application/json`; undefined leaves a header out. */
  readonly headers?: Record<string, string | undefined>;
  readonly query?: Record<string, string>;
  readonly pathParameters?: Record<string, string>;
  /** Organization claim (default org-a of ../report/fixtures.ts); null for a request without claims. */
  readonly org?: string | null;
  /** The token's groups (`cognito:groups`, as API Gateway hands an array over: `[admin]`). @default none: a viewer */
  readonly groups?: readonly string[];
  /** The token's location grant (`custom:locations`, ids separated by commas). @default none: every location */
  readonly locations?: readonly string[];
  /** The token's subject. @default 'user-1' */
  readonly sub?: string;
  /** API Gateway's id of the request. @default 'test-request' */
  readonly requestId?: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The body as the function returned it (base64 when `isBase64Encoded`). */
  readonly body: string;
  readonly isBase64Encoded: boolean;
  /** The bytes API Gateway sends: the body, base64-decoded when the function encoded it so. */
  readonly bytes: Buffer;
  json<T = unknown>(): T;
}

/** An API Gateway HTTP API (payload 2.0) event as the JWT authorizer hands it to the function. */
export function httpEvent(req: HttpRequest): APIGatewayProxyEventV2WithJWTAuthorizer {
  const body =
    req.binaryBody?.toString('base64') ??
    req.rawBody ??
    (req.body === undefined ? undefined : JSON.stringify(req.body));
  const headers = Object.fromEntries(
    Object.entries({ 'content-type': 'application/json', ...(req.headers ?? {}) }).filter(
      (h): h is [string, string] => h[1] !== undefined,
    ),
  );
  const claims =
    req.org === null
      ? {}
      : {
          'custom:organizationId': req.org ?? DEFAULT_EVENT_ORGANIZATION,
          sub: req.sub ?? 'user-1',
          ...(req.groups ? { 'cognito:groups': `[${req.groups.join(' ')}]` } : {}),
          ...(req.locations ? { 'custom:locations': req.locations.join(',') } : {}),
        };
  return {
    version: '2.0',
    routeKey: `${req.method ?? 'POST'} ${req.path ?? '/reports:query'}`,
    rawPath: req.path ?? '/reports:query',
    rawQueryString: new URLSearchParams(req.query ?? {}).toString(),
    headers,
    ...(req.query ? { queryStringParameters: req.query } : {}),
    ...(req.pathParameters ? { pathParameters: req.pathParameters } : {}),
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: req.binaryBody !== undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'POST',
        path: req.path ?? '/reports:query',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'jest',
      },
      requestId: req.requestId ?? 'test-request',
      routeKey: `${req.method ?? 'POST'} ${req.path ?? '/reports:query'}`,
      stage: '$default',
      time: new Date(0).toISOString(),
      timeEpoch: 0,
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [...(req.scopes ?? [])] } },
    },
  } as APIGatewayProxyEventV2WithJWTAuthorizer;
}

type Handler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<unknown>;

/**
 * Invokes a Lambda handler with an HTTP API event and reads its structured result back. The context
 * says `remainingMs` are left (default 30 s, the service's function timeout), counted from the call.
 */
export async function invoke(
  handler: Handler,
  req: HttpRequest,
  { remainingMs = 30_000 }: { remainingMs?: number } = {},
): Promise<HttpResponse> {
  const end = Date.now() + remainingMs;
  const context = {
    awsRequestId: 'test-request',
    functionName: 'test',
    getRemainingTimeInMillis: () => end - Date.now(),
  } as Context;
  const result = (await handler(httpEvent(req), context)) as APIGatewayProxyStructuredResultV2;
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  const body = result.body ?? '';
  const isBase64Encoded = result.isBase64Encoded === true;
  const bytes = Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  return {
    status: result.statusCode ?? 200,
    headers,
    body,
    isBase64Encoded,
    bytes,
    json: <T>() => JSON.parse(body) as T,
  };
}
