import type { ReportEngine, Scope } from '../stores/store';
import { planFromRequest } from '../report/plan/plan-builder';
import type { ReportRequest } from '../report/schema/request';

/** One dependency the service needs to answer: resolves when it answers, rejects or hangs when not. */
export type HealthCheck = (signal: AbortSignal) => Promise<void>;

/** `timeout`: no answer within the check's time; `fail`: an error (logged, never shown). */
export type CheckStatus = 'ok' | 'fail' | 'timeout';

export interface HealthReport {
  readonly status: 'ok' | 'fail';
  readonly checks: Readonly<Record<string, CheckStatus>>;
}

export interface RunChecksOptions {
  /** Longest wait for one check; its signal aborts then. @default DEFAULT_CHECK_TIMEOUT_MS */
  readonly timeoutMs?: number;
  /** Told why a check did not pass (the edge logs it; the report only says fail or timeout). */
  readonly onProblem?: (check: string, error: unknown) => void;
}

/** Short enough for a load balancer's or a monitor's own timeout, long enough for a cold client. */
export const DEFAULT_CHECK_TIMEOUT_MS = 3_000;

/** Runs every check at once, each bounded by the timeout: the report is ok when all are. */
export async function runChecks(
  checks: Readonly<Record<string, HealthCheck>>,
  options: RunChecksOptions = {},
): Promise<HealthReport> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await runCheck(name, check, options)] as const),
  );
  return {
    status: results.every(([, status]) => status === 'ok') ? 'ok' : 'fail',
    checks: Object.fromEntries(results),
  };
}

/**
 * How old a health report may be when it is answered: a flood of `/health` (it needs no token) then
 * costs the engine and the table one check per second, not one per request, while a monitor still
 * sees an outage within a second of its start.
 */
export const HEALTH_MAX_AGE_MS = 1_000;

/**
 * `run`, shared: a caller within `maxAgeMs` of the end of the last run gets its report; a caller
 * while a run is on gets that run's. So at most one run at a time, and one per `maxAgeMs` however
 * many ask. `now` is a monotonic clock in milliseconds.
 */
export function sharedReport(
  run: () => Promise<HealthReport>,
  maxAgeMs = HEALTH_MAX_AGE_MS,
  now: () => number = () => performance.now(),
): () => Promise<HealthReport> {
  let running: Promise<HealthReport> | undefined;
  let last: { readonly at: number; readonly report: HealthReport } | undefined;
  return () => {
    if (last && now() - last.at <= maxAgeMs) return Promise.resolve(last.report);
    running ??= run()
      .then((report) => {
        last = { at: now(), report };
        return report;
      })
      .finally(() => (running = undefined));
    return running;
  };
}

async function runCheck(name: string, check: HealthCheck, options: RunChecksOptions): Promise<CheckStatus> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const status = await Promise.race([check(controller.signal).then(() => 'ok' as const), timedOut]);
    if (status === 'timeout') {
      controller.abort();
      options.onProblem?.(name, new Error(`no answer within ${timeoutMs} ms`));
    }
    return status;
  } catch (error) {
    options.onProblem?.(name, error);
    return 'fail';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The report the engine check runs: the same path as every report (plan, organization filter, the
 * collection's indices or tables, the engine's credentials), matching nothing, so that the engine
 * answers from its index structures alone: the first millisecond of 1970 of the nil organization.
 */
export const PROBE_REQUEST = {
  source: 'movementEvents',
  filters: [{ type: 'range', field: 'timestamp', from: '1970-01-01T00:00:00.000Z', to: '1970-01-01T00:00:00.001Z' }],
  aggregations: [{ type: 'terms', field: 'locationId' }],
} as const satisfies ReportRequest;

const PROBE_SCOPE: Scope = { organizationId: '00000000-0000-0000-0000-000000000000' };

/** Whether the report engine answers a query. */
export function engineCheck(engine: () => Promise<ReportEngine>): HealthCheck {
  const plan = planFromRequest(PROBE_REQUEST);
  return async () => {
    await (await engine()).run(plan, PROBE_SCOPE, { uncached: true });
  };
}
