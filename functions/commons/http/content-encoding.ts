import { promisify } from 'node:util';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import Negotiator from 'negotiator';
import vary from 'vary';
import { lazy } from '../clients/lazy';

/**
 * The content codings answered, in the order taken when the client accepts several equally: brotli
 * at the quality below is both smaller and faster than gzip's default level on report JSON
 * (`npm run bench -- compression`), and every browser sends `gzip, deflate, br` with equal weights.
 */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** Bodies shorter than this go as they are: a few hundred bytes saved do not pay for the CPU. */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * Brotli quality 5 of 11: on report JSON it is both smaller and faster than gzip's default level
 * (which gzip keeps), while Node's default, 11, takes two orders of magnitude longer for a quarter
 * fewer bytes. Figures in docs/http.md.
 */
export const BROTLI_QUALITY = 5;

/**
 * The coding to answer in for an Accept-Encoding header (RFC 9110, 12.5.3: q-values, `*`,
 * `identity;q=0`), negotiated by negotiator, the parser @middy/http-content-negotiation uses too;
 * undefined means identity. When the client accepts none of ours, not even identity, the answer is
 * sent as it is rather than refused: a readable answer beats a 406 over a header.
 */
export function negotiateCoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  const [best] = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encodings(
    [...CONTENT_CODINGS, 'identity'],
    { preferred: CONTENT_CODINGS },
  );
  return CONTENT_CODINGS.find((c) => c === best);
}

/** zlib on the first compression, not at start: a cold start need not load what a short answer never uses. */
const zlib = lazy(async () => {
  const { brotliCompress, constants, gzip } = await import('node:zlib');
  return { gzip: promisify(gzip), brotli: promisify(brotliCompress), constants };
});

/** On libuv's thread pool, so that the local server (many requests, one process) is not blocked. */
async function compress(body: Buffer, coding: ContentCoding): Promise<Buffer> {
  const { gzip, brotli, constants } = await zlib();
  if (coding === 'gzip') return gzip(body);
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/**
 * How the bodies of one answer are sent: in the negotiated coding when they are long enough and
 * compression makes them shorter. The last body's encoding is kept, so that measuring a body
 * against the response ceiling and then sending it compresses it once.
 */
export class ResponseCoding {
  private last?: { readonly body: string; readonly encoded: Promise<Buffer | undefined> };

  constructor(readonly coding: ContentCoding | undefined) {}

  /** The body compressed, or undefined when it goes as it is. */
  encode(body: string): Promise<Buffer | undefined> {
    if (this.last?.body === body) return this.last.encoded;
    const encoded = this.compressed(body);
    this.last = { body, encoded };
    return encoded;
  }

  /**
   * Bytes the body takes in the Lambda response, what its 6 MB limit counts: a compressed body
   * travels in base64, a plain one as a JSON string (escapes included).
   */
  async sentBytes(body: string): Promise<number> {
    const encoded = await this.encode(body);
    return encoded ? 4 * Math.ceil(encoded.length / 3) + 2 : Buffer.byteLength(JSON.stringify(body));
  }

  private async compressed(body: string): Promise<Buffer | undefined> {
    if (!this.coding) return undefined;
    const bytes = Buffer.from(body, 'utf8');
    if (bytes.length < MIN_COMPRESSED_BYTES) return undefined;
    const encoded = await compress(bytes, this.coding);
    return encoded.length < bytes.length ? encoded : undefined;
  }
}

/** What contentEncoding leaves on the context for the handler. */
export type EncodingContext = Context & { responseCoding?: ResponseCoding };

/**
 * How many bytes a body will take in this answer's Lambda response, as contentEncoding will send it:
 * the measure the report's response ceiling applies to (shared/report/query-report.ts).
 */
export const sentBytesOf =
  (context: Context) =>
  (body: string): Promise<number> =>
    ((context as EncodingContext).responseCoding ?? new ResponseCoding(undefined)).sentBytes(body);

const headerName = (headers: Record<string, unknown>, name: string): string =>
  Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;

/**
 * Compression of successful answers by Accept-Encoding (API Gateway HTTP APIs do not compress): the
 * body is compressed and sent base64 with `isBase64Encoded`, which API Gateway decodes, and
 * `Content-Encoding` names the coding. `Vary: Accept-Encoding` goes on every successful answer,
 * compressed or not, since the choice depended on it. Problems (onError) go as they are: they are
 * short. Reads the lower-case `accept-encoding` (API Gateway lower-cases header names in payload 2.0).
 */
export function contentEncoding(): middy.MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  Error,
  EncodingContext
> {
  return {
    before: async ({ event, context }) => {
      context.responseCoding = new ResponseCoding(negotiateCoding(event.headers?.['accept-encoding']));
    },
    after: async ({ response, context }) => {
      if (typeof response !== 'object' || response === null) return;
      const headers = { ...response.headers };
      const varyName = headerName(headers, 'Vary');
      headers[varyName] = vary.append(String(headers[varyName] ?? ''), 'Accept-Encoding');
      response.headers = headers;
      const coding = context.responseCoding;
      if (
        !coding?.coding ||
        typeof response.body !== 'string' ||
        response.isBase64Encoded ||
        headerName(headers, 'Content-Encoding') in headers
      )
        return;
      // A strong ETag names one representation (RFC 9110, 8.8.3): a compressed body would be another.
      // Such answers (a location and its revision, ./preconditions.ts) go as they are.
      const etag = headers[headerName(headers, 'ETag')];
      if (typeof etag === 'string' && !etag.startsWith('W/')) return;
      const encoded = await coding.encode(response.body);
      if (!encoded) return;
      response.body = encoded.toString('base64');
      response.isBase64Encoded = true;
      headers['Content-Encoding'] = coding.coding;
    },
  };
}
