import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';

/**
 * Headers on every answer of the API, success or problem: `X-Content-Type-Options: nosniff`, so that
 * no browser reads a JSON, CSV or problem body as another type than it says (a CSV shown as HTML,
 * say; https://fetch.spec.whatwg.org/#x-content-type-options-header). The local server sends them
 * on its own answers too (bin/local/server.ts); API Gateway's own answers (its authorizer's 401, its
 * throttling's 429) cannot carry them.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };

export function securityHeaders(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> {
  const add = async (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyResultV2>) => {
    const response = request.response;
    if (typeof response !== 'object' || response === null) return;
    response.headers = { ...SECURITY_HEADERS, ...response.headers };
  };
  return { after: add, onError: add };
}
