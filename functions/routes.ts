/**
 * The HTTP routes of the service: one handler module (functions/<name>.ts) per route. The CDK API and
 * the local server both read this table, so routing is defined once.
 */
export interface Route {
  readonly method: 'GET' | 'POST';
  /** API Gateway route path; `{name}` is a path parameter. */
  readonly path: string;
  /** Module under functions/ exporting `handler`. */
  readonly handler: 'list-locations' | 'live-insights' | 'query-report' | 'ingest' | 'health' | 'problems';
  /**
   * Answered without a token: API Gateway routes it without the JWT authorizer (lib/api.ts), the
   * local server without checking one. @default false
   */
  readonly public?: boolean;
}

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/locations', handler: 'list-locations' },
  { method: 'GET', path: '/locations/{locationId}/insights/live', handler: 'live-insights' },
  { method: 'POST', path: '/reports:query', handler: 'query-report' },
  { method: 'POST', path: '/ingest/{collection}', handler: 'ingest' },
  { method: 'GET', path: '/health', handler: 'health', public: true },
  { method: 'GET', path: '/problems', handler: 'problems', public: true },
];
