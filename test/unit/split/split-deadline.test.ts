import { ReportTimeoutError, TooManyBucketsError } from '#shared/errors';
import { Deadline } from '#shared/report/deadline';
import type { Scope } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { runSplit, type SliceExecutor } from '#shared/report/split/run-split';

/**
 * Once a split report's deadline has passed, the slices it stopped may fail in any way their engine
 * stops (an interrupted query, a closed connection): the report answers the deadline's 503, as an
 * unsplit one does, never a 500 - and never hides a client's 4xx.
 */
const scope: Scope = { organizationId: 'org-a' };
const report = (splitInterval: string) =>
  buildPlan({
    source: 'movementEvents',
    filters: [{ type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z', to: '2024-01-03T00:00:00Z' }],
    aggregations: [{ type: 'dateHistogram', interval: '1h' }],
    splitInterval,
  });

/** Slices that fail with `error` once the deadline has passed. */
const failingAfter = (deadline: Deadline, error: () => unknown): SliceExecutor => ({
  runSlices: async () => {
    while (!deadline.expired) await new Promise((resolve) => setTimeout(resolve, 5));
    throw error();
  },
});

test.each(['auto', '1d'])(
  'a slice stopped by the deadline in its own way is the deadline 503 (splitInterval %s)',
  async (splitInterval) => {
    const deadline = Deadline.after(30);
    const error = await runSplit(
      report(splitInterval),
      scope,
      failingAfter(deadline, () => new Error('INTERRUPT Error: Interrupted!')),
      { deadline },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportTimeoutError);
  },
);

test('a client error stands after the deadline', async () => {
  const deadline = Deadline.after(30);
  const error = await runSplit(
    report('1d'),
    scope,
    failingAfter(deadline, () => new TooManyBucketsError(10)),
    { deadline },
  ).catch((e: unknown) => e);
  expect(error).toMatchObject({ status: 422 });
});
