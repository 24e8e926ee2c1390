import type { Scope } from '../../stores/store';
import type { ReportPlan } from '../plan/plan';
import type { EncodedSlice } from './encoding';
import type { SliceRange } from './plan-slices';
import { AppError } from '../../errors';
import { isProblemSlug, type ProblemSlug } from '../../problem-types';

/**
 * The wire contract of a split report in AWS, in one place: the query function starts a synchronous
 * Express execution with {@link SplitExecutionInput}; the state machine's Map state (lib/split.ts)
 * iterates {@link SLICE_ITEMS_PATH} and builds each worker event with {@link SLICE_ITEM_SELECTOR};
 * the worker (functions/run-report-slice.ts) answers a {@link SliceOutput}, or fails with a
 * {@link SLICE_ERROR} carrying a {@link SliceProblem}; the Map output is the array of outputs in slice
 * order, which the executor (functions/commons/split/step-functions-executor.ts) decodes.
 *
 * The plan travels once per execution, not once per slice, so that 400 slices of a 1 KB plan stay far
 * below the state payload limit; every field is always present, since a JSONPath to a missing field
 * fails the execution.
 */

/** Step Functions' limit on an execution's input and on every state's output. */
export const STATE_PAYLOAD_LIMIT_BYTES = 256 * 1024;

/** 0.8 × the state payload limit: the most one result may take inline. */
export const DEFAULT_INLINE_LIMIT_BYTES = Math.floor(0.8 * STATE_PAYLOAD_LIMIT_BYTES);

/** The input of one execution. */
export interface SplitExecutionInput {
  /** The whole split plan (with splitInterval); each worker cuts its slice out of it. */
  readonly plan: ReportPlan;
  readonly scope: Scope;
  /** Encoded results larger than this go to the slice store. */
  readonly inlineLimitBytes: number;
  readonly slices: readonly SliceRange[];
}

/** What the Map state iterates. */
export const SLICE_ITEMS_PATH = '$.slices';

/** How the Map state builds each worker's event from the execution input and the item. */
export const SLICE_ITEM_SELECTOR: Readonly<Record<`${keyof SliceEvent}.$`, string>> = {
  'plan.$': '$.plan',
  'scope.$': '$.scope',
  'inlineLimitBytes.$': '$.inlineLimitBytes',
  'slice.$': '$$.Map.Item.Value',
};

/** One worker's event. */
export interface SliceEvent {
  readonly plan: ReportPlan;
  readonly scope: Scope;
  readonly slice: SliceRange;
  /** @default DEFAULT_INLINE_LIMIT_BYTES */
  readonly inlineLimitBytes?: number;
}

/** A slice result too large to travel inline: where the worker stored it. */
export interface SliceRef {
  readonly bucket: string;
  readonly key: string;
  readonly bytes: number;
}

/** One worker's answer: the slice result in the compact encoding, inline or by reference. */
export type SliceOutput = { readonly inline: EncodedSlice } | { readonly stored: SliceRef };

/** Name of the error a failed slice throws (the Step Functions `Error` of the failed execution). */
export const SLICE_ERROR = 'SliceError';

/** The problem a failed slice carries as its error message (JSON), so the query answers it as is. */
export interface SliceProblem {
  readonly status: number;
  readonly slug: ProblemSlug;
  readonly title: string;
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * A failed slice's error as it crosses the Step Functions boundary: a {@link SLICE_ERROR} whose
 * message is the AppError's problem (JSON), so that the query answers it as the slice would have.
 */
export function encodeSliceError(app: AppError): Error {
  const problem: SliceProblem = {
    status: app.status,
    slug: app.slug,
    title: app.title,
    detail: app.detail,
    headers: app.headers,
    extensions: app.extensions,
  };
  const error = new Error(JSON.stringify(problem));
  error.name = SLICE_ERROR;
  return error;
}

/**
 * The AppError a failed execution carries, or undefined when it is not a slice's: `error` is the
 * execution's error name, `cause` the Lambda error envelope `{ errorType, errorMessage, trace }` (or,
 * run locally, the message itself). A problem whose type this service does not know is not trusted.
 */
export function decodeSliceError(error: string | undefined, cause: string | undefined): AppError | undefined {
  if (error !== SLICE_ERROR) return undefined;
  let value = parseJson(cause) as { errorMessage?: string } | SliceProblem | undefined;
  if (value && typeof value === 'object' && 'errorMessage' in value)
    value = parseJson(value.errorMessage) as SliceProblem | undefined;
  const p = value as Partial<SliceProblem> | undefined;
  if (
    !(
      p &&
      typeof p.status === 'number' &&
      typeof p.slug === 'string' &&
      isProblemSlug(p.slug) &&
      typeof p.detail === 'string'
    )
  )
    return undefined;
  return new AppError(p.status, p.slug, p.title ?? '', p.detail, {
    headers: p.headers ?? {},
    extensions: p.extensions ?? {},
  });
}

function parseJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
