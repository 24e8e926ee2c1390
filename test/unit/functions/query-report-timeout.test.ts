import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ReportEngine } from '#shared/stores/store';
import { createQueryReportHandler } from '../../../functions/query-report';
import { RESPONSE_MARGIN_MS } from '../../../functions/commons/http/answer-deadline';
import { httpEvent } from '../../../bin/dev/lambda-events';

/**
 * The last resort: an engine that does not stop at the report's deadline (the real ones do; see
 * test/integration/report/deadline.test.ts) must still not make the function answer 500 when its own
 * time runs out. middy answers then, with our 503 instead of its TimeoutError.
 */
test('answers 503 report-timeout when the function runs out of time with the engine still busy', async () => {
  // Prepare: an engine that never answers and ignores its deadline; 300 ms of report time
  const deaf: ReportEngine = { maxBuckets: 65_535, run: () => new Promise(() => undefined) };
  const context = {
    awsRequestId: 'deaf',
    functionName: 'query-report',
    getRemainingTimeInMillis: () => RESPONSE_MARGIN_MS + 300,
  } as Context;
  // Act
  const response = (await createQueryReportHandler({ engine: () => deaf })(
    httpEvent({
      body: { aggregations: [{ type: 'terms', field: 'label' }] },
      org: '0e0e0e0e-0000-4000-8000-00000000beef',
    }),
    context,
  )) as APIGatewayProxyStructuredResultV2;
  // Assess
  expect(response.statusCode).toBe(503);
  expect(response.headers).toMatchObject({ 'Content-Type': 'application/problem+json', 'Retry-After': '10' });
  expect(JSON.parse(response.body as string)).toMatchObject({ type: '/problems#report-timeout', status: 503 });
});
