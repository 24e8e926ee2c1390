import type { AppError } from '../../errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** What an answer adds to the problem of its error. */
export interface ProblemContext {
  /**
   * The id of the request (also the `X-Request-Id` header and the logs' `correlation_id`), as the
   * extension member `requestId` (RFC 9457, 3.2): a caller quotes it, an operator finds the request's
   * log lines by it. Not `instance`, which is a URI reference that a client may resolve against the
   * request's URL; the id is an opaque token, and a URN for it would need a registered namespace.
   */
  readonly requestId?: string;
  /** Where the problem types are documented (shared/problem-uri.ts). @default DEFAULT_PROBLEM_TYPE_BASE */
  readonly problemTypeBase?: string;
}

/** An error as an RFC 9457 problem+json body with its status and headers. */
export function renderProblem(
  error: AppError,
  context: ProblemContext = {},
): { status: number; headers: Record<string, string>; body: string } {
  const problem = error.toProblem(context.problemTypeBase);
  return {
    status: error.status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...error.headers },
    body: JSON.stringify(context.requestId === undefined ? problem : { ...problem, requestId: context.requestId }),
  };
}
