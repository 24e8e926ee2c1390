import { ValidationError, type FieldError } from '#shared/errors';
import { buildPlan } from '#shared/report/plan/build-plan';

/** The errors of a 400, or fails when the body was accepted. */
export function errorsOf(body: unknown): FieldError[] {
  try {
    buildPlan(body);
  } catch (e) {
    if (e instanceof ValidationError) return [...e.errors];
    throw e;
  }
  throw new Error('expected a 400');
}
