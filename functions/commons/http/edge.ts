import type middy from '@middy/core';
import { observability } from '../powertools/observability';
import { contentEncoding } from './content-encoding';
import { problemErrors } from './problem-middleware';
import { requestId } from './request-id';

/**
 * The middlewares every HTTP handler starts with, in this order: Powertools (tracer, logger context,
 * metrics), the request id (logger correlation id; `X-Request-Id` on every answer), the problem+json
 * error mapping, then compression by Accept-Encoding. middy runs `after` and `onError` middlewares
 * last-used first, so an error is rendered (and logged with the request id) before the id names the
 * answer and before the logger forgets its keys, and a handler's own middlewares used after these
 * (conditional GET, Accept negotiation) see the plain body before it is compressed.
 * `availableMediaTypes` is what a 406 names.
 */
export function httpEdge(options: { readonly availableMediaTypes?: readonly string[] } = {}): middy.MiddlewareObj[] {
  return [...observability(), requestId(), problemErrors(options), contentEncoding()] as middy.MiddlewareObj[];
}
