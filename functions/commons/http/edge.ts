import type middy from '@middy/core';
import { observability } from '../powertools/observability';
import { contentEncoding } from './content-encoding';
import { problemErrors } from './problem-middleware';
import { requestId } from './request-id';
import { headWithoutBody, routeGuard } from './route-guard';
import { securityHeaders } from './security-headers';
import type { Route } from '../../routes';

/**
 * The middlewares every HTTP handler starts with, in this order: HEAD's body dropped (its `after`
 * and `onError` run last), Powertools (tracer, logger context, metrics), the request id (logger
 * correlation id; `X-Request-Id` on every answer), `X-Content-Type-Options` on every answer, the
 * problem+json error mapping, compression by
 * Accept-Encoding, then the route guard (404 for a path no route has, 405 with Allow for another
 * method: every handler has one, since API Gateway sends every method of the path to it). middy
 * runs `after` and `onError` middlewares last-used first, so an error is rendered (and logged with
 * the request id) before the id names the answer and before the logger forgets its keys, and a
 * handler's own middlewares used after these (conditional GET, Accept negotiation) see the plain
 * body before it is compressed. `route` is the handler's own (functions/routes.ts);
 * `availableMediaTypes` is what a 406 names.
 */
export function httpEdge(options: {
  readonly route: Route['handler'];
  readonly availableMediaTypes?: readonly string[];
}): middy.MiddlewareObj[] {
  return [
    headWithoutBody(),
    ...observability(),
    requestId(),
    securityHeaders(),
    problemErrors(options),
    contentEncoding(),
    routeGuard(options.route),
  ] as middy.MiddlewareObj[];
}
