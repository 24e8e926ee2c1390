import { PROBLEMS_PAGE_POLICY, problemsHtml } from '../problem-page';
import { cacheControl, common, getHeaders, header, ref } from './responses';

/** The operations anyone may call, without a token: the health check and the problems page. */

type Json = Record<string, unknown>;

export function health(): Json {
  const noStore = cacheControl('no-store', 'A health answer is never reused.');
  const report = (engine: string, table: string) => ({
    status: engine === 'ok' && table === 'ok' ? 'ok' : 'fail',
    checks: { engine, table },
  });
  return {
    operationId: 'getHealth',
    tags: ['operations'],
    summary: 'Whether the report engine and the table answer.',
    description:
      'No token needed. The report engine must answer a query and the table a read, each within 3 s; the body says which did not, never why. Always JSON, whatever Accept says, and never cached. Deployed with its own throttle of 5 requests per second.',
    security: [],
    responses: {
      '200': {
        description: 'Every check passed.',
        headers: { 'Cache-Control': noStore, 'X-Request-Id': header('X-Request-Id') },
        content: {
          'application/json': { schema: ref('schemas', 'Health'), examples: { ok: { value: report('ok', 'ok') } } },
        },
      },
      ...common,
      '503': {
        description: 'A check failed or timed out; the body names it, never why (that is logged under the request id).',
        headers: {
          'Retry-After': header('Retry-After'),
          'Cache-Control': noStore,
          'X-Request-Id': header('X-Request-Id'),
        },
        content: {
          'application/json': {
            schema: ref('schemas', 'Health'),
            examples: { engineDown: { value: report('fail', 'ok') }, tableSlow: { value: report('ok', 'timeout') } },
          },
        },
      },
    },
  };
}

export function problemsPage(): Json {
  return {
    operationId: 'getProblemTypes',
    tags: ['documentation'],
    summary: 'The problem types: the page the `type` of every problem points to.',
    description:
      'No token needed. One section per problem type, its anchor the type (`/problems#too-many-buckets`): when the service answers it and what to do. HTML whatever Accept says, the same for everyone, with an ETag. Deployed with its own throttle of 5 requests per second.',
    security: [],
    parameters: [ref('parameters', 'AcceptEncoding'), ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The page.',
        headers: {
          ...getHeaders(cacheControl('public, max-age=3600', 'The page changes only with a deployment.')),
          'Content-Security-Policy': {
            description: 'The page loads nothing: no script, style or image.',
            schema: { type: 'string' },
            example: PROBLEMS_PAGE_POLICY,
          },
        },
        content: {
          'text/html': {
            schema: { type: 'string' },
            examples: {
              page: { summary: 'The page, as this version of the service answers it', value: problemsHtml() },
            },
          },
        },
      },
      '304': ref('responses', 'NotModified'),
      ...common,
    },
  };
}
