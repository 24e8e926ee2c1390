import { AppError } from '../errors';
import { combineSources, type SourceFacts } from './answer-source';
import { AnswerBucketsError, MAX_ANSWER_BUCKETS, resultBuckets } from './bucket-limit';
import type { EngineResult, ReportEngine, RunOptions, Scope } from '../stores/store';
import { periodsOf } from './compare/periods';
import { buildPlan } from './plan/build-plan';
import { narrowToGrant } from './plan/grant';
import type { ReportPlan } from './plan/plan';
import { renderJson } from './render/json';
import { Pacer } from './pace';
import type { CsvSize } from './render/csv';
import { shapeComparison, type ReportModel } from './shape/comparison';
import { shapeReport } from './shape/model';
import type { SliceExecutor } from './split/run-split';

export const REPORT_MEDIA_TYPES = ['application/json', 'text/csv'] as const;
export type ReportMediaType = (typeof REPORT_MEDIA_TYPES)[number];

/** RFC 9745 Deprecation date for crossedPaths.start (the day this service first flagged it), epoch seconds. */
const START_DEPRECATED_AT = Date.UTC(2026, 10, 22) / 1000;

/**
 * A report's answer as facts; the edge turns them into HTTP (functions/commons/http/report-headers.ts),
 * so the domain says what is true of the answer and never how a protocol spells it. Which rows
 * answered, why not rollups and the window they served are its SourceFacts (unsaid with rollups off).
 */
export interface ReportAnswer extends SourceFacts {
  readonly mediaType: ReportMediaType;
  readonly body: string;
  /** A terms stage kept only its top keys (the engine's terms cap). */
  readonly truncated: boolean;
  /** The request used a deprecated field: since when it is deprecated (epoch seconds). */
  readonly deprecatedSince?: number;
}

/**
 * Largest body answered: the Lambda response (6 MiB) also carries the status and the headers, so the
 * body, measured as it travels in that response (a JSON string, or base64 when compressed), stops
 * at 5.5 MiB. Compressed, a report's JSON may be many times larger (see `sentBytes`).
 */
export const MAX_RESPONSE_BODY_BYTES = 5.5 * 1024 * 1024;

export interface AnswerOptions extends RunOptions {
  /**
   * Who runs the slices of a split report, asked on the first split report (in Lambda, the Step
   * Functions executor, whose code loads then). @default an in-process pool of 2 on the engine
   */
  readonly sliceExecutor?: () => SliceExecutor | Promise<SliceExecutor>;
  /** @default MAX_RESPONSE_BODY_BYTES */
  readonly maxBodyBytes?: number;
  /** The most buckets a split report's answer may hold. @default MAX_ANSWER_BUCKETS */
  readonly maxAnswerBuckets?: number;
  /**
   * Bytes a body takes in the response as the edge will send it (compressed and base64 when the
   * caller accepts a content coding: functions/commons/http/content-encoding.ts); the ceiling
   * applies to that. @default its length as a JSON string, sent as it is
   */
  readonly sentBytes?: (body: string) => Promise<number>;
}

/**
 * The whole report path, engine-neutral: body → plan → engine (or slices, merged) → model → JSON or
 * CSV. Throws AppErrors (400, 422, 503) that the edge renders as problem+json. With `deadline`, the
 * engine work (every slice of a split report too) stops when it passes: a ReportTimeoutError (503).
 */
export async function answerReport(
  body: unknown,
  scope: Scope,
  engine: ReportEngine,
  mediaType: ReportMediaType,
  options: AnswerOptions = {},
): Promise<ReportAnswer> {
  const plan = narrowToGrant(buildPlan(body), scope);
  const { deadline } = options;
  // Shaping and rendering run in turns, the deadline checked between them (a 503 past it).
  const pacer = new Pacer(deadline);
  const run: Run = { scope, engine, options };
  const { model, truncated, source } = plan.compare
    ? await answerComparison(plan, run, pacer)
    : await answerPlan(plan, run, pacer);
  const zone = localTimeZone(plan);
  const rendered =
    mediaType === 'text/csv' ? await (await csvWriter()).renderCsv(model, pacer, zone) : await renderJson(model, pacer);
  await checkBodySize(
    rendered,
    model,
    mediaType,
    options.maxBodyBytes ?? MAX_RESPONSE_BODY_BYTES,
    options.sentBytes ?? jsonStringBytes,
    zone,
  );
  deadline?.throwIfExpired();
  return {
    mediaType,
    body: rendered,
    truncated,
    ...source,
    ...(plan.deprecatedFields.length > 0 ? { deprecatedSince: START_DEPRECATED_AT } : {}),
  };
}

/** The zone of the CSV's `localTime` column: the dateHistogram's, when the request named one. */
function localTimeZone(plan: ReportPlan): string | undefined {
  const first = plan.pipeline[0];
  return first?.kind === 'dateHistogram' && first.zoneNamed ? first.timeZone : undefined;
}

interface Shaped {
  readonly model: ReportModel;
  readonly truncated: boolean;
  readonly source: SourceFacts;
}

/** What every engine run of one report shares: the caller's scope, the engine, the answer's options. */
interface Run {
  readonly scope: Scope;
  readonly engine: ReportEngine;
  readonly options: AnswerOptions;
}

async function answerPlan(plan: ReportPlan, run: Run, pacer: Pacer): Promise<Shaped> {
  const result = await runPlan(plan, run);
  return {
    model: await shapeReport(plan, result, pacer),
    truncated: result.truncated === true,
    source: combineSources([result]),
  };
}

/** One plan on the engine, in slices when it has a splitInterval (`beside`: the other period of a comparison). */
async function runPlan(plan: ReportPlan, run: Run, beside?: Beside): Promise<EngineResult> {
  const { deadline } = run.options;
  return plan.splitInterval
    ? runSplitReport(plan, run, beside)
    : run.engine.run(plan, run.scope, deadline ? { deadline } : {});
}

/**
 * A `compare` report: its own period, then the earlier one, each an ordinary plan run as any report
 * (sliced when split), within the one deadline; together they hold no more buckets than one answer
 * may. One after the other, not at once: the same report then fails with the same error on every
 * engine and every run (the report's own period's, when both would fail).
 */
async function answerComparison(plan: ReportPlan, run: Run, pacer: Pacer): Promise<Shaped> {
  const periods = periodsOf(plan);
  const maxAnswerBuckets = run.options.maxAnswerBuckets ?? MAX_ANSWER_BUCKETS;
  // Split, each period's run refuses the two together when they must exceed the bounds (runSplit): the first before it
  // starts.
  const current = await runPlan(periods.current, run, { plan: periods.previous, heldBuckets: 0 });
  const held = resultBuckets(current.root);
  const previous = await runPlan(periods.previous, run, { plan: periods.current, heldBuckets: held });
  if (held + resultBuckets(previous.root) > maxAnswerBuckets) throw comparedTooLarge(maxAnswerBuckets);
  const model = await shapeComparison(periods, current, previous, pacer);
  // Each period may be answered from other rows (rollups cover one, not the other): `mixed` then.
  return { model, truncated: current.truncated || previous.truncated, source: combineSources([current, previous]) };
}

function comparedTooLarge(maxAnswerBuckets: number): AnswerBucketsError {
  const n = maxAnswerBuckets.toLocaleString('en');
  return new AnswerBucketsError(
    maxAnswerBuckets,
    `Its two periods (compare) hold more buckets together than the ${n} an answer may hold. Use a coarser dateHistogram interval, a shorter time range, or fewer series.`,
    `too fine for the series of this report: its two periods hold more than ${n} buckets together`,
  );
}

/*
 * The split code and the CSV writer are loaded on first use (`import()`): a Lambda bundle with code
 * splitting (lib/bundling.ts) then neither parses nor runs them at start, and most reports need neither.
 */

/** The other period of a comparison, and the buckets its answer holds. */
interface Beside {
  readonly plan: ReportPlan;
  readonly heldBuckets: number;
}

async function runSplitReport(plan: ReportPlan, { scope, engine, options }: Run, beside?: Beside) {
  const [{ runSplit, inProcessSliceExecutor }, executor] = await Promise.all([
    import('./split/run-split'),
    options.sliceExecutor?.(),
  ]);
  const bounds = {
    maxBuckets: engine.maxBuckets,
    maxAnswerBuckets: options.maxAnswerBuckets ?? MAX_ANSWER_BUCKETS,
    heldBuckets: beside?.heldBuckets ?? 0,
    ...(beside ? { alongside: beside.plan } : {}),
    ...(options.deadline ? { deadline: options.deadline } : {}),
  };
  return runSplit(plan, scope, executor ?? inProcessSliceExecutor(engine), bounds);
}

const csvWriter = () => import('./render/csv');

/** Never a truncated body: over the limit, a 422 with advice (streaming is not offered by API Gateway). */
async function checkBodySize(
  body: string,
  model: ReportModel,
  mediaType: ReportMediaType,
  maxBytes: number,
  sentBytes: (body: string) => Promise<number>,
  localZone: string | undefined,
): Promise<void> {
  const bytes = await sentBytes(body);
  if (bytes <= maxBytes) return;
  const csvBytes =
    mediaType === 'text/csv' ? bytes : estimateCsvSentBytes((await csvWriter()).csvSize(model, localZone), body, bytes);
  throw new ResponseTooLargeError(bytes, maxBytes, csvBytes <= maxBytes ? csvBytes : undefined);
}

/**
 * What the CSV of a report too large as JSON would take as sent, without writing it (that cost as
 * much as the JSON again): its size as a JSON string, exact when the answer goes plain, scaled by
 * how much the JSON shrank when it goes compressed (the same rows compress alike).
 */
function estimateCsvSentBytes(csv: CsvSize, json: string, jsonSentBytes: number): number {
  return Math.ceil((csv.jsonStringBytes * jsonSentBytes) / Buffer.byteLength(JSON.stringify(json)));
}

const jsonStringBytes = async (body: string): Promise<number> => Buffer.byteLength(JSON.stringify(body));

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
