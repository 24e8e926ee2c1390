import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { DevKey } from './auth/dev-key';
import { type TrustedIssuer, tokenVerifier } from './auth/issuer';
import { bearerToken, toAuthorizerClaims } from './auth/tokens';
import {
  AppError,
  EngineUnavailableError,
  ForbiddenError,
  InternalError,
  MisdirectedRequestError,
  NotFoundError,
  PayloadTooLargeError,
} from '#shared/errors';
import { organizationClaim } from '#commons/http/identity';
import { TOKEN_PATH } from './machine-credentials';
import { lazy } from '#commons/clients/lazy';
import { renderProblem } from '#shared/report/render/problem';
import { problemTypeBase } from '#commons/http/problem-middleware';
import { SECURITY_HEADERS } from '#commons/http/security-headers';
import type { Route } from '../../functions/routes';
import { type ExplorerSite, serveExplorer } from './explorer';
import { answerClientError } from './client-errors';
import { ClientGoneError, readRequest, toEvent, writeResult } from './http-adapter';
import { isOwnHost, ownHosts } from './own-host';
import { matchRoute } from './router';

type Handler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<APIGatewayProxyResultV2>;

/**
 * The Lambda handlers themselves, loaded on first use (after the environment is set), once: an
 * `import()` per request went through the module loader's resolve step every time.
 */
const HANDLERS: Record<Route['handler'], () => Promise<{ handler: Handler }>> = {
  'list-locations': lazy(() => import('../../functions/list-locations')),
  'manage-locations': lazy(() => import('../../functions/manage-locations')),
  'manage-ingest-clients': lazy(() => import('../../functions/manage-ingest-clients')),
  'manage-webhook-endpoints': lazy(() => import('../../functions/manage-webhook-endpoints')),
  'manage-alert-rules': lazy(() => import('../../functions/manage-alert-rules')),
  'live-insights': lazy(() => import('../../functions/live-insights')),
  'occupancy-history': lazy(() => import('../../functions/occupancy-history')),
  'sites-overview': lazy(() => import('../../functions/sites-overview')),
  'query-report': lazy(() => import('../../functions/query-report')),
  ingest: lazy(() => import('../../functions/ingest')),
  health: lazy(() => import('../../functions/health')),
  problems: lazy(() => import('../../functions/problems')),
};

const DEFAULT_HOST = '127.0.0.1';

/** API Gateway's own payload limit. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export interface LocalServerOptions {
  readonly port: number;
  /** The address to listen on; its name is answered for besides the loopback names. @default 127.0.0.1 */
  readonly host?: string;
  /** Verifies bearer tokens as the API Gateway JWT authorizer would. */
  readonly devKey: DevKey;
  /** An OpenID Connect provider whose tokens are accepted too (`--jwt-issuer`). */
  readonly issuer?: TrustedIssuer;
  readonly openApi: Record<string, unknown>;
  /** The report explorer at `/` (web/); none: `/` is a 404 like any unknown path. */
  readonly explorer?: ExplorerSite;
  readonly log?: (line: string) => void;
  /**
   * The handlers' timeout (their context's remaining time starts there), as the deployed functions' 29 s. @default
   * 29000
   */
  readonly functionTimeoutMs?: number;
  /** How long close() waits for the answers in progress. @default CLOSE_GRACE_MS */
  readonly closeGraceMs?: number;
  /**
   * Machine clients registered through `POST /ingest-clients`: the token endpoint (`POST /oauth2/token`)
   * that gives them ingest tokens, and the check of the ingest route that refuses a revoked client's
   * tokens (403, as the stack's Lambda authorizer). @default none: no token endpoint
   */
  readonly machineClients?: LocalMachineClients;
}

/** What the server needs of the machine clients (./machine-credentials.ts). */
export interface LocalMachineClients {
  /** Answers `POST /oauth2/token`. */
  token(request: {
    readonly contentType: string | undefined;
    readonly authorization: string | undefined;
    readonly body: string;
  }): Promise<{ status: number; headers: Record<string, string>; body: string }>;
  /** Whether a token of this client of this organization may ingest (registered, not revoked, of that organization). */
  mayIngest(clientId: string, organizationId: string): Promise<boolean>;
}

export interface LocalServer {
  readonly url: string;
  /**
   * Lets the answers being worked on be written (a report the engine's close interrupted answers
   * 503, an ingest whose write had begun its 200) for up to CLOSE_GRACE_MS, answers whatever is
   * still unanswered then 503 with Retry-After (the ingest retry rule sends such a batch again),
   * lets the requests still being sent arrive whole (up to DRAIN_MS) and closes every connection.
   * Until then it keeps taking connections only to answer their requests that 503 at once: a
   * connection opened a moment before the signal, or kept alive, gets an answer, never a reset.
   */
  close(): Promise<void>;
}

/**
 * How long close() waits for answers in progress. A report on DuckDB answers within milliseconds
 * of its interrupt; one the interrupt does not reach (on OpenSearch) is cut after this, well inside
 * npm start's 10 s bound on stopping.
 */
export const CLOSE_GRACE_MS = 5_000;

/**
 * How long close() lets requests still being sent (a large ingest batch on a slow link) arrive after
 * their 503 was written: a socket closed with unread bytes is reset (TCP RST), and the client then
 * sees ECONNRESET instead of the answer it could retry on. Grace and drain stay inside npm start's
 * 10 s bound on stopping.
 */
export const DRAIN_MS = 2_000;

/**
 * Plays API Gateway locally: routes (functions/routes.ts), a JWT authorizer with the development key
 * (and the trusted issuer's keys, if any),
 * the payload 2.0 event, and the real handlers. No second copy of routing or validation.
 */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const log = options.log ?? (() => undefined);
  const verifyToken = tokenVerifier(options.devKey, options.issuer);
  const bindHost = options.host ?? DEFAULT_HOST;
  let hosts: string[] = [];
  /** Answers not yet written in full, and how to refuse each: close() waits for them, then refuses the rest. */
  const unanswered = new Map<ServerResponse, () => void>();
  /**
   * Requests whose bytes have not all arrived: close() lets them arrive (up to DRAIN_MS) before closing their sockets.
   */
  const arriving = new Set<IncomingMessage>();
  let closing = false;
  const server: Server = createServer((req, res) => {
    const started = performance.now();
    unanswered.set(res, () => writeProblem(stopping()));
    res.once('close', () => unanswered.delete(res));
    if (!req.complete) {
      arriving.add(req);
      const arrived = () => arriving.delete(req);
      req.once('end', arrived).once('close', arrived);
    }
    // As API Gateway's request id, one per request, on every answer (the handlers' and the server's own).
    const requestId = randomUUID();
    res.setHeader('x-request-id', requestId);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    void (async () => {
      if (closing) {
        // A request already on its way in (pipelined) when close() began: refused, not dropped.
        res.shouldKeepAlive = false;
        writeProblem(stopping());
        // Read (and drop) what the client still sends, so that its socket is not reset under the answer.
        return void req.resume();
      }
      // Before anything is read or answered: see ./own-host.ts.
      if (!isOwnHost(req.headers.host, hosts))
        return writeProblem(new MisdirectedRequestError(req.headers.host ?? '', hosts));
      const request = await readRequest(req, MAX_PAYLOAD_BYTES);
      if (request === 'too-large') return writeProblem(new PayloadTooLargeError(MAX_PAYLOAD_BYTES));
      if ((request.method === 'GET' || request.method === 'HEAD') && request.url.pathname === '/openapi.json') {
        return writeResult(res, {
          statusCode: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(options.openApi),
        });
      }
      if (options.machineClients && request.method === 'POST' && request.url.pathname === TOKEN_PATH) {
        const answer = await options.machineClients.token({
          contentType: request.headers['content-type'],
          authorization: request.headers.authorization,
          body: request.body.toString('utf8'),
        });
        return writeResult(res, { statusCode: answer.status, headers: answer.headers, body: answer.body });
      }
      if (options.explorer && (await serveExplorer(options.explorer, request.method, request.url.pathname, res)))
        return;
      const match = matchRoute(request.method, request.url.pathname);
      if (!match) return writeProblem(new NotFoundError(`No route for ${request.method} ${request.url.pathname}.`));
      const claims = match.route.public
        ? {}
        : toAuthorizerClaims(await verifyToken(bearerToken(request.headers.authorization)));
      // A machine client's token on the ingest route: refused once the client is revoked, as the stack's authorizer
      // does.
      const clientId = claims.client_id;
      if (
        match.route.handler === 'ingest' &&
        clientId &&
        options.machineClients &&
        !(await options.machineClients.mayIngest(clientId, claims[organizationClaim()] ?? ''))
      ) {
        return writeProblem(new ForbiddenError(`The machine client ${clientId} is revoked or not registered.`));
      }
      const { handler } = await HANDLERS[match.route.handler]();
      const event = toEvent(request, match, claims, requestId);
      writeResult(
        res,
        await handler(event, lambdaContext(match.route.handler, requestId, options.functionTimeoutMs ?? 29_000)),
      );
    })()
      .catch((e: unknown) => {
        // Nobody to answer, and nothing wrong here: a line when requests are logged, never a stack.
        if (e instanceof ClientGoneError)
          return log(`${req.method} ${req.url} client closed the connection before its request was whole ${requestId}`);
        writeProblem(e instanceof AppError ? e : new InternalError({ cause: e }));
      })
      .finally(
        () =>
          res.headersSent &&
          log(`${req.method} ${req.url} ${res.statusCode} ${(performance.now() - started).toFixed(0)} ms ${requestId}`),
      );

    function writeProblem(error: AppError): void {
      if (res.headersSent) return;
      if (error.status >= 500 && !(error instanceof ServerStoppingError))
        console.error(requestId, error.cause ?? error);
      const { status, headers, body } = renderProblem(error, { requestId, ...problemTypeBase() });
      writeResult(res, { statusCode: status, headers, body });
    }
  });
  // What Node answers itself (unparseable requests, headers too large, too slow): problem+json too.
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, bindHost, resolve));
  const { port } = server.address() as AddressInfo;
  hosts = ownHosts(port, bindHost);
  return {
    url: `http://localhost:${port}`,
    async close() {
      closing = true;
      // Every answer from now on closes its connection: none is kept alive for a next request.
      for (const res of unanswered.keys()) res.shouldKeepAlive = false;
      // Not server.close() nor closeIdleConnections() yet: a connection in the listen backlog, or one
      // whose request has not begun to arrive, counts as idle and would be reset; kept, it is answered
      // 503 at once (above), and so is a next request on a connection kept alive.
      await within(
        Promise.all([...unanswered.keys()].map((res) => once(res, 'close').catch(() => undefined))),
        options.closeGraceMs ?? CLOSE_GRACE_MS,
      );
      // What the grace did not see answered is answered now, never dropped: its client may retry.
      for (const refuse of unanswered.values()) refuse();
      for (const req of arriving) req.resume();
      await within(Promise.all([...arriving].map((req) => once(req, 'end').catch(() => undefined))), DRAIN_MS);
      await new Promise((resolve) => setImmediate(resolve));
      // Now stop listening, and close the connections kept alive and whatever outlasted the drain.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** 503: the server is stopping; a request it could not finish is refused so that its client sends it again. */
class ServerStoppingError extends EngineUnavailableError {
  constructor() {
    super(
      'The local server is stopping and did not finish this request. Send it again once the server runs (an ingest batch whole: what of it was written comes back as duplicates).',
      5,
    );
  }
}

const stopping = () => new ServerStoppingError();

/**
 * Holds a port until release(): npm start takes its port before it seeds a data folder (seconds of
 * work), so that a port in use stops it at once with EADDRINUSE, as listen would later, rather than
 * after the seeding. Released just before the server listens on it.
 */
export async function reservePort(port: number, host = DEFAULT_HOST): Promise<{ release(): Promise<void> }> {
  const holder = createNetServer();
  await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(port, host, resolve));
  return { release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
}

function lambdaContext(functionName: string, awsRequestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Waits for `work` at most `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
