import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { engineCheck, type HealthCheck, runChecks } from '#shared/health/checks';
import { tableCheck } from '#commons/clients/dynamo';
import { reportEngine } from '#commons/clients/engine';
import { httpEdge } from '#commons/http/edge';
import { logger } from '#commons/powertools/logger';

export interface HealthDeps {
  /** What must answer for the service to answer. @default the report engine and the table */
  readonly checks: Readonly<Record<string, HealthCheck>>;
  /** @default DEFAULT_CHECK_TIMEOUT_MS (shared/health/checks.ts) */
  readonly timeoutMs?: number;
}

/**
 * GET /health, without a token: 200 `{ status: 'ok', checks }` when the report engine answers a query
 * and the table a read (each within a short timeout), else 503 naming the check that failed, never
 * why (that is logged). Any Accept gets JSON: a monitor must not read a 406 as an outage.
 */
export function createHealthHandler(deps: HealthDeps = { checks: { engine: engineCheck(reportEngine), table: tableCheck } }) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
    .use(httpEdge({ route: 'health' }))
    .handler(async () => {
      const onProblem = (check: string, error: unknown) => logger.error('health check failed', { check, error: error as Error });
      const report = await runChecks(deps.checks, { onProblem, ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }) });
      const ok = report.status === 'ok';
      return {
        statusCode: ok ? 200 : 503,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...(ok ? {} : { 'Retry-After': '5' }) },
        body: JSON.stringify(report),
      };
    });
}

export const handler = createHealthHandler();
