import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { engineCheck, type HealthCheck, HEALTH_MAX_AGE_MS, runChecks, sharedReport } from '#shared/health/checks';
import { tableCheck } from '#commons/clients/dynamo';
import { reportEngine } from '#commons/clients/store';
import { httpEdge } from '#commons/http/edge';
import { logger } from '#commons/powertools/logger';

export interface HealthDeps {
  /** What must answer for the service to answer. @default the report engine and the table */
  readonly checks: Readonly<Record<string, HealthCheck>>;
  /** @default DEFAULT_CHECK_TIMEOUT_MS (shared/health/checks.ts) */
  readonly timeoutMs?: number;
  /** How old a report may be when answered. @default HEALTH_MAX_AGE_MS (1 s) */
  readonly maxAgeMs?: number;
  /** A monotonic clock in milliseconds. @default performance.now */
  readonly now?: () => number;
}

/**
 * GET /health, without a token: 200 `{ status: 'ok', checks }` when the report engine answers a query
 * and the table a read (each within a short timeout), else 503 naming the check that failed, never
 * why (that is logged). Any Accept gets JSON: a monitor must not read a 406 as an outage. The checks
 * run at most once per second however many ask (sharedReport): a flood needs no token, and must not
 * reach the engine once per request.
 */
export function createHealthHandler(
  deps: HealthDeps = { checks: { engine: engineCheck(reportEngine), table: tableCheck } },
) {
  const onProblem = (check: string, error: unknown) =>
    logger.error('health check failed', { check, error: error as Error });
  const check = sharedReport(
    () => runChecks(deps.checks, { onProblem, ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }) }),
    deps.maxAgeMs ?? HEALTH_MAX_AGE_MS,
    deps.now,
  );
  return middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: 'health' }))
    .handler(async () => {
      const report = await check();
      const ok = report.status === 'ok';
      return {
        statusCode: ok ? 200 : 503,
        headers: {
          'Content-Type': 'application/json',
          'Cache-Control': 'no-store',
          ...(ok ? {} : { 'Retry-After': '5' }),
        },
        body: JSON.stringify(report),
      };
    });
}

export const handler = createHealthHandler();
