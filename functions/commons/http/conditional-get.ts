import { createHash } from 'node:crypto';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import fresh from 'fresh';

/**
 * A weak entity tag of a body: its SHA-256, base64url, cut to 128 bits. Weak because the body may be
 * sent compressed (./content-encoding.ts), and a strong validator must differ between a
 * representation's codings (RFC 9110, 8.8.3); a weak one is all `If-None-Match` compares anyway
 * (weak comparison, RFC 9110, 13.1.2).
 */
export function weakEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

function headerOf(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const key = Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : String(headers![key]);
}

/** What a 304 keeps of the 200 it stands for: RFC 9110, 15.4.5 (Content-Type is representation metadata). */
const DROPPED_ON_304 = new Set(['content-type', 'content-length', 'content-encoding']);

/**
 * Conditional GET: every 200 gets an ETag computed from its body, and a request whose
 * `If-None-Match` names it (or `*`) is answered 304 with no body and the headers of the 200 it
 * stands for (ETag, Cache-Control, Vary), so a dashboard polling every minute moves no bytes while
 * nothing changed. The comparison is the `fresh` package's (Express's): weak, lists, `*`; a request's
 * `Cache-Control: no-cache` does not change it (it speaks to caches). Use it after contentEncoding, so that the ETag
 * is computed on the plain body and a 304 is not compressed.
 */
export function conditionalGet(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> {
  return {
    after: async (request) => {
      const response = request.response;
      if (
        typeof response !== 'object' ||
        response === null ||
        response.statusCode !== 200 ||
        typeof response.body !== 'string'
      )
        return;
      // An ETag the handler set (a strong one naming a revision, ./preconditions.ts) is kept.
      const etag = headerOf(response.headers, 'etag') ?? weakEtag(response.body);
      const headers = {
        ...Object.fromEntries(Object.entries(response.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'etag')),
        ETag: etag,
      };
      // Only If-None-Match is handed over: `fresh` answers "stale" to any request with
      // `Cache-Control: no-cache`, which fetch (undici, browsers) adds to every request carrying
      // If-None-Match; that directive is for caches (RFC 9111 §5.2.1.4), while the origin evaluates
      // the precondition (RFC 9110 §13.2.1).
      const ifNoneMatch = request.event.headers?.['if-none-match'];
      if (ifNoneMatch === undefined || !fresh({ 'if-none-match': ifNoneMatch }, { etag })) {
        response.headers = headers;
        return;
      }
      const kept = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !DROPPED_ON_304.has(name.toLowerCase())),
      );
      request.response = { statusCode: 304, headers: kept };
    },
  };
}
