import { createHealthHandler } from '../../../functions/health';
import { invoke } from '../../../bin/dev/lambda-events';
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
      {
        engine: async () => undefined,
        table: async () => Promise.reject(new Error('ResourceNotFoundException: table t-1 at 10.0.0.7')),
      },
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
    const report = await runChecks(
      { engine: hangs, table: async () => undefined },
      { timeoutMs: 50, onProblem: (check, error) => told.push(`${check}: ${(error as Error).message}`) },
    );
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
    expect(PROBE_REQUEST.filters[0]).toEqual({
      type: 'range',
      field: 'timestamp',
      from: '1970-01-01T00:00:00.000Z',
      to: '1970-01-01T00:00:00.001Z',
    });
  });

  test('fails when the engine fails', async () => {
    const engine: ReportEngine = {
      maxBuckets: 65_535,
      run: async () => Promise.reject(new Error('connect ECONNREFUSED')),
    };
    await expect(engineCheck(async () => engine)(new AbortController().signal)).rejects.toThrow('ECONNREFUSED');
  });
});

describe('GET /health under a flood', () => {
  test('reaches the engine once for fifty requests at once, again only once its report is more than a second old', async () => {
    // Prepare: a check that counts its runs and takes a moment; a clock the test moves.
    let runs = 0;
    let clock = 0;
    const engine = async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const handler = createHealthHandler({ checks: { engine }, now: () => clock });
    const ask = () => invoke(handler, { method: 'GET', path: '/health', org: null });
    // Act
    const flood = await Promise.all(Array.from({ length: 50 }, ask));
    clock = 1_000;
    const withinASecond = await ask();
    clock = 1_021;
    const older = await ask();
    // Assess: one run for the flood and the ask within a second of its end (at 0), a second run after.
    expect(flood.every((a) => a.status === 200) && withinASecond.status === 200 && older.status === 200).toBe(true);
    expect(runs).toBe(2);
  });

  test('a failure is shared like a success: 503 for everyone within the second, with Retry-After', async () => {
    let runs = 0;
    const handler = createHealthHandler({
      checks: {
        engine: async () => {
          runs++;
          throw new Error('down');
        },
      },
      now: () => 0,
    });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => invoke(handler, { method: 'GET', path: '/health', org: null })),
    );
    expect(answers.map((a) => [a.status, a.headers['retry-after']])).toEqual(
      Array.from({ length: 5 }, () => [503, '5']),
    );
    expect(runs).toBe(1);
  });
});
