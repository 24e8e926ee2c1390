import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { MethodNotAllowedError, NotFoundError } from '#shared/errors';
import { allowedMethods, ROUTES, routePattern, type Route } from '../../routes';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';
import { SECURITY_HEADERS } from './security-headers';

const PATTERNS = ROUTES.map((route) => ({ route, regex: routePattern(route.path).regex }));

/**
 * The request's route among functions/routes.ts, checked in the function: API Gateway delivers more
 * than a function's own route. A custom-method segment (`/reports:query`) is deployed as a path
 * variable (lib/api.ts, gatewayRoutePath), so `POST /anything` reaches the query function; and every
 * path has an `ANY` route (GATEWAY_ROUTES), so `DELETE /locations` reaches the locations function.
 * A path no route has: 404. A path with other methods: 405 with `Allow` (RFC 9110 §15.5.6). `HEAD`
 * where the path has GET: answered as GET, without the body (see {@link headWithoutBody}). `OPTIONS`
 * (a CORS preflight among others, which comes without a token): 204 with `Allow`, here and now, as
 * middy answers a `before` that returns (the handler and every `after` skipped, so this answer
 * carries the request id and the security headers itself).
 * Percent-encoded paths are compared decoded (`/reports%3Aquery` is the route).
 */
export function routeGuard(
  handler: Route['handler'],
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> {
  return {
    before: async ({ event }) => {
      const { here, own } = routesOf(event);
      const method = methodOf(event);
      const allowed = allowedMethods(here);
      if (here.length > 0 && method === 'OPTIONS') {
        const id = requestIdOf(event);
        return {
          statusCode: 204,
          headers: {
            Allow: allowed.join(', '),
            ...SECURITY_HEADERS,
            ...(id === undefined ? {} : { [REQUEST_ID_HEADER]: id }),
          },
        };
      }
      if (here.length > 0 && !allowed.includes(method)) throw new MethodNotAllowedError(method, event.rawPath, allowed);
      if (own?.handler !== handler)
        throw new NotFoundError(`There is no route for ${event.rawPath}; the OpenAPI document lists the routes.`);
    },
  };
}

/** The routes of the request's path, and the one of its method (HEAD: the GET route). */
function routesOf(event: APIGatewayProxyEventV2): { readonly here: readonly Route[]; readonly own: Route | undefined } {
  const path = decodedPath(event.rawPath ?? '');
  const method = methodOf(event);
  const here = PATTERNS.filter((p) => p.regex.test(path)).map((p) => p.route);
  return { here, own: here.find((r) => r.method === method || (method === 'HEAD' && r.method === 'GET')) };
}

/**
 * The route of a request, as the route guard matched it: `GET /locations/{locationId}` for a GET or
 * a HEAD of `/locations/x`. A function serving a route family (./route-family.ts) dispatches on it.
 */
export function routeKeyOf(event: APIGatewayProxyEventV2): string | undefined {
  const { own } = routesOf(event);
  return own && `${own.method} ${own.path}`;
}

/**
 * A HEAD request's answer: that of GET, headers and all (ETag, Content-Encoding), with no body
 * (RFC 9110 §9.3.2). Put outermost (first), so that it runs after every other `after` and `onError`.
 */
export function headWithoutBody(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> {
  const strip = async (request: {
    event: APIGatewayProxyEventV2;
    response: APIGatewayProxyResultV2 | null | undefined;
  }) => {
    const { response } = request;
    if (
      methodOf(request.event) !== 'HEAD' ||
      typeof response !== 'object' ||
      response === null ||
      response.body === undefined
    )
      return;
    request.response = { ...response, body: '', isBase64Encoded: false };
  };
  return { after: strip, onError: strip };
}

const methodOf = (event: APIGatewayProxyEventV2): string => (event.requestContext?.http?.method ?? 'GET').toUpperCase();

function decodedPath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
