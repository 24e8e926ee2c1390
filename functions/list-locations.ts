import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { toLocationResponse } from '#shared/locations/model';
import { listVisibleLocations } from '#shared/locations/read';
import type { LocationStore } from '#shared/locations/store';
import { locationStore } from '#commons/clients/dynamo';
import { accessOf } from '#commons/http/identity';
import type { Provider } from '#commons/clients/lazy';
import { conditionalGet } from '#commons/http/conditional-get';
import { httpEdge } from '#commons/http/edge';
import { JSON_MEDIA_TYPES, jsonOnly } from '#commons/http/json-only';

export interface ListLocationsDeps {
  readonly store: Provider<Pick<LocationStore, 'listLocations'>>;
}

/**
 * GET /locations: the caller's organization's locations within its grant, ordered by id, in the spec's shape (with
 * `name`).
 */
export function createListLocationsHandler(deps: ListLocationsDeps = { store: locationStore }) {
  return middy<APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: 'list-locations', availableMediaTypes: JSON_MEDIA_TYPES }))
    .use(conditionalGet())
    .use(jsonOnly())
    .handler(async (event) => {
      const locations = await listVisibleLocations(await deps.store(), accessOf(event));
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-cache' },
        body: JSON.stringify(locations.map(toLocationResponse)),
      };
    });
}

export const handler = createListLocationsHandler();
