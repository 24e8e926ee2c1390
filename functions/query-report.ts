import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import httpContentNegotiation from '@middy/http-content-negotiation';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { Deadline } from '#shared/report/deadline';
import type { ReportEngine } from '#shared/report/engines/engine';
import { answerReport, REPORT_MEDIA_TYPES, type ReportMediaType, type SplitRunOptions } from '#shared/report/query-report';
import { bodyLimit } from '#commons/body-limit';
import { reportEngine } from '#commons/engine';
import { organizationOf } from '#commons/identity';
import type { Provider } from '#commons/lazy';
import { measuredEngine, metrics } from '#commons/metrics';
import { observability } from '#commons/observability';
import { problemErrors } from '#commons/problem-middleware';

type Event = APIGatewayProxyEventV2WithJWTAuthorizer;
/** http-content-negotiation puts the chosen type on the context. */
type NegotiatedContext = Context & { preferredMediaType?: ReportMediaType };

/** Largest report body accepted (413 beyond). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * What the answer still needs once the engine is done (shaping, rendering up to 5.5 MiB, the
 * response): the report's deadline is the function's remaining time less this, so that a report
 * stopped at its deadline is answered 503 before Lambda (or middy's timeout, a 500) ends it.
 */
export const RESPONSE_MARGIN_MS = 2_000;

/** How split reports run in this process, from the environment (loaded on the first split report). */
const splitOptionsFromEnv = async (engine: ReportEngine): Promise<SplitRunOptions> =>
  (await import('#commons/step-functions-executor')).splitOptionsFromEnv(engine);

/**
 * POST /reports:query. Dependencies are injectable so tests run this very handler on a test engine.
 * The split code, the Step Functions and S3 clients of a split report load on its first use, not at start.
 */
export function createQueryReportHandler(
  engine: Provider<ReportEngine> = reportEngine,
  split: (engine: ReportEngine) => SplitRunOptions | Promise<SplitRunOptions> = splitOptionsFromEnv,
) {
  return middy<Event, APIGatewayProxyResultV2>()
    .use(problemErrors({ availableMediaTypes: REPORT_MEDIA_TYPES }))
    .use(observability())
    .use(httpHeaderNormalizer())
    .use(httpContentNegotiation({ availableMediaTypes: [...REPORT_MEDIA_TYPES], parseCharsets: false, parseEncodings: false, parseLanguages: false }))
    .use(bodyLimit(MAX_BODY_BYTES))
    .use(httpJsonBodyParser())
    .handler(async (event, context: NegotiatedContext, { signal }) => {
      const deadline = Deadline.after(context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS, signal);
      const scope = { organizationId: organizationOf(event) };
      const mediaType = context.preferredMediaType ?? 'application/json';
      const reports = measuredEngine(await engine());
      const { headers, body } = await answerReport(event.body, scope, reports, mediaType, { deadline, loadSplitOptions: async () => split(reports) });
      metrics.addMetric('ReportTruncated', MetricUnit.Count, headers['X-Report-Truncated'] ? 1 : 0);
      return { statusCode: 200, headers, body };
    });
}

export const handler = createQueryReportHandler();
