import { errors } from '@opensearch-project/opensearch';
import { EngineUnavailableError, InternalError, ReportTooExpensiveError, TooManyBucketsError } from '#shared/errors';
import { assertEveryShard, mapOpenSearchError } from '#shared/stores/opensearch/errors';

/**
 * OpenSearch refusals → our problems, from the bodies a node answers with (a refusal of every shard
 * is a search_phase_execution_exception whose causes are under root_cause and failed_shards).
 * The real node trips its breaker in test/integration/report/too-expensive.test.ts.
 */
const refused = (statusCode: number, cause: Record<string, unknown>) =>
  new errors.ResponseError({
    body: {
      error: {
        root_cause: [cause],
        type: 'search_phase_execution_exception',
        reason: 'all shards failed',
        failed_shards: [{ shard: 0, index: 'i', reason: cause }],
      },
      status: statusCode,
    },
    statusCode,
    headers: {},
    warnings: null,
    meta: {} as never,
  });

const breaker = (durability: string) => ({
  type: 'circuit_breaking_exception',
  reason: '[parent] Data too large, data for [<agg [s3]>] would be [5120/5kb]',
  bytes_wanted: 5120,
  bytes_limit: 1024,
  durability,
});
const backpressure = {
  type: 'task_cancelled_exception',
  reason: 'cancelled task with reason: heap usage exceeded [12.1mb >= 5mb]',
};

describe('a report refused by OpenSearch', () => {
  test.each([
    ['a request breaker, TRANSIENT', refused(429, breaker('TRANSIENT'))],
    ['a breaker whose memory is held for good, PERMANENT', refused(429, breaker('PERMANENT'))],
    ['search backpressure cancelling it (HTTP 500)', refused(500, backpressure)],
  ])('for what it costs (%s) is 503 report-too-expensive with Retry-After', (_, e) => {
    const mapped = mapOpenSearchError(e, 'report');
    expect(mapped).toBeInstanceOf(ReportTooExpensiveError);
    expect(mapped).toMatchObject({
      status: 503,
      slug: 'report-too-expensive',
      headers: { 'Retry-After': '10' },
      cause: e,
    });
  });

  test('for a full search queue (es_rejected_execution_exception, 429) is 503 engine-unavailable', () => {
    expect(
      mapOpenSearchError(
        refused(429, { type: 'es_rejected_execution_exception', reason: 'rejected execution' }),
        'report',
      ),
    ).toBeInstanceOf(EngineUnavailableError);
  });

  test('for too many buckets (answered HTTP 503) is still 422 too-many-buckets', () => {
    const e = refused(503, {
      type: 'too_many_buckets_exception',
      reason: 'Trying to create too many buckets. Must be less than or equal to: [2000] but was [2001].',
    });
    expect(mapOpenSearchError(e, 'report')).toEqual(
      expect.objectContaining({ status: 422, extensions: { maxBuckets: 2000 } }),
    );
    expect(mapOpenSearchError(e, 'report')).toBeInstanceOf(TooManyBucketsError);
  });

  test("for a task cancelled for another reason is not the report's cost", () => {
    expect(
      mapOpenSearchError(
        refused(500, { type: 'task_cancelled_exception', reason: 'task cancelled [by user request]' }),
        'report',
      ),
    ).toBeInstanceOf(EngineUnavailableError);
    expect(
      mapOpenSearchError(refused(400, { type: 'task_cancelled_exception', reason: 'cancelled' }), 'report'),
    ).toBeInstanceOf(InternalError);
  });
});

describe('a write refused by a breaker', () => {
  test('is the engine short of memory: 503 engine-unavailable, not the report type', () => {
    expect(mapOpenSearchError(refused(429, breaker('TRANSIENT')))).toBeInstanceOf(EngineUnavailableError);
  });
});

describe('a search that found part of its data unavailable', () => {
  const missingShards = new errors.ResponseError({
    body: {
      error: {
        root_cause: [],
        type: 'search_phase_execution_exception',
        reason: '',
        caused_by: {
          type: 'search_phase_execution_exception',
          reason: 'Search rejected due to missing shards [[movement-events-2024.05][0]].',
        },
      },
      status: 503,
    },
    statusCode: 503,
    headers: {},
    warnings: null,
    meta: {} as never,
  });

  test.each([
    [
      'a closed index (HTTP 400)',
      refused(400, { type: 'index_closed_exception', reason: 'closed', index: 'movement-events-2024.04' }),
    ],
    [
      'a named index that is not there (HTTP 404)',
      refused(404, { type: 'index_not_found_exception', reason: 'no such index [rollup-movement-events-1d]' }),
    ],
    ['a shard with no active copy (HTTP 503)', missingShards],
  ])('%s is 503 engine-unavailable saying so, with Retry-After', (_, e) => {
    expect(mapOpenSearchError(e, 'report')).toMatchObject({
      status: 503,
      slug: 'engine-unavailable',
      headers: { 'Retry-After': '5' },
      detail: expect.stringMatching(/^Part of the data is not available right now/),
      cause: e,
    });
  });

  test('a 200 from fewer shards than it searched is refused; skipped shards count as answered', () => {
    expect(() => assertEveryShard({ _shards: { total: 2, successful: 1, skipped: 0, failed: 0 } })).toThrow(
      EngineUnavailableError,
    );
    expect(() => assertEveryShard({ _shards: { total: 3, successful: 2, skipped: 0, failed: 1 } })).toThrow(
      /^Part of the data/,
    );
    expect(() => assertEveryShard({ _shards: { total: 3, successful: 1, skipped: 2, failed: 0 } })).not.toThrow();
    expect(() => assertEveryShard({ _shards: { total: 3, successful: 3, skipped: 2, failed: 0 } })).not.toThrow();
  });
});
