import type { EngineResult, KeyedResult, ReportEngine, Scope } from '#shared/stores/store';
import type { ReportPlan } from '#shared/report/plan/plan';
import { buildPlan } from '#shared/report/plan/build-plan';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { engineCheck } from '#shared/health/checks';
import { CachedReportEngine } from '../../../bin/local/report-cache';

const ROOT = join(__dirname, '../../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** An engine that counts its runs and answers each with a fresh tree naming the run. */
class CountingEngine implements ReportEngine {
  readonly maxBuckets = 65_535;
  runs = 0;
  fail = false;
  async run(plan: ReportPlan, scope: Scope): Promise<EngineResult> {
    this.runs++;
    await new Promise((r) => setTimeout(r, 5));
    if (this.fail) throw new Error('engine down');
    return {
      root: {
        kind: 'terms',
        buckets: [{ key: `${scope.organizationId} run ${this.runs} of ${plan.source}`, count: this.runs }],
      },
      truncated: false,
    };
  }
}

const planFor = (label: string) =>
  buildPlan({
    filters: [{ type: 'terms', field: 'label', values: [label] }],
    aggregations: [{ type: 'terms', field: 'label' }],
  });
const ORG = { organizationId: 'a0000000-0000-4000-8000-00000000000a' };
const OTHER = { organizationId: 'b0000000-0000-4000-8000-00000000000b' };

describe('the local server’s report cache', () => {
  test('answers a report asked again from the first run', async () => {
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine);
    const first = await cache.run(planFor('car'), ORG);
    const again = await cache.run(planFor('car'), ORG);
    expect(again).toEqual(first);
    expect(engine.runs).toBe(1);
  });

  test('forgets, after a rollup rebuild, the results not answered from rollups, and only those', async () => {
    // Prepare: 'car' was read raw (before the rebuild reached its grains), 'bus' from rollups.
    const engine = new CountingEngine();
    const sourced: ReportEngine = {
      maxBuckets: engine.maxBuckets,
      run: async (plan, scope) => ({
        ...(await engine.run(plan, scope)),
        source: JSON.stringify(plan).includes('car') ? 'raw' : 'rollup',
      }),
    };
    const cache = new CachedReportEngine(sourced);
    await cache.run(planFor('car'), ORG);
    await cache.run(planFor('bus'), ORG);
    // Act
    cache.forgetUnaccelerated();
    await cache.run(planFor('car'), ORG);
    await cache.run(planFor('bus'), ORG);
    // Assess: 'car' ran again (it may now read rollups and say so), 'bus' did not.
    expect(engine.runs).toBe(3);
  });

  test('runs a report asked by several callers at once once', async () => {
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine);
    const answers = await Promise.all([1, 2, 3].map(() => cache.run(planFor('car'), ORG)));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(engine.runs).toBe(1);
  });

  test('keeps reports apart by plan and by organization', async () => {
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine);
    const keys = [
      await cache.run(planFor('car'), ORG),
      await cache.run(planFor('bus'), ORG),
      await cache.run(planFor('car'), OTHER),
    ].map((r) => (r.root as KeyedResult).buckets[0]?.key);
    expect(keys).toEqual([
      `${ORG.organizationId} run 1 of movementEvents`,
      `${ORG.organizationId} run 2 of movementEvents`,
      `${OTHER.organizationId} run 3 of movementEvents`,
    ]);
  });

  test('does not keep a failure: the next ask runs again', async () => {
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine);
    engine.fail = true;
    await expect(cache.run(planFor('car'), ORG)).rejects.toThrow('engine down');
    engine.fail = false;
    await expect(cache.run(planFor('car'), ORG)).resolves.toMatchObject({ truncated: false });
    expect(engine.runs).toBe(2);
  });

  test('keeps at most maxEntries reports, the least recently used going first', async () => {
    // Prepare: room for two; car, bus, car again (now the most recent), then truck pushes bus out.
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine, { maxEntries: 2 });
    for (const label of ['car', 'bus', 'car', 'truck']) await cache.run(planFor(label), ORG);
    expect(engine.runs).toBe(3);
    // Act
    await cache.run(planFor('car'), ORG);
    await cache.run(planFor('bus'), ORG);
    // Assess: car was kept, bus ran again.
    expect(engine.runs).toBe(4);
  });

  test('does not keep a result larger than a quarter of its bytes', async () => {
    // The result is {"root":{"kind":"terms","buckets":[{"key":"<org> run 1 of
    // movementEvents","count":1}]},"truncated":false}: 136 bytes.
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine, { maxBytes: 4 * 135 });
    await cache.run(planFor('car'), ORG);
    await cache.run(planFor('car'), ORG);
    expect(engine.runs).toBe(2);
    const roomy = new CachedReportEngine(engine, { maxBytes: 4 * 136 });
    await roomy.run(planFor('car'), ORG);
    await roomy.run(planFor('car'), ORG);
    expect(engine.runs).toBe(3);
  });

  test('hands out results no caller can change for the next', async () => {
    const cache = new CachedReportEngine(new CountingEngine());
    const first = await cache.run(planFor('car'), ORG);
    (first.root as unknown as { buckets: { count: number }[] }).buckets[0]!.count = 99;
    const again = await cache.run(planFor('car'), ORG);
    (again.root as unknown as { buckets: { count: number }[] }).buckets[0]!.count = 98;
    expect(((await cache.run(planFor('car'), ORG)).root as KeyedResult).buckets[0]!.count).toBe(1);
  });

  test('passes a run that must reach the engine (the health probe) on, whatever it holds', async () => {
    // Prepare: the probe once answered; then the engine breaks.
    const engine = new CountingEngine();
    const cache = new CachedReportEngine(engine);
    const probe = engineCheck(async () => cache);
    await probe(new AbortController().signal);
    engine.fail = true;
    // Act, Assess
    await expect(probe(new AbortController().signal)).rejects.toThrow('engine down');
  });

  test('holds no more memory than its bound: it counts the bytes it keeps, not an estimate', () => {
    // Prepare, Act: 28 MB of results into a cache of 8 MiB, in a process of its own (see the script).
    // A tree of result objects took 2.4 times its JSON on these results, ~11 times on the explorer's.
    const maxBytes = 8 * 1024 * 1024;
    const out = execFileSync(process.execPath, [TSX, join(__dirname, 'fixtures/cache-memory.ts'), String(maxBytes)], {
      cwd: ROOT,
    }).toString();
    const { grown, heldBytes } = JSON.parse(out) as { grown: number; heldBytes: number };
    // Assess
    expect(heldBytes).toBeLessThanOrEqual(maxBytes);
    expect(heldBytes).toBeGreaterThan(maxBytes / 2);
    expect(grown).toBeLessThan(1.75 * maxBytes);
  });
});
