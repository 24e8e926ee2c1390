import { errors } from '@opensearch-project/opensearch';
import {
  AppError,
  EngineUnavailableError,
  InternalError,
  ReportTooExpensiveError,
  TooManyBucketsError,
} from '../../errors';

/**
 * How long a `_bulk` waits for a shard's primary to be active (OpenSearch's `timeout`, default 1m)
 * before answering that item 503 `unavailable_shards_exception`: a node that died with the only copy
 * of a shard, or a primary not yet promoted. Well inside the client's 25 s request timeout and the
 * function's 29 s, so that the batch is answered 503 with Retry-After, not left to time out.
 */
export const WRITE_WAIT = '10s';

/** What the failure was part of: a report's tripped memory breaker is the report's own cost. @default 'other' */
export type OpenSearchWork = 'report' | 'other';

/**
 * Engine failures → our errors. OpenSearch answers too_many_buckets with HTTP 503, so it is found by
 * its error type (anywhere in the cause chain), not by status. A search stopped for what it costs is
 * report-too-expensive (503): a circuit breaker (`circuit_breaking_exception`, HTTP 429 whatever
 * its `durability`: OpenSearch's CircuitBreakingException.status()), or search backpressure
 * cancelling the most expensive search of a node under duress (`task_cancelled_exception`,
 * "cancelled task with reason: heap usage exceeded ...", HTTP 500; docs.opensearch.org,
 * "Search backpressure"). Unreachable, overloaded or timed-out engines are 503 with Retry-After
 * (a breaker tripped by a write among them: the node is short of memory); any other refusal is a
 * query we built wrong: a 500 (a bug).
 */
export function mapOpenSearchError(e: unknown, work: OpenSearchWork = 'other'): AppError {
  if (e instanceof AppError) return e;
  if (e instanceof errors.ResponseError) {
    const body = e.meta?.body as unknown;
    const tooMany = findErrorOfType(body, 'too_many_buckets_exception');
    if (tooMany) return new TooManyBucketsError(parseLimit(tooMany.reason), { cause: e });
    if (
      work === 'report' &&
      (findErrorOfType(body, 'circuit_breaking_exception') || isBackpressureCancellation(body))
    ) {
      return new ReportTooExpensiveError({ cause: e });
    }
    if (isPartUnavailable(body)) return new EngineUnavailableError(PART_UNAVAILABLE, 5, { cause: e });
    const status = e.meta?.statusCode ?? 0;
    if (status === 429 || status >= 500) {
      return new EngineUnavailableError('The search engine is busy or unavailable; try again shortly.', 5, {
        cause: e,
      });
    }
    return new InternalError({ cause: e });
  }
  if (
    e instanceof errors.TimeoutError ||
    e instanceof errors.ConnectionError ||
    e instanceof errors.NoLivingConnectionsError
  ) {
    return new EngineUnavailableError('The search engine did not answer in time; try again shortly.', 5, { cause: e });
  }
  return new InternalError({ cause: e });
}

interface EngineErrorNode {
  readonly type?: string;
  readonly reason?: string;
}

/** Depth-first search of an OpenSearch error body (error, root_cause, caused_by, failed_shards). */
function findErrorOfType(node: unknown, type: string, depth = 0): EngineErrorNode | undefined {
  if (!node || typeof node !== 'object' || depth > 12) return undefined;
  if ((node as EngineErrorNode).type === type) return node as EngineErrorNode;
  for (const value of Object.values(node)) {
    const found = Array.isArray(value)
      ? value.map((v) => findErrorOfType(v, type, depth + 1)).find(Boolean)
      : findErrorOfType(value, type, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** What a search that found part of its data unavailable answers (EVERY_INDEX, assertEveryShard). */
const PART_UNAVAILABLE =
  'Part of the data is not available right now (an index is closed, or a shard is recovering or has no copy on a live node); try again shortly.';

/**
 * A closed index of the pattern (`index_closed_exception`, HTTP 400), an index named that is not
 * there (`index_not_found_exception`, 404), a shard with no active copy ("Search rejected due to
 * missing shards", 503; `no_shard_available_action_exception`): data the search must read is not
 * there now (layout/indices.ts, EVERY_INDEX). 503, whatever status OpenSearch gave it.
 */
function isPartUnavailable(body: unknown): boolean {
  if (
    ['index_closed_exception', 'index_not_found_exception', 'no_shard_available_action_exception'].some((type) =>
      findErrorOfType(body, type),
    )
  )
    return true;
  return /Search rejected due to missing shards/.test(JSON.stringify(body ?? ''));
}

/**
 * Throws EngineUnavailableError (503) when a search answered 200 without every shard: `_shards`
 * says how many answered (skipped ones, which a range filter rules out, count). With
 * `allow_partial_search_results: false` that is an error already; this keeps any search that says
 * less from being read as the whole.
 */
export function assertEveryShard(body: unknown): void {
  const shards = (
    body as { _shards?: { total?: number; successful?: number; skipped?: number; failed?: number } } | undefined
  )?._shards;
  if (!shards) return;
  const answered = (shards.successful ?? 0) + (shards.skipped ?? 0);
  if ((shards.failed ?? 0) > 0 || answered < (shards.total ?? 0)) {
    throw new EngineUnavailableError(PART_UNAVAILABLE, 5, {
      cause: new Error(
        `${shards.successful} of ${shards.total} shards answered, ${shards.skipped ?? 0} skipped, ${shards.failed ?? 0} failed`,
      ),
    });
  }
}

/**
 * Search backpressure's cancellation: "cancelled task with reason: heap usage exceeded [...]" (or cpu usage, elapsed
 * time).
 */
function isBackpressureCancellation(body: unknown): boolean {
  const cancelled = findErrorOfType(body, 'task_cancelled_exception');
  return /^cancelled task with reason: .*exceeded/.test(cancelled?.reason ?? '');
}

/** "Trying to create too many buckets. Must be less than or equal to: [65535] but was [65536]..." */
function parseLimit(reason: string | undefined): number | undefined {
  const match = /less than or equal to: \[(\d+)\]/.exec(reason ?? '');
  return match ? Number(match[1]) : undefined;
}

/**
 * Whether the node stopped the search at its `timeout`: with `allow_partial_search_results: false`
 * a shard that runs out of time fails with "Time exceeded" (QueryPhase) instead of answering part.
 */
export function isSearchTimeout(e: unknown): boolean {
  if (!(e instanceof errors.ResponseError)) return false;
  return JSON.stringify(e.meta?.body ?? '').includes('Time exceeded');
}
