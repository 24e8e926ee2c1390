import type { Problem } from '#shared/errors';
import { type Control, controlFor, type PointerMap } from './request';

/** Where the parts of a problem+json answer go: next to a control, or to the form as a whole. */
export interface PlacedProblem {
  /** The problem's title and detail, always shown once for the whole form. */
  readonly summary: string;
  /** Messages per control, in the order the problem lists them. */
  readonly atControls: ReadonlyMap<Control | 'token', readonly string[]>;
}

/**
 * The type ends in the slug, whatever the base the deployment documents its problem types at (shared/problem-types.ts).
 */
const TOO_MANY_BUCKETS = /[/#]too-many-buckets$/;

/**
 * Places a problem: each `errors[].path` (a JSON Pointer into the request) next to the control that
 * made that part; a 401 at the token; a 422 for too many buckets at the split option (its detail
 * suggests `splitInterval`); anything else only in the summary.
 */
export function placeProblem(problem: Problem, pointers: PointerMap): PlacedProblem {
  const atControls = new Map<Control | 'token', string[]>();
  const put = (control: Control | 'token', message: string) =>
    atControls.set(control, [...(atControls.get(control) ?? []), message]);
  for (const error of problem.errors ?? []) {
    const control = controlFor(pointers, error.path);
    if (control) put(control, error.message);
  }
  if (problem.status === 401) put('token', problem.detail);
  if (TOO_MANY_BUCKETS.test(problem.type)) put('split', problem.detail);
  return { summary: `${problem.title}: ${problem.detail}`, atControls };
}

/**
 * A problem from any failed answer: its problem+json body, or one made from the status when the body is
 * not one (API Gateway's own 401 is `{"message":"Unauthorized"}`, a gateway error may be HTML).
 */
export function toProblem(status: number, statusText: string, contentType: string | null, text: string): Problem {
  const title = statusText || `HTTP ${status}`;
  let body: { detail?: unknown; message?: unknown } | undefined;
  try {
    body = contentType?.includes('json') ? (JSON.parse(text) as typeof body) : undefined;
  } catch {
    // not JSON after all
  }
  if (contentType?.startsWith('application/problem+json') && typeof body?.detail === 'string')
    return { type: 'about:blank', title, status, ...body } as Problem;
  if (typeof body?.message === 'string') return { type: 'about:blank', title, status, detail: body.message };
  return { type: 'about:blank', title, status, detail: text.slice(0, 500) || `The service answered ${status}.` };
}
