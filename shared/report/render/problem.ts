import type { AppError } from '../../errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An error as an RFC 9457 problem+json body with its status and headers. */
export function renderProblem(error: AppError): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: error.status,
    headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, ...error.headers },
    body: JSON.stringify(error.toProblem()),
  };
}
