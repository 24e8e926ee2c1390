/**
 * The HTTP routes of the service: one handler module (functions/<name>.ts) per route. The CDK API and
 * the local server both read this table, so routing is defined once.
 */
export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway route path; `{name}` is a path parameter. */
  readonly path: string;
  /** Module under functions/ exporting `handler`. */
  readonly handler:
    | 'list-locations'
    | 'manage-locations'
    | 'live-insights'
    | 'occupancy-history'
    | 'sites-overview'
    | 'query-report'
    | 'ingest'
    | 'manage-ingest-clients'
    | 'manage-webhook-endpoints'
    | 'manage-alert-rules'
    | 'health'
    | 'problems';
  /**
   * Answered without a token: API Gateway routes it without the JWT authorizer (lib/api.ts), the
   * local server without checking one. @default false
   */
  readonly public?: boolean;
}

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/locations', handler: 'list-locations' },
  // The administration API's location family: one function (functions/manage-locations.ts).
  { method: 'POST', path: '/locations', handler: 'manage-locations' },
  { method: 'GET', path: '/locations/{locationId}', handler: 'manage-locations' },
  { method: 'PUT', path: '/locations/{locationId}', handler: 'manage-locations' },
  { method: 'DELETE', path: '/locations/{locationId}', handler: 'manage-locations' },
  { method: 'GET', path: '/locations/{locationId}/changes', handler: 'manage-locations' },
  { method: 'GET', path: '/locations/{locationId}/insights/live', handler: 'live-insights' },
  { method: 'GET', path: '/locations/{locationId}/insights/history', handler: 'occupancy-history' },
  { method: 'GET', path: '/insights/overview', handler: 'sites-overview' },
  { method: 'POST', path: '/reports:query', handler: 'query-report' },
  { method: 'POST', path: '/ingest/{collection}', handler: 'ingest' },
  // Gateways (machine clients) through the API: functions/manage-ingest-clients.ts.
  { method: 'POST', path: '/ingest-clients', handler: 'manage-ingest-clients' },
  { method: 'GET', path: '/ingest-clients', handler: 'manage-ingest-clients' },
  { method: 'DELETE', path: '/ingest-clients/{clientId}', handler: 'manage-ingest-clients' },
  // Webhook endpoints and their deliveries: functions/manage-webhook-endpoints.ts.
  { method: 'POST', path: '/webhook-endpoints', handler: 'manage-webhook-endpoints' },
  { method: 'GET', path: '/webhook-endpoints', handler: 'manage-webhook-endpoints' },
  { method: 'GET', path: '/webhook-endpoints/{endpointId}', handler: 'manage-webhook-endpoints' },
  { method: 'PUT', path: '/webhook-endpoints/{endpointId}', handler: 'manage-webhook-endpoints' },
  { method: 'DELETE', path: '/webhook-endpoints/{endpointId}', handler: 'manage-webhook-endpoints' },
  { method: 'POST', path: '/webhook-endpoints/{endpointId}/test', handler: 'manage-webhook-endpoints' },
  { method: 'POST', path: '/webhook-endpoints/{endpointId}/secret:rotate', handler: 'manage-webhook-endpoints' },
  { method: 'GET', path: '/webhook-endpoints/{endpointId}/deliveries', handler: 'manage-webhook-endpoints' },
  {
    method: 'POST',
    path: '/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/retry',
    handler: 'manage-webhook-endpoints',
  },
  // Alert rules (docs/alerts.md): functions/manage-alert-rules.ts.
  { method: 'POST', path: '/alert-rules', handler: 'manage-alert-rules' },
  { method: 'GET', path: '/alert-rules', handler: 'manage-alert-rules' },
  { method: 'GET', path: '/alert-rules/{ruleId}', handler: 'manage-alert-rules' },
  { method: 'PUT', path: '/alert-rules/{ruleId}', handler: 'manage-alert-rules' },
  { method: 'DELETE', path: '/alert-rules/{ruleId}', handler: 'manage-alert-rules' },
  { method: 'GET', path: '/health', handler: 'health', public: true },
  { method: 'GET', path: '/problems', handler: 'problems', public: true },
];

/**
 * A route as API Gateway and the local server deploy it: `ANY` matches every method no other route of
 * the path takes; `OPTIONS` is the path's route for that method, without a token.
 */
export interface GatewayRoute extends Omit<Route, 'method'> {
  readonly method: Route['method'] | 'ANY' | 'OPTIONS';
}

/**
 * The routes deployed (lib/stack.ts) and matched locally (bin/local/router.ts): every route above,
 * one `ANY` route per path to the function of the path's first route, with its authorization, and
 * one public `OPTIONS` route per path to the same function. API Gateway takes a route of the
 * request's own method over `ANY`, so another method (and `HEAD`) reaches the function, whose route
 * guard answers HEAD as GET, OPTIONS 204 with `Allow`, and anything else 405 with `Allow`
 * (functions/commons/http/route-guard.ts) rather than API Gateway's bare 404. A CORS preflight
 * carries no credentials (the Fetch standard), so behind the authorizer of `ANY` it would be a 401:
 * API Gateway answers a preflight itself only where no route takes OPTIONS
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html), and with CORS
 * configured it adds its CORS headers to the function's 204.
 */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  ...ROUTES,
  ...[...new Set(ROUTES.map((r) => r.path))].flatMap((path): GatewayRoute[] => {
    const first = ROUTES.find((r) => r.path === path)!;
    return [
      { ...first, method: 'ANY' },
      { ...first, method: 'OPTIONS', public: true },
    ];
  }),
];

/** The methods a path answers: its routes' methods, HEAD where it has GET (RFC 9110 §9.3.2), and OPTIONS (§9.3.7). */
export function allowedMethods(routes: readonly Pick<Route, 'method'>[]): string[] {
  const methods = routes.map((r) => r.method);
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
}

/** A route path as a pattern over a request path (decoded): `{name}` is one segment; `names` in order. */
export function routePattern(path: string): { readonly regex: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) =>
      part.startsWith('{') ? (names.push(part.slice(1, -1)), '([^/]+)') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return { regex: new RegExp(`^${source}$`), names };
}
