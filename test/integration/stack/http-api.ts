import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type CloudAssembly, idsOf, type Json, type Resolver } from './assembly';
import type { LambdaFunction } from './lambda-function';

/** A route of the template's HTTP API, followed to the function behind it. */
export interface ApiRoute {
  readonly routeKey: string;
  readonly method: string;
  readonly path: string;
  /** AuthorizationType of the route (`JWT` for every route of this service). */
  readonly authorizationType: string;
  /** The JWT authorizer's configuration: issuer and audiences, resolved. */
  readonly authorizer?: {
    readonly issuer: string;
    readonly audience: readonly string[];
    readonly identitySource: readonly string[];
  };
  /** The Lambda (REQUEST) authorizer of a `CUSTOM` route: its function, identity source and response format. */
  readonly lambdaAuthorizer?: {
    readonly functionId: string;
    readonly identitySource: readonly string[];
    readonly simpleResponses: boolean;
  };
  /** Logical id of the integration's function. */
  readonly functionId: string;
  readonly payloadFormatVersion: string;
}

export interface ApiRequest {
  readonly method: string;
  /** The raw path, e.g. `/locations/x/insights/live` (no stage: the `$default` stage). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * The verified token's claims, as the JWT authorizer hands them on (strings); unused on a route with a Lambda
   * authorizer, which reads the headers.
   */
  readonly claims: Readonly<Record<string, string>>;
}

export interface ApiResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The bytes sent, as UTF-8 text (a compressed body is undecoded here: read `bytes`). */
  readonly body: string;
  /** The bytes API Gateway sends: the function's body, base64-decoded when it said so. */
  readonly bytes: Buffer;
  /** API Gateway's id of the request (`requestContext.requestId` of the event). */
  readonly requestId?: string;
}

const text = (status: number, headers: Record<string, string>, body: string): ApiResponse => ({
  status,
  headers,
  body,
  bytes: Buffer.from(body, 'utf8'),
});

/**
 * The HTTP API of the template, as API Gateway would run it after its JWT authorizer let a request
 * through: route keys matched against the request (path variables included), the integration's
 * function invoked with a payload format 2.0 event carrying the claims, and the function's result
 * turned into the HTTP answer. Token verification itself is API Gateway's and is not run here.
 */
export class HttpApi {
  readonly routes: readonly ApiRoute[];

  constructor(
    assembly: CloudAssembly,
    resolver: Resolver,
    private readonly functions: (logicalId: string) => LambdaFunction,
  ) {
    const functionByArn = new Map(
      idsOf(assembly, 'AWS::Lambda::Function').map((id) => [resolver.text({ 'Fn::GetAtt': [id, 'Arn'] }), id]),
    );
    this.routes = idsOf(assembly, 'AWS::ApiGatewayV2::Route').map((id) => {
      const route = assembly.resources[id]!.Properties;
      const integrationId = resolver.text(route.Target).replace(/^integrations\//, '');
      const integration = assembly.resources[integrationId]?.Properties ?? {};
      const functionArn = resolver.text(integration.IntegrationUri);
      const functionId = functionByArn.get(functionArn);
      if (!functionId)
        throw new Error(
          `route ${String(route.RouteKey)}: its integration calls ${functionArn}, not a function of the stack`,
        );
      const authorizer = route.AuthorizerId
        ? (assembly.resources[resolver.text(route.AuthorizerId)]?.Properties as Json | undefined)
        : undefined;
      const jwt = authorizer?.JwtConfiguration as { Issuer?: unknown; Audience?: unknown[] } | undefined;
      // AuthorizerUri: arn:aws:apigateway:<region>:lambda:path/2015-03-31/functions/<function ARN>/invocations
      const lambdaUri = authorizer?.AuthorizerType === 'REQUEST' ? resolver.text(authorizer.AuthorizerUri) : undefined;
      const lambdaFunctionId = lambdaUri
        ? functionByArn.get(/functions\/(.+)\/invocations$/.exec(lambdaUri)?.[1] ?? '')
        : undefined;
      if (lambdaUri && !lambdaFunctionId)
        throw new Error(
          `route ${String(route.RouteKey)}: its authorizer calls ${lambdaUri}, not a function of the stack`,
        );
      const [method, path] = String(route.RouteKey).split(' ') as [string, string];
      return {
        routeKey: String(route.RouteKey),
        method,
        path,
        authorizationType: String(route.AuthorizationType ?? 'NONE'),
        ...(jwt
          ? {
              authorizer: {
                issuer: resolver.text(jwt.Issuer),
                audience: (jwt.Audience ?? []).map((a) => resolver.text(a)),
                identitySource: (authorizer?.IdentitySource as string[]) ?? [],
              },
            }
          : {}),
        ...(lambdaFunctionId
          ? {
              lambdaAuthorizer: {
                functionId: lambdaFunctionId,
                identitySource: (authorizer?.IdentitySource as string[]) ?? [],
                simpleResponses: authorizer?.EnableSimpleResponses === true,
              },
            }
          : {}),
        functionId,
        payloadFormatVersion: String(integration.PayloadFormatVersion),
      };
    });
  }

  /** Sends a request through the matching route; 404 `{"message":"Not Found"}` (API Gateway's) when none matches. */
  async request(req: ApiRequest): Promise<ApiResponse> {
    const match = this.match(req.method, req.path);
    if (!match) return text(404, { 'content-type': 'application/json' }, '{"message":"Not Found"}');
    const event = this.event(req, match.route, match.params);
    const { requestId } = event.requestContext;
    if (match.route.lambdaAuthorizer) {
      const context = await this.authorize(match.route, event);
      if (typeof context === 'number')
        return {
          ...text(
            context,
            { 'content-type': 'application/json' },
            context === 401 ? '{"message":"Unauthorized"}' : '{"message":"Forbidden"}',
          ),
          requestId,
        };
      (event.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: context };
    }
    const result = await this.functions(match.route.functionId).invoke<APIGatewayProxyStructuredResultV2 | string>(
      event,
    );
    // Payload format 2.0: a result without statusCode is a 200 JSON body
    // (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html).
    if (typeof result !== 'object' || result === null || result.statusCode === undefined) {
      return {
        ...text(
          200,
          { 'content-type': 'application/json' },
          typeof result === 'string' ? result : JSON.stringify(result),
        ),
        requestId,
      };
    }
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    const bytes = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
    return { status: result.statusCode, headers, body: bytes.toString('utf8'), bytes, requestId };
  }

  /**
   * A Lambda authorizer's verdict, as API Gateway reaches it: 401 without the identity source (the
   * authorizer is not called), else the authorizer's REQUEST event (payload 2.0) and, with simple
   * responses, `isAuthorized` false → 403, true → its context, handed to the integration.
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-lambda-authorizer.html
   */
  private async authorize(
    route: ApiRoute,
    event: APIGatewayProxyEventV2WithJWTAuthorizer,
  ): Promise<number | Record<string, unknown>> {
    const { functionId, identitySource, simpleResponses } = route.lambdaAuthorizer!;
    if (!simpleResponses) throw new Error(`route ${route.routeKey}: only simple responses are stood in for`);
    const sources = identitySource.map((s) => event.headers[s.replace(/^\$request\.header\./, '').toLowerCase()]);
    if (sources.some((s) => s === undefined || s === '')) return 401;
    const { authorizer: _, ...requestContext } = event.requestContext;
    const verdict = await this.functions(functionId).invoke<{
      isAuthorized: boolean;
      context?: Record<string, unknown>;
    }>({
      version: '2.0',
      type: 'REQUEST',
      routeArn: `arn:aws:execute-api:us-east-1:123456789012:localapi/$default/${route.method}${event.rawPath}`,
      identitySource: sources,
      routeKey: event.routeKey,
      rawPath: event.rawPath,
      rawQueryString: event.rawQueryString,
      headers: event.headers,
      ...(event.pathParameters ? { pathParameters: event.pathParameters } : {}),
      requestContext,
    });
    return verdict.isAuthorized ? (verdict.context ?? {}) : 403;
  }

  private match(method: string, path: string): { route: ApiRoute; params: Record<string, string> } | undefined {
    // Literal routes win over routes with path variables, and a route's own method over ANY (API
    // Gateway picks the most specific match).
    const rank = (r: ApiRoute) => 2 * Number(r.path.includes('{')) + Number(r.method === 'ANY');
    const ordered = [...this.routes].sort((a, b) => rank(a) - rank(b));
    for (const route of ordered) {
      if (route.method !== method && route.method !== 'ANY') continue;
      const names: string[] = [];
      const pattern = route.path
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{([^}]+)\\?\}/g, (_, name: string) => (names.push(name), '([^/]+)'));
      const found = new RegExp(`^${pattern}$`).exec(path);
      if (found)
        return { route, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(found[i + 1]!)])) };
    }
    return undefined;
  }

  /** The payload 2.0 event; typed as the JWT authorizer's, whose context a public route's event lacks. */
  private event(
    req: ApiRequest,
    route: ApiRoute,
    params: Record<string, string>,
  ): APIGatewayProxyEventV2WithJWTAuthorizer {
    const now = new Date();
    const headers = {
      host: 'api.lrs.localtest',
      'user-agent': 'stack-test',
      ...Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    };
    const query = req.query ?? {};
    return {
      version: '2.0',
      routeKey: route.routeKey,
      rawPath: req.path,
      rawQueryString: new URLSearchParams(query).toString(),
      headers,
      ...(Object.keys(query).length > 0 ? { queryStringParameters: { ...query } } : {}),
      ...(Object.keys(params).length > 0 ? { pathParameters: params } : {}),
      ...(req.body === undefined ? {} : { body: req.body }),
      isBase64Encoded: false,
      requestContext: {
        accountId: '123456789012',
        apiId: 'localapi',
        // A route without an authorizer gets no authorizer context.
        ...(route.authorizer
          ? { authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: { ...req.claims }, scopes: [] } } }
          : {}),
        domainName: 'api.lrs.localtest',
        domainPrefix: 'api',
        http: {
          method: req.method,
          path: req.path,
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: headers['user-agent'],
        },
        requestId: randomUUID(),
        routeKey: route.routeKey,
        stage: '$default',
        time: now.toISOString(),
        timeEpoch: now.getTime(),
      },
    } as APIGatewayProxyEventV2WithJWTAuthorizer;
  }
}
