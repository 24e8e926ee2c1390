import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { NotFoundError } from '#shared/errors';
import type { Route } from '../../routes';

/**
 * 404 problem+json unless the request's path is the route's own. API Gateway may deliver more than
 * the route: a custom-method segment (`/reports:query`) is deployed as a path variable
 * (lib/api.ts, gatewayRoutePath), so `POST /anything` reaches the function too, which checks the
 * literal segment here. Percent-encoded paths are compared decoded (`/reports%3Aquery` is the route).
 */
export function routeGuard(route: Pick<Route, 'path'>): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${route.path.split('/').map((s) => (s.startsWith('{') ? '[^/]+' : escape(s))).join('/')}$`);
  return {
    before: async ({ event }) => {
      let path: string;
      try {
        path = decodeURIComponent(event.rawPath ?? '');
      } catch {
        path = event.rawPath ?? '';
      }
      if (!pattern.test(path)) throw new NotFoundError(`There is no route for ${event.rawPath}; the OpenAPI document lists the routes.`);
    },
  };
}
