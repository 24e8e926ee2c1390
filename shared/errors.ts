import type { ProblemSlug } from './problem-types';
import { problemTypeUri } from './problem-uri';

/**
 * One error family for the whole service. Every error knows its HTTP status and its RFC 9457
 * problem type, so the edge (functions/commons/http/problem-middleware.ts) maps errors without a table.
 * The problem types, their titles and their documentation are listed in ./problem-types.ts.
 */

/** One invalid part of a request: a JSON Pointer into the body (or the query string) and why. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** RFC 9457 problem details, as sent to clients with `application/problem+json`. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  readonly [extension: string]: unknown;
}

export interface AppErrorOptions extends ErrorOptions {
  /** Extra response headers, e.g. Retry-After. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extension members added to the problem body. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** Base class: status, problem type slug, title and a detail that is safe to show to the caller. */
export class AppError extends Error {
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(
    readonly status: number,
    readonly slug: ProblemSlug,
    readonly title: string,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, options);
    this.name = new.target.name;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  /**
   * `typeBase`: where the problem types are documented (DEFAULT_PROBLEM_TYPE_BASE unless a deployment says otherwise).
   */
  toProblem(typeBase?: string): Problem {
    return {
      type: problemTypeUri(this.slug, typeBase),
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...this.extensions,
    };
  }
}

/** 400: the request is well-formed JSON but breaks the request language. Lists every error. */
export class ValidationError extends AppError {
  constructor(
    readonly errors: readonly FieldError[],
    detail?: string,
  ) {
    super(400, 'validation', 'Invalid request', detail ?? summarize(errors));
  }

  override toProblem(typeBase?: string): Problem {
    return { ...super.toProblem(typeBase), errors: this.errors };
  }
}

function summarize(errors: readonly FieldError[]): string {
  const first = errors[0];
  if (!first) return 'The request is invalid.';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${first.path || '/'}: ${first.message}${more}`;
}

/** 400 for a body that is not JSON at all. */
export class MalformedBodyError extends AppError {
  constructor(detail: string, options?: AppErrorOptions) {
    super(400, 'malformed-body', 'Malformed request body', detail, options);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'A valid bearer token is required.') {
    super(401, 'unauthorized', 'Unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

/**
 * 403: the token is valid but does not grant this request: an ingest token reading, or a reading
 * token writing. `scope` names the scope the request needs (RFC 6750 §3.1 `insufficient_scope`).
 */
export class ForbiddenError extends AppError {
  constructor(detail: string, scope?: string) {
    super(403, 'forbidden', 'Forbidden', detail, {
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope"${scope ? `, scope="${scope}"` : ''}` },
      ...(scope ? { extensions: { scope } } : {}),
    });
  }
}

/**
 * 403: a report's `locationIds` name locations outside the token's grant; `errors` points at each.
 * Refused rather than narrowed, so that a report never answers less than it asked without saying so.
 */
export class LocationsNotGrantedError extends AppError {
  constructor(readonly errors: readonly FieldError[]) {
    super(
      403,
      'forbidden',
      'Forbidden',
      `${errors.length === 1 ? 'A location' : `${errors.length} locations`} of locationIds ${errors.length === 1 ? 'is' : 'are'} outside this token's grant: ${errors[0]?.path}.`,
      {
        headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' },
        extensions: { errors },
      },
    );
  }
}

export class NotFoundError extends AppError {
  constructor(detail: string) {
    super(404, 'not-found', 'Not found', detail);
  }
}

/**
 * 405: the path exists but not with this method; `Allow` (required on a 405, RFC 9110 §15.5.6) and
 * `allowed` list the methods it has.
 */
export class MethodNotAllowedError extends AppError {
  constructor(
    method: string,
    path: string,
    readonly allowed: readonly string[],
  ) {
    super(
      405,
      'method-not-allowed',
      'Method not allowed',
      `${path} does not answer ${method}; it answers ${allowed.join(', ')}.`,
      {
        headers: { Allow: allowed.join(', ') },
        extensions: { allowed },
      },
    );
  }
}

/**
 * 421 (RFC 9110 §15.5.20): the request names a host this server does not answer for. The local
 * server's guard against DNS rebinding (bin/local/server.ts).
 */
export class MisdirectedRequestError extends AppError {
  constructor(
    host: string,
    readonly allowed: readonly string[],
  ) {
    super(
      421,
      'misdirected-request',
      'Misdirected request',
      `This server does not answer for the host "${host.slice(0, 100)}"; use ${allowed[0]}.`,
      {
        extensions: { allowed },
      },
    );
  }
}

/**
 * What Node's HTTP parser refuses before any route sees the request (the local server's `clientError`,
 * bin/local/client-errors.ts): 400 a request it cannot read, 408 one too slow to arrive, 431 headers
 * over its limit.
 */
export class MalformedRequestError extends AppError {
  constructor(detail = 'The request could not be read as HTTP/1.1 (its request line, a header or its framing).') {
    super(400, 'malformed-request', 'Malformed request', detail);
  }
}

export class RequestTimeoutError extends AppError {
  constructor(detail = 'The request did not arrive in time.') {
    super(408, 'request-timeout', 'Request timeout', detail);
  }
}

export class HeadersTooLargeError extends AppError {
  constructor(maxBytes: number) {
    super(
      431,
      'headers-too-large',
      'Request header fields too large',
      `The request's headers take more than the ${maxBytes} bytes this server reads; send fewer or shorter headers.`,
      {
        extensions: { maxBytes },
      },
    );
  }
}

export class NotAcceptableError extends AppError {
  constructor(readonly allowed: readonly string[]) {
    super(406, 'not-acceptable', 'Not acceptable', `Allowed values of Accept: ${allowed.join(', ')}.`, {
      extensions: { allowed },
    });
  }
}

/** 413: the body is over a limit; `detail` says which (the default names a byte limit). */
export class PayloadTooLargeError extends AppError {
  constructor(limit: number, detail = `The body must be at most ${limit} bytes.`) {
    super(413, 'payload-too-large', 'Payload too large', detail);
  }
}

/**
 * 415 naming the media types a body may have, in the problem (`allowed`) and in an `Accept` header,
 * which a response may carry to say what a request's content could have been (RFC 9110, 12.5.1).
 */
export class UnsupportedMediaTypeError extends AppError {
  constructor(
    readonly allowed: readonly string[],
    reason: string,
    /** More headers, e.g. `Accept-Encoding` naming the content codings a body may have (RFC 9110, 15.5.16). */
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(
      415,
      'unsupported-media-type',
      'Unsupported media type',
      `${reason}; the body must be ${allowed.join(' or ')}.`,
      {
        headers: { Accept: allowed.join(', '), ...headers },
        extensions: { allowed },
      },
    );
  }
}

/** 422: the engine refused because the pipeline would create more buckets than allowed. */
export class TooManyBucketsError extends AppError {
  /** `detail` replaces the default one, which advises a split; `options.extensions` add to `maxBuckets`. */
  constructor(
    readonly limit: number | undefined,
    options?: AppErrorOptions,
    detail?: string,
  ) {
    const limitText = limit === undefined ? 'the configured bucket limit' : `the bucket limit of ${limit}`;
    super(
      422,
      'too-many-buckets',
      'Too many buckets',
      detail ??
        `This report would create more buckets than ${limitText}. Narrow the time range, use a coarser ` +
          'dateHistogram interval, or add "splitInterval" (for example "1M") to run it in slices.',
      { ...options, extensions: { ...(limit === undefined ? {} : { maxBuckets: limit }), ...options?.extensions } },
    );
  }
}

/** 503: the engine is unreachable, overloaded or timed out. The caller may retry. */
export class EngineUnavailableError extends AppError {
  constructor(detail: string, retryAfterSeconds = 5, options?: ErrorOptions) {
    super(503, 'engine-unavailable', 'Service unavailable', detail, {
      ...options,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/**
 * Retry-After of a timed-out or too expensive report: long enough for a burst to pass, short enough to be worth
 * waiting.
 */
export const REPORT_TIMEOUT_RETRY_AFTER_SECONDS = 10;

/**
 * 503: the report reached its deadline and its engine work was stopped (a DuckDB interrupt, an
 * aborted `_search` that also carried a `timeout`). 503 rather than 422 because the same report may
 * fit on a less busy engine; Retry-After says when to try, the detail how to make it cheaper.
 */
export class ReportTimeoutError extends AppError {
  /** `budgetMs`: the time the report had, when known. */
  constructor(
    readonly budgetMs?: number,
    options?: ErrorOptions,
  ) {
    const budget = budgetMs === undefined ? 'the time' : `the ${(budgetMs / 1000).toFixed(1)} s`;
    super(
      503,
      'report-timeout',
      'Report timed out',
      `This report did not finish within ${budget} a report may take, and its query was stopped. ` +
        'Try again when the service is less busy, or make the report cheaper: narrow the time range, use fewer ' +
        'buckets (a coarser dateHistogram interval, fewer filters buckets), or add "splitInterval".',
      {
        ...options,
        headers: { 'Retry-After': String(REPORT_TIMEOUT_RETRY_AFTER_SECONDS) },
        extensions: budgetMs === undefined ? {} : { timeoutMs: Math.round(budgetMs) },
      },
    );
  }
}

/**
 * 503: the report needed more memory than the engine gives the reports running at once (DuckDB's
 * `Out of Memory Error`, an OpenSearch circuit breaker or search backpressure), and was stopped.
 * 503 rather than 422 because those limits are shared by every report running at once, so the same
 * report may fit when fewer run (docs/errors-and-decisions.md, "Bounded reports"); its own type,
 * so that a caller can tell it from an unreachable engine and make the report cheaper.
 */
export class ReportTooExpensiveError extends AppError {
  constructor(options?: ErrorOptions) {
    super(
      503,
      'report-too-expensive',
      'Report too expensive',
      'This report needed more memory than the report engine gives the reports running at once, and was stopped. ' +
        'Try again when fewer reports run; if it is refused again, make it cheaper: narrow the time range, use fewer ' +
        'buckets (a coarser dateHistogram interval, fewer filters buckets or terms values), or add "splitInterval".',
      { ...options, headers: { 'Retry-After': String(REPORT_TIMEOUT_RETRY_AFTER_SECONDS) } },
    );
  }
}

/** 500: a bug. The detail never carries internals; the cause is logged, not sent. */
export class InternalError extends AppError {
  constructor(options?: ErrorOptions) {
    super(500, 'internal', 'Internal error', 'An unexpected error occurred.', options);
  }
}
