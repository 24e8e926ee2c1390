import { AppError } from '../errors';

/**
 * The problems of the administration API's writes (./admin.ts; If-Match in functions/commons/http/preconditions.ts).
 */

/**
 * 409: the location cannot be created with this id (it exists, or a deleted location had it).
 * `extensions` say which (`reason`) and, for a deleted one, when.
 */
export class ConflictError extends AppError {
  constructor(detail: string, extensions: Readonly<Record<string, unknown>> = {}) {
    super(409, 'conflict', 'Conflict', detail, { extensions });
  }
}

/** 412: If-Match named another revision than the current one, or the resource changed while being written. */
export class PreconditionFailedError extends AppError {
  constructor(detail: string) {
    super(412, 'precondition-failed', 'Precondition failed', detail);
  }
}

/** 428 (RFC 6585): a change must name the revision it changes (If-Match). */
export class PreconditionRequiredError extends AppError {
  constructor(detail: string) {
    super(428, 'precondition-required', 'Precondition required', detail);
  }
}

/** 422: one write would be more than one transaction may hold. */
export class WriteTooLargeError extends AppError {
  constructor(puts: number, deletes: number, max: number) {
    super(
      422,
      'write-too-large',
      'Write too large',
      `This change writes ${puts} and removes ${deletes} sensor groups, more than the ${max} one write may change. Nothing was written: make it in two steps (remove the old groups first, then add the new ones).`,
      { extensions: { maxGroupChanges: max } },
    );
  }
}
