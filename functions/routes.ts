/**
 * The HTTP routes of the service: one handler module (functions/<name>.ts) per route. The CDK API and
 * the local server both read this table, so routing is defined once.
 */
export interface Route {
  readonly method: 'GET' | 'POST';
  /** API Gateway route path; `{name}` is a path parameter. */
  readonly path: string;
  /** Module under functions/ exporting `handler`. */
  readonly handler: 'list-locations' | 'live-insights' | 'occupancy-history' | 'query-report' | 'ingest' | 'health' | 'problems';
  /**
   * Answered without a token: API Gateway routes it without the JWT authorizer (lib/api.ts), the
   * local server without checking one. @default false
   */
  readonly public?: boolean;
}

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/locations', handler: 'list-locations' },
  { method: 'GET', path: '/locations/{locationId}/insights/live', handler: 'live-insights' },
  { method: 'GET', path: '/locations/{locationId}/insights/history', handler: 'occupancy-history' },
  { method: 'POST', path: '/reports:query', handler: 'query-report' },
  { method: 'POST', path: '/ingest/{collection}', handler: 'ingest' },
  { method: 'GET', path: '/health', handler: 'health', public: true },
  { method: 'GET', path: '/problems', handler: 'problems', public: true },
];

/** A route as API Gateway and the local server deploy it: `ANY` matches every method no other route of the path takes. */
export interface GatewayRoute extends Omit<Route, 'method'> {
  readonly method: Route['method'] | 'ANY';
}

/**
 * The routes deployed (lib/stack.ts) and matched locally (bin/local/router.ts): every route above,
 * and one `ANY` route per path to the function of the path's first route, with its authorization.
 * API Gateway takes a route of the request's own method over `ANY`, so another method (and `HEAD`)
 * reaches the function, whose route guard answers HEAD as GET and anything else 405 with `Allow`
 * (functions/commons/http/route-guard.ts) rather than API Gateway's bare 404.
 */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  ...ROUTES,
  ...[...new Set(ROUTES.map((r) => r.path))].map((path): GatewayRoute => ({ ...ROUTES.find((r) => r.path === path)!, method: 'ANY' })),
];

/** The methods a path answers: its routes' methods, and HEAD where it has GET (RFC 9110 §9.3.2). */
export function allowedMethods(routes: readonly Pick<Route, 'method'>[]): string[] {
  const methods = routes.map((r) => r.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

/** A route path as a pattern over a request path (decoded): `{name}` is one segment; `names` in order. */
export function routePattern(path: string): { readonly regex: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? (names.push(part.slice(1, -1)), '([^/]+)') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return { regex: new RegExp(`^${source}$`), names };
}
