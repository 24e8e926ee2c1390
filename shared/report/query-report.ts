import type { ReportEngine, Scope } from './engines/engine';
import { buildPlan } from './plan/build-plan';
import { renderCsv } from './render/csv';
import { renderJson } from './render/json';
import { shapeReport } from './shape/model';

export const REPORT_MEDIA_TYPES = ['application/json', 'text/csv'] as const;
export type ReportMediaType = (typeof REPORT_MEDIA_TYPES)[number];

/** RFC 9745 Deprecation date for crossedPaths.start (the day this service first flagged it). */
const START_DEPRECATED_AT = Date.UTC(2026, 10, 22) / 1000;

export interface ReportAnswer {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * The whole report path, engine-neutral: body → plan → engine → model → JSON or CSV.
 * Throws AppErrors (400, 422, 503) that the edge renders as problem+json.
 */
export async function answerReport(body: unknown, scope: Scope, engine: ReportEngine, mediaType: ReportMediaType): Promise<ReportAnswer> {
  const plan = buildPlan(body);
  const result = await engine.run(plan, scope);
  const model = shapeReport(plan, result);
  const headers: Record<string, string> = {
    'Content-Type': mediaType === 'text/csv' ? 'text/csv; charset=utf-8' : 'application/json',
    Vary: 'Accept',
  };
  if (result.truncated) headers['X-Report-Truncated'] = 'true';
  if (plan.deprecatedFields.length > 0) headers.Deprecation = `@${START_DEPRECATED_AT}`;
  return { headers, body: mediaType === 'text/csv' ? renderCsv(model) : renderJson(model) };
}
