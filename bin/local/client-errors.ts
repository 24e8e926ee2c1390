import { randomUUID } from 'node:crypto';
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type AppError,
  HeadersTooLargeError,
  MalformedRequestError,
  PayloadTooLargeError,
  RequestTimeoutError,
} from '#shared/errors';
import { renderProblem } from '#shared/report/render/problem';
import { problemTypeBase } from '#commons/http/problem-middleware';
import { SECURITY_HEADERS } from '#commons/http/security-headers';

/**
 * What Node's HTTP server answers itself, before any request reaches a route, as problem+json like
 * every other answer of the service (Node's own are bodiless): a request its parser cannot read
 * (400), headers over `maxHeaderSize` (431), chunk extensions over its limit (413), a request that
 * did not arrive within `headersTimeout` or `requestTimeout` (408). Written only on a connection that
 * has not begun an answer (as Node's default handler checks), then closed, as Node does: the parser
 * cannot find the next request after a broken one. A connection the client already reset gets nothing.
 * Node's `clientError` event: https://nodejs.org/api/http.html#event-clienterror
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex & { readonly bytesWritten?: number },
): void {
  if (error.code === 'ECONNRESET' || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const { status, headers, body } = renderProblem(clientProblem(error.code), { requestId, ...problemTypeBase() });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    ...Object.entries({
      ...headers,
      ...SECURITY_HEADERS,
      'X-Request-Id': requestId,
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    }).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

function clientProblem(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HeadersTooLargeError(maxHeaderSize);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new PayloadTooLargeError(
        16 * 1024,
        'The chunk extensions of the body are larger than this server reads (16 KiB).',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeoutError();
    default:
      return new MalformedRequestError();
  }
}
