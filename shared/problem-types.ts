/**
 * Every problem type the service answers (RFC 9457): its slug, title and status, and what it means
 * for a caller. One table: the errors (./errors.ts) use the slugs, the OpenAPI document lists the
 * type URIs (./problem-uri.ts) as an enum, and the problems page (docs/problems.md, and `GET
 * /problems` as HTML) is written from it, one anchor per slug. The errors import only its type, so
 * the prose stays out of the functions that never show it.
 */
export interface ProblemTypeDoc {
  readonly title: string;
  readonly status: number;
  /** When the service answers it, and what to do: Markdown with inline code only. */
  readonly description: string;
  /** Extension members beyond type, title, status, detail and requestId, with their meaning. */
  readonly members?: Readonly<Record<string, string>>;
}

export const PROBLEM_TYPES = {
  validation: {
    title: 'Invalid request',
    status: 400,
    description:
      'The request breaks the request language, or a query parameter or a header is missing or wrong. Nothing was done. `detail` names the first error; fix every one listed in `errors` and send the request again.',
    members: {
      errors:
        'Every invalid part of the request: `path`, a JSON Pointer into the body (or `/query/<name>`, `/path/<name>`, `/headers/<name>`), and `message`, which says what is allowed there.',
    },
  },
  'malformed-body': {
    title: 'Malformed request body',
    status: 400,
    description:
      'The body is not JSON (or NDJSON, for ingest), or there is none where one is needed, or it nests arrays and objects more than 64 levels deep (`maxDepth`). `detail` says what the parser found.',
    members: { maxDepth: 'The deepest nesting a JSON body may have, when that is what was exceeded.' },
  },
  unauthorized: {
    title: 'Unauthorized',
    status: 401,
    description:
      'No bearer token, or one that is invalid, expired or not yet valid, or whose organization claim is missing or not a UUID. Get a new ID token and send it as `Authorization: Bearer <token>`. Deployed, API Gateway\'s JWT authorizer answers most of these itself, with `{"message":"Unauthorized"}`.',
  },
  forbidden: {
    title: 'Forbidden',
    status: 403,
    description:
      "The token is valid but does not grant this request: an ingest token reading, or a reading token writing; a viewer's token managing locations or gateways (that needs the `admin` role); an admin limited to some locations creating or deleting a location or managing gateways (that needs an admin of the whole organization); or a report whose `locationIds` name a location outside the token's grant (`errors` names it). `WWW-Authenticate` says `insufficient_scope`; use a token with the scope or role named.",
    members: {
      scope: 'The scope the request needs.',
      errors: "For a report naming locations outside the token's grant: `path` (`/locationIds/<i>`) and why.",
    },
  },
  'not-found': {
    title: 'Not found',
    status: 404,
    description:
      "The location does not exist, or belongs to another organization (the same answer, so that the existence of another organization's location is never revealed), or the collection of `/ingest/{collection}` does not exist, or the alert rule does not exist, is another organization's or watches a location outside the token's grant, or no route has this path.",
  },
  'method-not-allowed': {
    title: 'Method not allowed',
    status: 405,
    description:
      'The path exists, but not with this method (say `DELETE /locations`, or `GET /reports:query`). The `Allow` header and `allowed` list the methods it has; every path that has `GET` also answers `HEAD` (the same headers, no body).',
    members: { allowed: 'The methods the path has.' },
  },
  'not-acceptable': {
    title: 'Not acceptable',
    status: 406,
    description:
      '`Accept` allows none of the media types this endpoint answers with. Ask for one of `allowed`, or send no `Accept`.',
    members: { allowed: 'The media types the endpoint answers with.' },
  },
  'misdirected-request': {
    title: 'Misdirected request',
    status: 421,
    description:
      "The local server (`npm start`) only: the request's `Host` is not one of its own names (`localhost`, `127.0.0.1`, `[::1]` with its port). A page of another site whose name was made to resolve to 127.0.0.1 (DNS rebinding) must not read the explorer's token or the data. Use `http://localhost:<port>`.",
    members: { allowed: 'The hosts the server answers for.' },
  },
  'malformed-request': {
    title: 'Malformed request',
    status: 400,
    description:
      "The local server (`npm start`) only: its HTTP parser could not read the request itself (the request line, a header, `Content-Length` or the chunked framing), so no endpoint saw it. Fix the client's HTTP. Deployed, API Gateway refuses such a request before the service.",
  },
  'request-timeout': {
    title: 'Request timeout',
    status: 408,
    description:
      "The local server (`npm start`) only: the request's headers did not arrive within 60 s, or the whole request within 300 s (Node's `headersTimeout` and `requestTimeout`). Send it again, faster. Deployed, API Gateway keeps its own timeouts.",
  },
  'headers-too-large': {
    title: 'Request header fields too large',
    status: 431,
    description:
      "The local server (`npm start`) only: the request's headers take more than Node's 16 KiB (`--max-http-header-size`). Send fewer or shorter headers (a token, cookies). Deployed, API Gateway has its own limits (10 KiB of headers).",
    members: { maxBytes: 'The most bytes of headers the server reads.' },
  },
  'payload-too-large': {
    title: 'Payload too large',
    status: 413,
    description:
      'The body is larger than the endpoint takes: 64 KiB for a report (a report that large is almost always a list of values better narrowed by other filters); for ingest, 4 MiB as sent and 5 MiB or 10,000 lines of NDJSON. `detail` says which limit.',
  },
  'unsupported-media-type': {
    title: 'Unsupported media type',
    status: 415,
    description:
      'The body is not declared as the media type the endpoint takes (`application/json` for a report, `application/x-ndjson` for ingest): no `Content-Type`, another media type, or a `charset` other than UTF-8; or a `Content-Encoding` other than gzip for ingest, or any for a report (`Accept-Encoding` then names what is taken). The `Accept` header of the answer names the media type the body may have.',
    members: { allowed: 'The media types a body may have.' },
  },
  'too-many-buckets': {
    title: 'Too many buckets',
    status: 422,
    description:
      "The report would create more buckets than the engine allows, checked before any work where it can be. Narrow the time range, use a coarser `dateHistogram` interval or fewer series, or add `splitInterval` to run it in slices (when even one slice is too large, `detail` says so). A split report's answer holds at most 262,140 buckets whatever the engine (`maxAnswerBuckets`): its time buckets with the `filters` buckets under each are counted from the request before any slice runs, its `terms` keys as the slices come back; splitting cannot help then, and `errors` names the `dateHistogram` interval to make coarser.",
    members: {
      maxBuckets: "The engine's bucket limit.",
      splitInterval: 'The split interval of a split report one of whose slices was refused.',
      maxAnswerBuckets: "The most buckets a report's answer may hold however it is split, when that was passed.",
      errors:
        'When the whole answer is too large: the field to change (`/aggregations/0/interval`) and how many time buckets fit.',
    },
  },
  'response-too-large': {
    title: 'Response too large',
    status: 422,
    description:
      'The answer would be larger than a response may carry (5.5 MiB as sent). Ask for it compressed (`Accept-Encoding: gzip` or `br`) or as CSV (`detail` says how large that would be), or narrow the report.',
    members: {
      bytes: 'The size the answer would have had, as sent.',
      maxBytes: 'The most an answer may take, as sent.',
    },
  },
  'split-too-large': {
    title: 'Report too large to split',
    status: 422,
    description:
      "The plan of a split report is larger than the slice runner's input may be (Step Functions' 256 KiB). Use fewer filter values or `locationIds`.",
  },
  conflict: {
    title: 'Conflict',
    status: 409,
    description:
      "The location cannot be created with this id: a location has it already (`reason`: `exists`; change it with `PUT`), or a deleted location had it (`reason`: `deleted`, with `deletedAt`): its documents remain and would count as the new location's, so choose another id or send the request again with `?reuseDeletedId=true` to take the id back knowingly. Or the organization has as many alert rules as it may (`reason`: `too-many-rules`, with `maxRules`): delete one first.",
    members: {
      reason: '`exists`, `deleted` or `too-many-rules`.',
      deletedAt: 'When the location of that id was deleted.',
      maxRules: 'The most alert rules an organization may have.',
    },
  },
  'precondition-failed': {
    title: 'Precondition failed',
    status: 412,
    description:
      'The location changed since the ETag sent in `If-Match` was read (or changed while this request was written). Nothing was written: read it again (`GET /locations/{locationId}` gives the current ETag), apply your change to what it answers, and send it with that ETag.',
  },
  'precondition-required': {
    title: 'Precondition required',
    status: 428,
    description:
      "A change of a location must say which revision it changes, so that two people's edits never overwrite each other unseen: send the ETag of `GET /locations/{locationId}` in `If-Match` (or `If-Match: *` to replace whatever is there).",
  },
  'write-too-large': {
    title: 'Write too large',
    status: 422,
    description:
      'One write of a location is one transaction of at most 100 actions, and this one would write or delete more sensor groups than fit (97). Nothing was written: make the change in two steps (say, remove the old groups first, then add the new ones).',
    members: { maxGroupChanges: 'The most sensor groups one write may add, change or remove.' },
  },
  'idempotency-key-in-use': {
    title: 'Request in progress',
    status: 409,
    description:
      'A request with the same `Idempotency-Key` is still being answered. Send it again after `Retry-After` seconds to get its answer.',
  },
  'idempotency-key-reused': {
    title: 'Idempotency-Key reused',
    status: 422,
    description:
      'The `Idempotency-Key` was used in the last 24 hours for a request with another body. Use a new key for a new body.',
  },
  'engine-unavailable': {
    title: 'Service unavailable',
    status: 503,
    description:
      'The report engine is unreachable or overloaded. Nothing was changed: send the same request again after `Retry-After` seconds. (A report that needs more memory than the engine gives it is `report-too-expensive`.)',
  },
  'report-timeout': {
    title: 'Report timed out',
    status: 503,
    description:
      'The report reached its deadline and its query was stopped. Try again after `Retry-After` seconds, or make the report cheaper: a shorter time range, fewer buckets, or `splitInterval`.',
    members: { timeoutMs: 'The time the report had, in milliseconds.' },
  },
  'report-too-expensive': {
    title: 'Report too expensive',
    status: 503,
    description:
      "The report needed more memory than the report engine gives the reports running at once (the embedded engine's memory limit; an OpenSearch circuit breaker, or its search backpressure cancelling the most expensive search), and was stopped. Nothing was changed. It may fit when fewer reports run: try again after `Retry-After` seconds. If it is refused again, make it cheaper: a shorter time range, fewer buckets (a coarser `dateHistogram` interval, fewer `filters` buckets or `terms` values), or `splitInterval`, whose slices each need less.",
  },
  internal: {
    title: 'Internal error',
    status: 500,
    description:
      'A bug in the service. `detail` says nothing about it; the cause is logged under the `requestId`: quote it when you report the problem.',
  },
} as const satisfies Readonly<Record<string, ProblemTypeDoc>>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export const PROBLEM_SLUGS = Object.keys(PROBLEM_TYPES) as ProblemSlug[];

export const isProblemSlug = (slug: string): slug is ProblemSlug => Object.hasOwn(PROBLEM_TYPES, slug);
