import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MalformedBodyError, UnsupportedMediaTypeError } from '#shared/errors';
import { clip, unsupportedContentType } from './content-type';

/** The one media type a request body may have. */
export const JSON_BODY_TYPES = ['application/json'] as const;

/**
 * The deepest nesting of arrays and objects a JSON body may have. A report nests about ten levels;
 * validating (zod) and copying a value recurse once per level, so a body nested thousands of levels
 * deep would overflow the stack (a 500) however small it is.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a JSON text nests arrays and objects deeper than `max`: brackets counted outside strings, before any parse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Documented (https://middy.js.org/docs/middlewares/http-json-body-parser), missing from its types. */
const PARSE_ANY_CONTENT_TYPE = { disableContentTypeCheck: true, disableContentTypeError: false };

/**
 * A JSON request body: 400 when there is none, 415 naming application/json when it is not declared
 * as JSON (a missing Content-Type included), 415 with `Accept-Encoding: identity` when it has a
 * content coding, 400 when it nests deeper than {@link MAX_JSON_DEPTH}, then @middy/http-json-body-parser parses it
 * (400 when it is not JSON). That parser's own check is a case-sensitive pattern that also takes any `+json` type,
 * and its error for a missing Content-Type looks like its error for a missing body, so the check is
 * ours and the parser's is off. Expects lower-case header names (@middy/http-header-normalizer first).
 */
export const jsonBody = (): middy.MiddlewareObj<APIGatewayProxyEventV2>[] => [
  {
    before: async ({ event }) => {
      if (event.body === undefined || event.body === '') throw new MalformedBodyError('A JSON body is required.');
      const reason = unsupportedContentType(event.headers?.['content-type'], 'application/json', 'JSON');
      if (reason) throw new UnsupportedMediaTypeError(JSON_BODY_TYPES, reason);
      // A coded body is refused rather than read as JSON (RFC 9110 §15.5.16: Accept-Encoding names
      // what is taken); a report body is at most 64 KiB, so compressing it saves nothing worth a decoder.
      const coding = (event.headers?.['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (coding !== 'identity') {
        throw new UnsupportedMediaTypeError(
          JSON_BODY_TYPES,
          `Content-Encoding ${clip(coding)} is not supported (send the body as it is)`,
          { 'Accept-Encoding': 'identity' },
        );
      }
      if (nestsDeeperThan(event.body, MAX_JSON_DEPTH)) {
        throw new MalformedBodyError(
          `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; a report needs far fewer.`,
          { extensions: { maxDepth: MAX_JSON_DEPTH } },
        );
      }
    },
  },
  httpJsonBodyParser(PARSE_ANY_CONTENT_TYPE),
];
