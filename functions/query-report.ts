import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2 } from 'aws-lambda';
import { ReportTimeoutError } from '#shared/errors';
import { answerDeadline } from '#commons/http/answer-deadline';
import type { ReportEngine } from '#shared/stores/store';
import { Gate, SingleFlight } from '#shared/concurrency';
import { answerReport, REPORT_MEDIA_TYPES, type ReportAnswer, type ReportMediaType } from '#shared/report/query-report';
import type { SliceExecutor } from '#shared/report/split/run-split';
import { bodyLimit } from '#commons/http/body-limit';
import { reportEngine } from '#commons/clients/store';
import { accessOf } from '#commons/http/identity';
import { jsonBody } from '#commons/http/json-body';
import type { Provider } from '#commons/clients/lazy';
import { measuredEngine, metrics } from '#commons/powertools/metrics';
import { negotiateMediaType, type NegotiatedContext } from '#commons/http/negotiation';
import { httpEdge } from '#commons/http/edge';
import { type EncodingContext, sentBytesOf } from '#commons/http/content-encoding';
import { reportHeaders } from '#commons/http/report-headers';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;

/** Largest report body accepted (413 beyond). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Who runs this process's split reports (commons/split/slice-executor.ts, loaded on the first split report). */
const sliceExecutorFor = async (engine: ReportEngine): Promise<SliceExecutor> =>
  (await import('#commons/split/slice-executor')).sliceExecutor(engine);

/**
 * Most reports answered at once by one process; the others wait their turn, within their deadline.
 * A Lambda instance answers one request at a time, so this bounds the local server, which answers
 * all of them in one process: each answer is held whole until it is sent (up to 5.5 MiB of body,
 * several times that as the result tree and the model it is made from), so eighty at once held
 * gigabytes (issue 30, M7). Four keep two cores busy while a report waits on its engine.
 */
export const MAX_ANSWERS_AT_ONCE = 4;

export interface QueryReportDeps {
  /** The report engine (OpenSearch in Lambda, DuckDB locally). */
  readonly engine: Provider<ReportEngine>;
  /** Who runs a split report's slices on that engine. */
  readonly slices: (engine: ReportEngine) => SliceExecutor | Promise<SliceExecutor>;
  /** @default MAX_ANSWERS_AT_ONCE */
  readonly maxAnswersAtOnce?: number;
}

/**
 * POST /reports:query. Dependencies are injectable (one object, given in part) so tests run this
 * very handler on a test engine. The split code, the Step Functions and S3 clients of a split report
 * load on its first use, not at start. Identical reports asked at once (the same organization,
 * body, media type and content coding) are answered once, every asker getting that answer (or its
 * problem); at most `maxAnswersAtOnce` different ones are worked on at a time.
 */
export function createQueryReportHandler(given: Partial<QueryReportDeps> = {}) {
  const deps: QueryReportDeps = { engine: reportEngine, slices: sliceExecutorFor, ...given };
  const inFlight = new SingleFlight<ReportAnswer>();
  const answering = new Gate(deps.maxAnswersAtOnce ?? MAX_ANSWERS_AT_ONCE);
  // The report's deadline answers first; should anything else outlast the function, middy's own
  // timeout answers this 503 rather than its TimeoutError (a 500).
  return middy<Event, APIGatewayProxyResultV2>({
    timeoutEarlyResponse: () => {
      throw new ReportTimeoutError();
    },
  })
    .use(httpEdge({ route: 'query-report', availableMediaTypes: REPORT_MEDIA_TYPES }))
    .use(negotiateMediaType(REPORT_MEDIA_TYPES))
    .use(bodyLimit(MAX_BODY_BYTES))
    .use(jsonBody())
    .handler(async (event, context: NegotiatedContext<ReportMediaType>) => {
      const deadline = answerDeadline(context);
      const { organizationId, locationIds } = accessOf(event);
      const scope = { organizationId, ...(locationIds ? { locationIds } : {}) };
      const mediaType = context.preferredMediaType ?? 'application/json';
      const reports = measuredEngine(await deps.engine());
      // The grant is part of the key: two callers of one organization with other grants never share an answer.
      const key = JSON.stringify([
        scope.organizationId,
        scope.locationIds ?? null,
        mediaType,
        (context as EncodingContext).responseCoding?.coding ?? null,
        event.body,
      ]);
      const answer = await inFlight.run(key, () =>
        answering
          .run(
            () =>
              answerReport(event.body, scope, reports, mediaType, {
                deadline,
                sliceExecutor: () => deps.slices(reports),
                sentBytes: sentBytesOf(context),
              }),
            deadline.signal,
          )
          // The deadline passed while the report waited its turn: the report's own 503.
          .catch((e: unknown) => Promise.reject(e === deadline.signal.reason ? deadline.error() : e)),
      );
      metrics.addMetric('ReportTruncated', MetricUnit.Count, answer.truncated ? 1 : 0);
      return { statusCode: 200, headers: reportHeaders(answer), body: answer.body };
    });
}

export const handler = createQueryReportHandler();
