import type { ReportEngine } from '#shared/stores/store';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';

/**
 * Many reports at once in one process (the local server; issue 30, M7): identical ones are answered
 * once and share that answer, and at most a few different ones are worked on at a time, so that
 * eighty asked at once do not each hold an answer.
 */

/** An engine that counts its runs and the most at once, each taking `ms`. */
function countingEngine(ms = 30) {
  const seen = { runs: 0, running: 0, most: 0 };
  const engine: ReportEngine = {
    maxBuckets: 65_535,
    run: async () => {
      seen.runs++;
      seen.most = Math.max(seen.most, ++seen.running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      seen.running--;
      return { root: { kind: 'terms', buckets: [{ key: 'car', count: 2 }] }, truncated: false };
    },
  };
  return { engine, seen };
}

const byLabel = (label = 'car') => ({
  source: 'movementEvents',
  filters: [{ type: 'terms', field: 'label', values: [label] }],
  aggregations: [{ type: 'terms', field: 'label' }],
});

describe('reports asked at once', () => {
  test('twenty identical reports run once, and each asker gets the answer under its own request id', async () => {
    // Prepare
    const { engine, seen } = countingEngine();
    const handler = createQueryReportHandler({ engine: () => engine });
    // Act
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => invoke(handler, { body: byLabel(), requestId: `r-${i}` })),
    );
    // Assess
    expect(seen.runs).toBe(1);
    expect(new Set(answers.map((a) => `${a.status} ${a.body}`))).toEqual(new Set(['200 {"car":2}']));
    expect(answers.map((a) => a.headers['x-request-id'])).toEqual(Array.from({ length: 20 }, (_, i) => `r-${i}`));
  });

  test('the same report for another organization, as CSV, or asked again after the first answer runs again', async () => {
    const { engine, seen } = countingEngine();
    const handler = createQueryReportHandler({ engine: () => engine });
    await Promise.all([
      invoke(handler, { body: byLabel() }),
      invoke(handler, { body: byLabel(), org: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' }),
      invoke(handler, { body: byLabel(), headers: { accept: 'text/csv' } }),
    ]);
    await invoke(handler, { body: byLabel() });
    expect(seen.runs).toBe(4);
  });

  test('the same report of one organization under two location grants runs once per grant, each on its own scope', async () => {
    // Prepare: an engine that answers with the locations its scope allows, so that a shared answer shows.
    const scopes: (readonly string[] | undefined)[] = [];
    const engine: ReportEngine = {
      maxBuckets: 65_535,
      run: async (_plan, scope) => {
        scopes.push(scope.locationIds);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return {
          root: { kind: 'terms', buckets: (scope.locationIds ?? ['every']).map((key) => ({ key, count: 1 })) },
          truncated: false,
        };
      },
    };
    const handler = createQueryReportHandler({ engine: () => engine });
    const report = { source: 'movementEvents', aggregations: [{ type: 'terms', field: 'locationId' }] };
    // Act: at once, the same body under the grants [berlin-mall], [nyc-garage] and none (every location)
    const [berlin, nyc, every] = await Promise.all([
      invoke(handler, { body: report, locations: ['berlin-mall'] }),
      invoke(handler, { body: report, locations: ['nyc-garage'] }),
      invoke(handler, { body: report }),
    ]);
    // Assess: three runs, each caller sees only its own grant's answer
    expect(scopes).toHaveLength(3);
    expect([berlin.body, nyc.body, every.body]).toEqual(['{"berlin-mall":1}', '{"nyc-garage":1}', '{"every":1}']);
  });

  test('ten different reports are worked on four at a time, and every one is answered', async () => {
    const { engine, seen } = countingEngine();
    const handler = createQueryReportHandler({ engine: () => engine });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => invoke(handler, { body: byLabel(`label-${i}`) })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect([seen.runs, seen.most]).toEqual([10, 4]);
  });

  test('a report whose deadline passes while it waits its turn is the 503 report-timeout, without running', async () => {
    // Prepare: one place, taken for 3 s by a first report; the second has 2.5 s, of which the answer keeps 2 s.
    const { engine, seen } = countingEngine(3_000);
    const handler = createQueryReportHandler({ engine: () => engine, maxAnswersAtOnce: 1 });
    const first = invoke(handler, { body: byLabel('first') });
    // Act
    const waited = await invoke(handler, { body: byLabel('second') }, { remainingMs: 2_500 });
    // Assess
    expect([waited.status, waited.json<{ type: string }>().type, waited.headers['retry-after']]).toEqual([
      503,
      '/problems#report-timeout',
      '10',
    ]);
    expect((await first).status).toBe(200);
    expect(seen.runs).toBe(1);
  });
});
