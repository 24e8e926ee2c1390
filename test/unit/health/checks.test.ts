import { engineCheck, PROBE_REQUEST, runChecks } from '#shared/health/checks';
import type { ReportEngine } from '#shared/stores/store';
import type { ReportPlan } from '#shared/report/plan/plan';

describe('runChecks', () => {
  test('is ok when every check answers', async () => {
    const report = await runChecks({ engine: async () => undefined, table: async () => undefined });
    expect(report).toEqual({ status: 'ok', checks: { engine: 'ok', table: 'ok' } });
  });

  test('names the check that failed, and tells why only to onProblem', async () => {
    const told: [string, string][] = [];
    const report = await runChecks(
      { engine: async () => undefined, table: async () => Promise.reject(new Error('ResourceNotFoundException: table t-1 at 10.0.0.7')) },
      { onProblem: (check, error) => told.push([check, (error as Error).message]) },
    );
    expect(report).toEqual({ status: 'fail', checks: { engine: 'ok', table: 'fail' } });
    expect(told).toEqual([['table', 'ResourceNotFoundException: table t-1 at 10.0.0.7']]);
  });

  test('stops waiting for a check at the timeout, aborts its signal and reports timeout', async () => {
    let aborted = false;
    const hangs = (signal: AbortSignal) =>
      new Promise<void>(() => {
        signal.addEventListener('abort', () => (aborted = true));
      });
    const told: string[] = [];
    const report = await runChecks({ engine: hangs, table: async () => undefined }, { timeoutMs: 50, onProblem: (check, error) => told.push(`${check}: ${(error as Error).message}`) });
    expect(report).toEqual({ status: 'fail', checks: { engine: 'timeout', table: 'ok' } });
    expect(aborted).toBe(true);
    expect(told).toEqual(['engine: no answer within 50 ms']);
  });
});

describe('engineCheck', () => {
  test('runs the probe report, a movement events query of the first millisecond of 1970, for the nil organization', async () => {
    const runs: { plan: ReportPlan; organizationId: string }[] = [];
    const engine: ReportEngine = {
      maxBuckets: 65_535,
      run: async (plan, scope) => {
        runs.push({ plan, organizationId: scope.organizationId });
        return { root: { kind: 'terms', buckets: [] }, truncated: false };
      },
    };
    await engineCheck(async () => engine)(new AbortController().signal);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.organizationId).toBe('00000000-0000-0000-0000-000000000000');
    expect(runs[0]!.plan).toMatchObject({ source: 'movementEvents' });
    expect(PROBE_REQUEST.filters[0]).toEqual({ type: 'range', field: 'timestamp', from: '1970-01-01T00:00:00.000Z', to: '1970-01-01T00:00:00.001Z' });
  });

  test('fails when the engine fails', async () => {
    const engine: ReportEngine = { maxBuckets: 65_535, run: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
    await expect(engineCheck(async () => engine)(new AbortController().signal)).rejects.toThrow('ECONNREFUSED');
  });
});
