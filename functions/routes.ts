/**
 * The HTTP routes of the service: one handler module (functions/<name>.ts) per route. The CDK API and
 * the local server both read this table, so routing is defined once.
 */
export interface Route {
  readonly method: 'GET' | 'POST';
  /** API Gateway route path; `{name}` is a path parameter. */
  readonly path: string;
  /** Module under functions/ exporting `handler`. */
  readonly handler: 'list-locations' | 'live-insights' | 'query-report';
}

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/locations', handler: 'list-locations' },
  { method: 'GET', path: '/locations/{locationId}/insights/live', handler: 'live-insights' },
  { method: 'POST', path: '/reports:query', handler: 'query-report' },
];
