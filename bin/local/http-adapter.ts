import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { NotFoundError } from '#shared/errors';

/**
 * Node HTTP ↔ API Gateway HTTP API (payload format 2.0), as API Gateway builds and reads them:
 * lower-case header names, repeated headers and query parameters joined with commas, cookies apart,
 * a text body (base64 for anything that is not UTF-8 text), and a structured or plain result.
 */
export interface LocalRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly cookies: string[];
  readonly body: Buffer;
}

/**
 * Reads a request: its body up to `maxBytes` (API Gateway refuses payloads over 10 MB before any
 * function runs), or 'too-large' as soon as the body is known to be larger (its Content-Length, or
 * the bytes read so far). The body's bytes still on their way are then read and dropped (see
 * {@link discardBody}), never left unread: a client that sends its whole body before it reads
 * (Python's `requests`) would otherwise get a reset connection instead of the 413. A client that
 * goes away before its body is whole rejects with {@link ClientGoneError}.
 */
export function readRequest(req: IncomingMessage, maxBytes: number): Promise<LocalRequest | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      discardBody(req);
      resolve('too-large');
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return refuse();
      chunks.push(chunk);
    };
    const onEnd = () => {
      req.off('error', onError);
      try {
        resolve(requestOf(req, Buffer.concat(chunks)));
      } catch (e) {
        reject(e);
      }
    };
    const onError = (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ECONNRESET' ? new ClientGoneError({ cause: e }) : e);
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return refuse();
    req.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

/** The client closed its connection before its request was whole: nobody is left to answer. */
export class ClientGoneError extends Error {
  constructor(options?: ErrorOptions) {
    super('the client closed the connection before its request was whole', options);
    this.name = 'ClientGoneError';
  }
}

/**
 * How long the rest of a refused body is read and dropped, as nginx's `lingering_time` (30 s):
 * enough for any client on a reasonable link to finish sending and read the answer; a connection
 * still sending then is closed.
 */
export const DISCARD_BODY_MS = 30_000;

/**
 * Reads the rest of a request's body and drops it, so that the answer already written reaches a
 * client still sending, and the connection closes cleanly (or serves the next request). A body
 * still arriving after `withinMs` has its connection closed.
 */
export function discardBody(req: IncomingMessage, withinMs = DISCARD_BODY_MS): void {
  const timer = setTimeout(() => req.socket.destroy(), withinMs).unref();
  req.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
  req.on('error', () => undefined).resume();
}

function requestOf(req: IncomingMessage, body: Buffer): LocalRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const cookies = (req.headers.cookie ?? '')
    .split(';')
    .map((c) => c.trim())
    .filter(Boolean);
  const method = req.method ?? 'GET';
  const url = targetUrl(req.url ?? '/');
  if (!url) throw new NotFoundError(`No route for ${method} ${req.url ?? ''}.`);
  return { method, url, headers, cookies, body };
}

/**
 * The request target (RFC 9112, 3.2) as a URL: the origin form `/path?query` taken as it is, the
 * absolute form `http://host/path` by its path; any other form names no resource here (undefined).
 * `new URL(target, base)` would read an origin form starting with `//` as a network-path reference,
 * so `//x/locations` would become host `x`, path `/locations`: here its path stays `//x/locations`.
 */
export function targetUrl(target: string): URL | undefined {
  const absolute = target.startsWith('/')
    ? `http://localhost${target}`
    : /^https?:\/\//i.test(target)
      ? target
      : undefined;
  return absolute !== undefined && URL.canParse(absolute) ? new URL(absolute) : undefined;
}

const isUtf8 = (body: Buffer): boolean => body.length === 0 || Buffer.from(body.toString('utf8'), 'utf8').equals(body);

/**
 * Whether API Gateway hands a body over as text: only `text/*`, JSON, XML and JavaScript bodies are
 * (everything else, NDJSON and a missing Content-Type among them, arrives base64-encoded with
 * `isBase64Encoded`). AWS's payload 2.0 docs say binary bodies are encoded without listing the
 * types; the list was verified against AWS in ministackorg/ministack#766.
 */
export function deliveredAsText(contentType: string | undefined, body: Buffer): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const textual =
    type.startsWith('text/') || ['application/json', 'application/xml', 'application/javascript'].includes(type);
  return textual && isUtf8(body);
}

export function toEvent(
  req: LocalRequest,
  route: { routeKey: string; pathParameters: Record<string, string> },
  claims: Record<string, string>,
  requestId: string,
): APIGatewayProxyEventV2WithJWTAuthorizer {
  const query: Record<string, string> = {};
  for (const [name, value] of req.url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const text = deliveredAsText(req.headers['content-type'], req.body);
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: req.url.pathname,
    rawQueryString: req.url.search.slice(1),
    ...(req.cookies.length > 0 ? { cookies: req.cookies } : {}),
    headers: req.headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(Object.keys(route.pathParameters).length > 0 ? { pathParameters: route.pathParameters } : {}),
    ...(req.body.length > 0 ? { body: text ? req.body.toString('utf8') : req.body.toString('base64') } : {}),
    isBase64Encoded: !text,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: req.headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method,
        path: req.url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
      // The token's scopes, as the JWT authorizer lists them from its `scope` claim.
      authorizer: {
        principalId: '',
        integrationLatency: 0,
        jwt: { claims, scopes: (claims.scope ?? '').split(' ').filter(Boolean) },
      },
    },
  } as APIGatewayProxyEventV2WithJWTAuthorizer;
}

/** Writes a Lambda result as API Gateway would (a plain object or string result becomes JSON 200). */
export function writeResult(res: ServerResponse, result: APIGatewayProxyResultV2): void {
  if (
    typeof result === 'string' ||
    !result ||
    typeof result !== 'object' ||
    !('statusCode' in result || 'body' in result)
  ) {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const body =
    result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : bytesOf(result.body);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers).end(body);
}

/** The last large body written, as bytes. */
let lastLarge: { readonly text: string; readonly bytes: Buffer } | undefined;

/**
 * A body's UTF-8 bytes, made once for a large body answered to many at once (identical reports share
 * one answer, functions/query-report.ts): every response then writes the same Buffer, where a string
 * was copied into each socket's buffer. Short bodies are encoded by the socket as usual.
 */
function bytesOf(text: string): string | Buffer {
  if (text.length < 64 * 1024) return text;
  if (lastLarge?.text === text) return lastLarge.bytes;
  const made = { text, bytes: Buffer.from(text, 'utf8') };
  lastLarge = made;
  // The sharers answer in the same turn of the event loop; hold it no longer.
  setImmediate(() => lastLarge === made && (lastLarge = undefined));
  return made.bytes;
}
