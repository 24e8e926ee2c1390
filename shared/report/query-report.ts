import { AppError } from '../errors';
import type { ReportEngine, Scope } from './engines/engine';
import { buildPlan } from './plan/build-plan';
import { renderCsv } from './render/csv';
import { renderJson } from './render/json';
import { shapeReport, type ReportModel } from './shape/model';
import { inProcessSliceExecutor, runSplit, type SliceExecutor, type SplitOptions } from './split/run-split';

export const REPORT_MEDIA_TYPES = ['application/json', 'text/csv'] as const;
export type ReportMediaType = (typeof REPORT_MEDIA_TYPES)[number];

/** RFC 9745 Deprecation date for crossedPaths.start (the day this service first flagged it). */
const START_DEPRECATED_AT = Date.UTC(2026, 10, 22) / 1000;

export interface ReportAnswer {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Largest body answered: the Lambda response (6 MiB) also carries the status, the headers and the
 * body's JSON escaping, so the body, measured as the JSON string it travels in, stops at 5.5 MiB.
 */
export const MAX_RESPONSE_BODY_BYTES = 5.5 * 1024 * 1024;

export interface AnswerOptions extends SplitOptions {
  /** Runs the slices of a splitInterval report. @default an in-process pool of 2 on the engine */
  readonly sliceExecutor?: SliceExecutor;
  /** @default MAX_RESPONSE_BODY_BYTES */
  readonly maxBodyBytes?: number;
}

/**
 * The whole report path, engine-neutral: body → plan → engine (or slices, merged) → model → JSON or
 * CSV. Throws AppErrors (400, 422, 503) that the edge renders as problem+json.
 */
export async function answerReport(
  body: unknown,
  scope: Scope,
  engine: ReportEngine,
  mediaType: ReportMediaType,
  options: AnswerOptions = {},
): Promise<ReportAnswer> {
  const plan = buildPlan(body);
  const result = plan.splitInterval
    ? await runSplit(plan, scope, options.sliceExecutor ?? inProcessSliceExecutor(engine), options)
    : await engine.run(plan, scope);
  const model = shapeReport(plan, result);
  const headers: Record<string, string> = {
    'Content-Type': mediaType === 'text/csv' ? 'text/csv; charset=utf-8' : 'application/json',
    Vary: 'Accept',
  };
  if (result.truncated) headers['X-Report-Truncated'] = 'true';
  if (plan.deprecatedFields.length > 0) headers.Deprecation = `@${START_DEPRECATED_AT}`;
  const rendered = mediaType === 'text/csv' ? renderCsv(model) : renderJson(model);
  checkBodySize(rendered, model, mediaType, options.maxBodyBytes ?? MAX_RESPONSE_BODY_BYTES);
  return { headers, body: rendered };
}

/** Never a truncated body: over the limit, a 422 with advice (streaming is not offered by API Gateway). */
function checkBodySize(body: string, model: ReportModel, mediaType: ReportMediaType, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(body));
  if (bytes <= maxBytes) return;
  const csvBytes = mediaType === 'text/csv' ? bytes : Buffer.byteLength(JSON.stringify(renderCsv(model)));
  throw new ResponseTooLargeError(bytes, maxBytes, csvBytes <= maxBytes ? csvBytes : undefined);
}

const mib = (bytes: number): string => (bytes < 2 ** 20 ? `${bytes} bytes` : `${(bytes / 2 ** 20).toFixed(1)} MiB`);

/** 422: the report is valid but its body is over the response size limit. */
export class ResponseTooLargeError extends AppError {
  constructor(bytes: number, maxBytes: number, csvBytes?: number) {
    const csv = csvBytes === undefined ? '' : `Ask for it as CSV (Accept: text/csv, ${mib(csvBytes)}), or `;
    super(
      422,
      'response-too-large',
      'Response too large',
      `This report would be ${mib(bytes)}, more than the ${mib(maxBytes)} a response may carry. ${csv}` +
        `${csv ? 'n' : 'N'}arrow the time range, use a coarser dateHistogram interval, or filter to fewer series.`,
      { extensions: { bytes, maxBytes } },
    );
  }
}
