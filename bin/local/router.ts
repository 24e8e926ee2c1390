import { ValidationError } from '#shared/errors';
import { ROUTES, type Route } from '../../functions/routes';

export interface RouteMatch {
  readonly route: Route;
  readonly routeKey: string;
  readonly pathParameters: Record<string, string>;
}

const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

const compiled = ROUTES.map((route) => {
  const names: string[] = [];
  const pattern = route.path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? (names.push(part.slice(1, -1)), '([^/]+)') : escape(part)))
    .join('');
  return { route, names, regex: new RegExp(`^${pattern}$`) };
});

/**
 * The route for a method and path, with its path parameters (decoded), as API Gateway matches them.
 * A parameter that is not percent-encoded UTF-8 (`%E0`, `%zz`) is a 400 naming it, never a 500.
 */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const { route, names, regex } of compiled) {
    const m = regex.exec(path);
    if (!m || route.method !== method) continue;
    const pathParameters = Object.fromEntries(names.map((n, i) => [n, decodePathParameter(n, m[i + 1] as string)]));
    return { route, routeKey: `${route.method} ${route.path}`, pathParameters };
  }
  return undefined;
}

function decodePathParameter(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError([{ path: `/path/${name}`, message: 'must be percent-encoded UTF-8 (RFC 3986)' }]);
  }
}
