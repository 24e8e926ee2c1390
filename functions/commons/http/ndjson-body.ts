import { promisify } from 'node:util';
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MalformedBodyError, PayloadTooLargeError, UnsupportedMediaTypeError } from '#shared/errors';
import { MAX_DECODED_BYTES, MAX_SENT_BYTES, NDJSON_MEDIA_TYPE } from '#shared/ingest/limits';
import { lazy } from '../clients/lazy';
import { clip, unsupportedContentType } from './content-type';

/** The content codings a request body may have: gzip, what every HTTP client and gateway can send. */
export const REQUEST_CODINGS = ['gzip'] as const;

const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

const gunzip = lazy(async () => promisify((await import('node:zlib')).gunzip));

/**
 * An NDJSON request body, decoded, with every bound checked before the next step runs:
 * 415 unless the media type is `application/x-ndjson` (UTF-8) and the coding none or gzip (the 415
 * then names the codings in `Accept-Encoding`, RFC 9110 §15.5.16); 413 over {@link MAX_SENT_BYTES}
 * as sent, or over {@link MAX_DECODED_BYTES} once decoded (gunzip stops at the bound, so a small
 * body that inflates without end costs no more than the bound); 400 for a corrupt gzip stream, text
 * that is not UTF-8, or no body. Leaves the text in `event.body` (`isBase64Encoded` false).
 */
export const ndjsonBody = (): middy.MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: async ({ event }) => {
    const mediaTypeProblem = unsupportedContentType(event.headers?.['content-type'], NDJSON_MEDIA_TYPE, 'NDJSON');
    if (mediaTypeProblem) throw new UnsupportedMediaTypeError([NDJSON_MEDIA_TYPE], mediaTypeProblem);
    const coding = (event.headers?.['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (coding !== 'identity' && !(REQUEST_CODINGS as readonly string[]).includes(coding)) {
      throw new UnsupportedMediaTypeError(
        [NDJSON_MEDIA_TYPE],
        `Content-Encoding ${clip(coding)} is not supported (${REQUEST_CODINGS.join(', ')} or none)`,
        {
          'Accept-Encoding': REQUEST_CODINGS.join(', '),
        },
      );
    }
    if (!event.body) throw new MalformedBodyError('A body of NDJSON documents, one per line, is required.');
    const sentBytes = event.isBase64Encoded ? base64Bytes(event.body) : Buffer.byteLength(event.body);
    if (sentBytes > MAX_SENT_BYTES) {
      throw new PayloadTooLargeError(
        MAX_SENT_BYTES,
        `The body must be at most ${mib(MAX_SENT_BYTES)} as sent (it is ${sentBytes} bytes); compress it (Content-Encoding: gzip) or send fewer lines per request.`,
      );
    }
    let bytes: Buffer = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
    if (coding === 'gzip') bytes = await inflate(bytes);
    if (bytes.length > MAX_DECODED_BYTES)
      throw new PayloadTooLargeError(
        MAX_DECODED_BYTES,
        `The body must be at most ${mib(MAX_DECODED_BYTES)} of NDJSON once decoded; send fewer lines per request.`,
      );
    event.body = utf8(bytes);
    event.isBase64Encoded = false;
  },
});

async function inflate(bytes: Buffer): Promise<Buffer> {
  try {
    return await (await gunzip())(bytes, { maxOutputLength: MAX_DECODED_BYTES + 1 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new PayloadTooLargeError(
        MAX_DECODED_BYTES,
        `The body must be at most ${mib(MAX_DECODED_BYTES)} of NDJSON once decoded; send fewer lines per request.`,
      );
    }
    throw new MalformedBodyError(`The body is not a valid gzip stream: ${(e as Error).message}`);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function utf8(bytes: Buffer): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new MalformedBodyError('The body is not UTF-8 text.');
  }
}

/** Bytes a base64 text stands for, without decoding it. */
const base64Bytes = (text: string): number =>
  Math.floor((text.length * 3) / 4) - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
