import { lazy } from '#commons/clients/lazy';
import { measuredEngine, metrics } from '#commons/powertools/metrics';
import { tracingEnabled } from '#commons/powertools/tracer';
import type { EngineResult, ReportEngine } from '#shared/stores/store';
import type { ReportPlan } from '#shared/report/plan/plan';

describe('lazy', () => {
  it('builds once on first use and gives every caller, concurrent ones included, the same value', async () => {
    // Prepare
    let builds = 0;
    const value = lazy(async () => ({ n: ++builds }));
    // Act
    const [a, b] = await Promise.all([value(), value()]);
    const c = await value();
    // Assess
    expect({ builds, same: a === b && b === c }).toEqual({ builds: 1, same: true });
  });

  it('forgets a failed build, so the next call tries again', async () => {
    // Prepare
    let attempts = 0;
    const value = lazy(async () => {
      if (++attempts === 1) throw new Error('first build fails');
      return attempts;
    });
    // Act
    const first = await value().catch((e: Error) => e.message);
    const second = await value();
    // Assess
    expect([first, second]).toEqual(['first build fails', 2]);
  });
});

describe('tracingEnabled', () => {
  it('follows the Powertools tracer rule: on in Lambda only, off when disabled, under SAM local or the Amplify mock', () => {
    const lambda = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' };
    expect([
      tracingEnabled({}),
      tracingEnabled(lambda),
      tracingEnabled({ ...lambda, POWERTOOLS_TRACE_ENABLED: 'false' }),
      tracingEnabled({ ...lambda, AWS_SAM_LOCAL: 'true' }),
      tracingEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_amplify-mock' }),
    ]).toEqual([false, true, false, false, false]);
  });
});

describe('measuredEngine', () => {
  afterEach(() => metrics.clearMetrics());

  it('records the latency of every run, failed runs included, and passes results and errors through', async () => {
    // Prepare
    const result = { root: { buckets: [] }, truncated: false } as unknown as EngineResult;
    let fail = false;
    const engine: ReportEngine = {
      maxBuckets: 65_535,
      run: async () => (fail ? Promise.reject(new Error('down')) : result),
    };
    const plan = {} as ReportPlan;
    // Act
    const ok = await measuredEngine(engine).run(plan, { organizationId: 'o' });
    fail = true;
    const failed = await measuredEngine(engine)
      .run(plan, { organizationId: 'o' })
      .catch((e: Error) => e.message);
    const serialized = metrics.serializeMetrics() as unknown as Record<string, unknown>;
    // Assess
    expect({ ok, failed, latencies: (serialized.ReportEngineLatency as number[]).length }).toEqual({
      ok: result,
      failed: 'down',
      latencies: 2,
    });
  });
});
