import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ValidationError } from '#shared/errors';
import { PreconditionRequiredError } from '#shared/locations/errors';

/**
 * Optimistic concurrency of the administration API (RFC 9110, 13.1.1): every resource that can be
 * changed answers a strong ETag naming its revision, `"<revision>"`, and a change names the revision
 * it changes in `If-Match`. Strong because it names one state, and the answers that carry it are
 * never compressed (./content-encoding.ts); If-Match compares strongly, so a weak tag (`W/"3"`) never
 * matches. Any route family that keeps revisions uses these two helpers.
 */

/** The strong ETag of a revision. */
export const revisionEtag = (revision: number): string => `"${revision}"`;

/**
 * What If-Match asks for: `*` (the resource exists) or the revisions its strong tags name (a weak or foreign tag names
 * none).
 */
export type IfMatch = '*' | readonly number[];

const TAG = /^(W\/)?"([^"]*)"$/;

/**
 * The request's If-Match, parsed: 428 (problem `precondition-required`) when `required` and absent,
 * undefined when optional and absent, 400 naming `/headers/if-match` when it is not a list of entity
 * tags or `*`. API Gateway hands header names over in lower case.
 */
export function ifMatchOf(
  event: Pick<APIGatewayProxyEventV2, 'headers'>,
  required: boolean,
  what: string,
): IfMatch | undefined {
  const header = event.headers?.['if-match'];
  if (header === undefined || header.trim() === '') {
    if (!required) return undefined;
    throw new PreconditionRequiredError(
      `${what} needs If-Match with the ETag of the version it changes (or If-Match: * to change whatever is there), so that no one's change is overwritten unseen.`,
    );
  }
  if (header.trim() === '*') return '*';
  const tags = header.split(',').map((t) => t.trim());
  const revisions: number[] = [];
  for (const tag of tags) {
    const match = TAG.exec(tag);
    if (!match)
      throw new ValidationError([
        { path: '/headers/if-match', message: 'must be * or a list of entity tags ("3", "4")' },
      ]);
    if (!match[1] && /^(0|[1-9]\d{0,15})$/.test(match[2]!)) revisions.push(Number(match[2]));
  }
  return revisions;
}
