import middy from '@middy/core';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { AccessScope } from '#shared/access/scope';
import { InternalError, PayloadTooLargeError } from '#shared/errors';
import type { Route } from '../../routes';
import { conditionalGet } from './conditional-get';
import { httpEdge } from './edge';
import { accessOf } from './identity';
import { jsonBody } from './json-body';
import { JSON_MEDIA_TYPES, jsonOnly } from './json-only';
import { routeKeyOf } from './route-guard';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;

/**
 * What one route of a family gets: the event, the caller's scope (resolved once), the family's dependencies, the parsed
 * body.
 */
export interface FamilyRequest<Deps> {
  readonly event: Event;
  readonly scope: AccessScope;
  readonly deps: Deps;
  /** The parsed JSON body, for a route that takes one. */
  readonly body: unknown;
}

/** One route of a family: who may call it, whether it takes a JSON body, and what it does. */
export interface FamilyRoute<Deps> {
  /** `read`: viewers and admins; `admin`: admins only (403 for anyone else, before the body is read). */
  readonly purpose: 'read' | 'admin';
  /** The route takes a JSON body of at most this many bytes (413 beyond, 400/415 as for reports). */
  readonly bodyMaxBytes?: number;
  run(request: FamilyRequest<Deps>): Promise<APIGatewayProxyStructuredResultV2>;
}

type FamilyContext = Context & { scope?: AccessScope };

/**
 * One Lambda per route family (the administration API's locations, its ingest clients, and the
 * families to come, such as alert rules), with the habits of every other handler: the edge
 * middlewares (errors as problem+json, request id, compression, the route guard with 404 and 405),
 * conditional GET (a route may set its own strong ETag, ./preconditions.ts), JSON answers only, then
 * per route: the role check (403 before anything is read), the body's size, media type and JSON
 * (only for routes that take one), and the route's `run`. `routes` is keyed by the route keys of
 * functions/routes.ts (`PUT /locations/{locationId}`); a route of the family missing here is a bug
 * (500), which test/unit/functions/route-families.test.ts rules out.
 */
export function routeFamily<Deps>(
  name: Route['handler'],
  routes: Readonly<Record<string, FamilyRoute<Deps>>>,
  deps: Deps,
) {
  const routeOf = (event: Event): FamilyRoute<Deps> => {
    const route = routes[routeKeyOf(event) ?? ''];
    if (!route) throw new InternalError({ cause: new Error(`${name} has no route for ${routeKeyOf(event)}`) });
    return route;
  };
  const bodyParsers = jsonBody();
  return middy<Event, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: name, availableMediaTypes: JSON_MEDIA_TYPES }))
    .use(conditionalGet())
    .use(jsonOnly())
    .use({
      before: async (request) => {
        const route = routeOf(request.event);
        (request.context as FamilyContext).scope = accessOf(request.event, route.purpose);
        if (route.bodyMaxBytes === undefined) return;
        const { body, isBase64Encoded } = request.event;
        const bytes =
          body === undefined ? 0 : isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
        if (bytes > route.bodyMaxBytes) throw new PayloadTooLargeError(route.bodyMaxBytes);
        for (const parser of bodyParsers) await parser.before?.(request as never);
      },
    })
    .handler(async (event, context) => {
      const scope = (context as FamilyContext).scope!;
      return routeOf(event).run({ event, scope, deps, body: event.body });
    });
}
