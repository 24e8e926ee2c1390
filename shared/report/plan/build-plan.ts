import { parseCollecting } from '../../validation';
import { ReportRequestSchema } from '../schema/request';
import type { ReportPlan } from './plan';
import { planFromRequest } from './plan-builder';

/**
 * Request body → ReportPlan. Structural errors come from the zod schema; then the collection is
 * resolved and every field is checked against it, collecting all errors before answering 400.
 */
export function buildPlan(body: unknown): ReportPlan {
  const { data: request, errors } = parseCollecting(ReportRequestSchema, body);
  return planFromRequest(request, errors);
}
