import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { AppError, InternalError, MalformedBodyError, NotAcceptableError } from '#shared/errors';
import { renderProblem } from '#shared/report/render/problem';
import { ENV } from '../env';
import { logger } from '../powertools/logger';
import { requestIdOf } from './request-id';

interface MiddyHttpError extends Error {
  statusCode: number;
  cause?: { package?: string; data?: unknown; message?: string };
}

const isMiddyHttpError = (e: unknown): e is MiddyHttpError =>
  e instanceof Error && typeof (e as MiddyHttpError).statusCode === 'number';

/**
 * Any error → an AppError. middy's parsers throw their own HTTP errors (and answer malformed JSON
 * with 415); they are mapped to ours so that every answer is problem+json with our statuses. The
 * body's media type is checked before the JSON parser runs (./json-body.ts), so what the parser
 * refuses is the body itself: 400.
 */
export function toAppError(error: unknown, available: readonly string[] = []): AppError {
  if (error instanceof AppError) return error;
  if (isMiddyHttpError(error)) {
    if (error.cause?.package === '@middy/http-json-body-parser') {
      return new MalformedBodyError(
        error.cause.message ? `The body is not valid JSON: ${error.cause.message}` : 'A JSON body is required.',
      );
    }
    if (error.statusCode === 406) return new NotAcceptableError(available);
  }
  return new InternalError({ cause: error });
}

/** The deployment's problem type base (the stack sets it from the `problemTypeBase` setting), if any. */
export function problemTypeBase(): { problemTypeBase?: string } {
  const base = process.env[ENV.problemTypeBase];
  return base ? { problemTypeBase: base } : {};
}

/**
 * The one edge error middleware: logs, then answers problem+json with the request's id (`requestId`).
 * Never leaks internals. The log line names the request itself (`correlation_id`) rather than
 * relying on the logger's keys: the local server runs many requests in one process, one logger.
 */
export const problemErrors = (
  options: { availableMediaTypes?: readonly string[] } = {},
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> => ({
  onError: async (request) => {
    const error = toAppError(request.error, options.availableMediaTypes);
    const requestId = requestIdOf(request.event);
    const correlation = requestId === undefined ? {} : { correlation_id: requestId };
    if (error.status >= 500) logger.error('request failed', { ...correlation, error: request.error as Error });
    else logger.info('request refused', { ...correlation, status: error.status, detail: error.detail });
    const { status, headers, body } = renderProblem(error, {
      ...(requestId === undefined ? {} : { requestId }),
      ...problemTypeBase(),
    });
    request.response = { statusCode: status, headers, body };
  },
});
