import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { PROBLEMS_PAGE_POLICY, problemsHtml } from '#shared/problem-page';
import { conditionalGet } from '#commons/http/conditional-get';
import { httpEdge } from '#commons/http/edge';

/**
 * GET /problems, without a token: the problem types page, where the `type` of every problem points
 * (`/problems#too-many-buckets`). Built once per instance; the same for every caller, so public and
 * cacheable for an hour, with an ETag for 304s. HTML whatever Accept says: it is a page for people
 * who followed a link, and a 406 would help none of them.
 */
export function createProblemsHandler() {
  const page = problemsHtml();
  return middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: 'problems' }))
    .use(conditionalGet())
    .handler(async () => ({
      statusCode: 200,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'public, max-age=3600',
        'Content-Security-Policy': PROBLEMS_PAGE_POLICY,
      },
      body: page,
    }));
}

export const handler = createProblemsHandler();
