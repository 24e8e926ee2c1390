import { ValidationError } from '#shared/errors';
import { GATEWAY_ROUTES, routePattern, type GatewayRoute } from '../../functions/routes';

export interface RouteMatch {
  readonly route: GatewayRoute;
  readonly routeKey: string;
  readonly pathParameters: Record<string, string>;
}

const compiled = GATEWAY_ROUTES.map((route) => ({ route, ...routePattern(route.path) }));

/**
 * The route for a method and path, with its path parameters (decoded), as API Gateway matches them:
 * the route of the request's method, else the path's `ANY` route (whose function answers HEAD as GET
 * and another method 405). A parameter that is not percent-encoded UTF-8 (`%E0`, `%zz`) is a 400
 * naming it, never a 500.
 */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const onPath = compiled.map((c) => ({ ...c, m: c.regex.exec(path) })).filter((c) => c.m !== null);
  const found = onPath.find((c) => c.route.method === method) ?? onPath.find((c) => c.route.method === 'ANY');
  if (!found) return undefined;
  const pathParameters = Object.fromEntries(
    found.names.map((n, i) => [n, decodePathParameter(n, found.m![i + 1] as string)]),
  );
  return { route: found.route, routeKey: `${found.route.method} ${found.route.path}`, pathParameters };
}

function decodePathParameter(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError([{ path: `/path/${name}`, message: 'must be percent-encoded UTF-8 (RFC 3986)' }]);
  }
}
