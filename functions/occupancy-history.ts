import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { ReportTimeoutError } from '#shared/errors';
import type { LocationStore } from '#shared/locations/store';
import { occupancyHistory } from '#shared/occupancy/history';
import { parseHistoryQuery } from '#shared/occupancy/history-query';
import { HISTORY_MEDIA_TYPES, renderHistory, type HistoryMediaType } from '#shared/occupancy/history-render';
import { answerDeadline } from '#commons/http/answer-deadline';
import type { ReportEngine } from '#shared/stores/store';
import { locationStore } from '#commons/clients/dynamo';
import { reportEngine } from '#commons/clients/store';
import type { Provider } from '#commons/clients/lazy';
import { conditionalGet } from '#commons/http/conditional-get';
import { httpEdge } from '#commons/http/edge';
import { accessOf } from '#commons/http/identity';
import { negotiateMediaType, type NegotiatedContext } from '#commons/http/negotiation';
import { measuredEngine } from '#commons/powertools/metrics';

export interface OccupancyHistoryDeps {
  readonly store: Provider<Pick<LocationStore, 'getLocationWithGroups'>>;
  readonly engine: Provider<ReportEngine>;
}

/** GET /locations/{locationId}/insights/history?filter=occupancy&from=&to=&interval=, JSON or CSV by Accept. */
export function createOccupancyHistoryHandler(
  deps: OccupancyHistoryDeps = { store: locationStore, engine: reportEngine },
) {
  return middy<APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2>({
    timeoutEarlyResponse: () => {
      throw new ReportTimeoutError();
    },
  })
    .use(httpEdge({ route: 'occupancy-history', availableMediaTypes: HISTORY_MEDIA_TYPES }))
    .use(conditionalGet())
    .use(negotiateMediaType(HISTORY_MEDIA_TYPES))
    .handler(async (event, context: NegotiatedContext<HistoryMediaType>) => {
      const deadline = answerDeadline(context);
      const scope = accessOf(event);
      const query = parseHistoryQuery(event.queryStringParameters);
      const mediaType = context.preferredMediaType ?? 'application/json';
      const [store, engine] = await Promise.all([deps.store(), deps.engine()]);
      const history = await occupancyHistory(
        { store, engine: measuredEngine(engine) },
        scope,
        event.pathParameters?.locationId ?? '',
        query,
        { deadline },
      );
      return {
        statusCode: 200,
        // Today's buckets change with every crossing; the ETag makes a re-fetch of the same answer cheap.
        headers: {
          'Content-Type': mediaType === 'text/csv' ? 'text/csv; charset=utf-8' : 'application/json',
          'Cache-Control': 'private, no-cache',
          Vary: 'Accept',
        },
        body: renderHistory(history, mediaType),
      };
    });
}

export const handler = createOccupancyHistoryHandler();
