import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import {
  AppError,
  InternalError,
  MalformedBodyError,
  NotAcceptableError,
} from '#shared/errors';
import { renderProblem } from '#shared/report/render/problem';
import { logger } from '../powertools/logger';

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
      return new MalformedBodyError(error.cause.message ? `The body is not valid JSON: ${error.cause.message}` : 'A JSON body is required.');
    }
    if (error.statusCode === 406) return new NotAcceptableError(available);
  }
  return new InternalError({ cause: error });
}

/** The one edge error middleware: logs, then answers problem+json. Never leaks internals. */
export const problemErrors = (options: { availableMediaTypes?: readonly string[] } = {}): middy.MiddlewareObj<unknown, APIGatewayProxyResultV2> => ({
  onError: async (request) => {
    const error = toAppError(request.error, options.availableMediaTypes);
    if (error.status >= 500) logger.error('request failed', { error: request.error as Error });
    else logger.info('request refused', { status: error.status, detail: error.detail });
    const { status, headers, body } = renderProblem(error);
    request.response = { statusCode: status, headers, body };
  },
});
