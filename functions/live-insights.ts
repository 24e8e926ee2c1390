import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { LocationStore } from '#shared/locations/store';
import { liveInsights, parseInsightKinds } from '#shared/occupancy/live-insights';
import { locationStore } from '#commons/clients/dynamo';
import { accessOf } from '#commons/http/identity';
import { ENV } from '#commons/env';
import { reportEngine } from '#commons/clients/store';
import type { ReportEngine } from '#shared/stores/store';
import type { Provider } from '#commons/clients/lazy';
import { conditionalGet } from '#commons/http/conditional-get';
import { httpEdge } from '#commons/http/edge';
import { JSON_MEDIA_TYPES, jsonOnly } from '#commons/http/json-only';

export interface LiveInsightsDeps {
  readonly store: Provider<Pick<LocationStore, 'getLiveView'>>;
  /** The report engine, asked only for `filter=health` (docs/sensor-health.md). @default the store's */
  readonly engine?: Provider<ReportEngine>;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * GET /locations/{locationId}/insights/live?filter=occupancy,health: occupancy from the cache, health from the
 * documents.
 */
export function createLiveInsightsHandler(deps: LiveInsightsDeps = { store: locationStore, engine: reportEngine }) {
  return middy<APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: 'live-insights', availableMediaTypes: JSON_MEDIA_TYPES }))
    .use(conditionalGet())
    .use(jsonOnly())
    .handler(async (event) => {
      const scope = accessOf(event);
      const kinds = parseInsightKinds(event.queryStringParameters?.filter);
      const locationId = event.pathParameters?.locationId ?? '';
      const now = (deps.now ?? Date.now)();
      const refreshSeconds = Number(process.env[ENV.refreshSeconds] ?? 0);
      const engine = async () => (deps.engine ?? reportEngine)();
      const options = { engine, ...(refreshSeconds > 0 ? { refreshPeriodMs: refreshSeconds * 1000 } : {}) };
      const { body, maxAgeSeconds } = await liveInsights(await deps.store(), scope, locationId, kinds, now, options);
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': `private, max-age=${maxAgeSeconds}` },
        body: JSON.stringify(body),
      };
    });
}

export const handler = createLiveInsightsHandler();
