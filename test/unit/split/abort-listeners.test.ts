import { getEventListeners } from 'node:events';
import type { DuckDBInstance } from '@duckdb/node-api';
import { onAbort } from '#shared/abort';
import { parseDocument } from '#shared/documents/documents';
import { Deadline } from '#shared/report/deadline';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { answerReport } from '#shared/report/query-report';
import { inProcessSliceExecutor } from '#shared/report/split/run-split';

/**
 * A report's deadline and the engine's shutdown are shared by every slice running at once: they
 * must not collect a listener per slice (Node warns past 10: MaxListenersExceededWarning). Node
 * emits that warning on the real process, which a jest test cannot listen to: the test counts
 * instead what Node counts, the abort listeners a signal holds as one more is added.
 */
const ORG = '11111111-1111-4111-8111-111111111111';
const T0 = Date.parse('2024-03-01T00:00:00Z');
let db: DuckDBInstance;
/** The most abort listeners any signal held, counting the one being added. */
let most: number;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  // Two events a day (00:00 and 12:00 UTC) for 30 days.
  const docs = Array.from({ length: 60 }, (_, i) => ({
    organizationId: ORG,
    locationId: 'loc',
    timestamp: new Date(T0 + i * 12 * 3_600_000).toISOString(),
    trackingCameraId: 'cam',
    label: 'car',
  }));
  await ingestDocuments(
    db,
    'movementEvents',
    docs.map((d) => parseDocument('movementEvents', d)),
  );
});
afterAll(() => db.closeSync());
beforeEach(() => {
  most = 0;
  const add = EventTarget.prototype.addEventListener;
  jest.spyOn(EventTarget.prototype, 'addEventListener').mockImplementation(function (this: EventTarget, type, ...rest) {
    if (this instanceof AbortSignal && type === 'abort')
      most = Math.max(most, getEventListeners(this, 'abort').length + 1);
    return add.call(this, type, ...rest);
  });
});
afterEach(() => jest.restoreAllMocks());

const daily = {
  source: 'movementEvents',
  filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-31T00:00:00Z' }],
  aggregations: [{ type: 'dateHistogram', interval: '1d' }],
  splitInterval: '1d',
};
const days = Array.from({ length: 30 }, (_, i) => ({
  timestamp: new Date(T0 + i * 86_400_000).toISOString(),
  count: 2,
}));

test('30 slices running at once under one deadline add one abort listener to it, not 30', async () => {
  // Prepare
  const engine = new DuckDbEngine(db);
  // Act
  const answer = await answerReport(daily, { organizationId: ORG }, engine, 'application/json', {
    deadline: Deadline.after(60_000),
    sliceExecutor: () => inProcessSliceExecutor(engine, { concurrency: 30 }),
  });
  // Assess: one listener on the deadline and one on the engine's shutdown, not one per slice
  expect(JSON.parse(answer.body)).toEqual(days);
  expect(most).toBe(1);
});

test('12 split reports at once on one engine add one listener to its shutdown signal, not one per slice', async () => {
  const engine = new DuckDbEngine(db);
  const answers = await Promise.all(
    Array.from({ length: 12 }, () => answerReport(daily, { organizationId: ORG }, engine, 'application/json')),
  );
  expect(answers.map((a) => JSON.parse(a.body))).toEqual(Array.from({ length: 12 }, () => days));
  expect(most).toBe(1);
});

test('onAbort: one listener for any number of waiters, gone once the last forgets; each called once on abort', () => {
  // Prepare
  const controller = new AbortController();
  const calls: number[] = [];
  const forgets = Array.from({ length: 20 }, (_, i) => onAbort(controller.signal, () => calls.push(i)));
  // Act / Assess: one listener; forgetting all takes it off
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  for (const f of forgets) f();
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  // Act: two waiters, one forgets, then the abort
  onAbort(controller.signal, () => calls.push(100));
  onAbort(controller.signal, () => calls.push(101))();
  controller.abort();
  // Assess: only the one still waiting ran; a waiter after the abort runs at once
  onAbort(controller.signal, () => calls.push(102));
  expect(calls).toEqual([100, 102]);
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
});
