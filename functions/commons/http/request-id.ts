import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { logger } from '../powertools/logger';

/** The response header that names the request. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The id API Gateway gave this request (`$context.requestId`: the access log's `requestId`, and the
 * `apigw-requestid` header of its own answers); the local server makes one per request. Never the
 * client's: a caller cannot choose the id its request is logged under.
 */
export function requestIdOf(event: Pick<APIGatewayProxyEventV2, 'requestContext'> | undefined): string | undefined {
  const id: unknown = event?.requestContext?.requestId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Names every answer after its request: `X-Request-Id` on the response, success or problem, and the
 * id as the Powertools logger's correlation id (`correlation_id` on every log line of the request;
 * set from the event directly, as the JMESPath search Powertools offers would load a query engine
 * into every bundle for one property). Use it before problemErrors, so that its onError runs after
 * the problem is rendered (middy runs onError middlewares last-used first).
 */
export function requestId(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> {
  const name = async (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyResultV2>) => {
    const id = requestIdOf(request.event);
    const response = request.response;
    if (id === undefined || typeof response !== 'object' || response === null) return;
    response.headers = { ...response.headers, [REQUEST_ID_HEADER]: id };
  };
  return {
    before: async ({ event }) => {
      const id = requestIdOf(event);
      if (id !== undefined) logger.setCorrelationId(id);
    },
    after: name,
    onError: name,
  };
}
