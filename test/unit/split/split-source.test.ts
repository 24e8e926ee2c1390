import type { DuckDBInstance } from '@duckdb/node-api';
import { memorySliceStore } from '../../../functions/commons/split/slice-store';
import { StepFunctionsSliceExecutor } from '../../../functions/commons/split/step-functions-executor';
import { createQueryReportHandler } from '../../../functions/query-report';
import { createSliceWorker } from '../../../functions/run-report-slice';
import { invoke } from '../../../bin/dev/lambda-events';
import { parseDocument, type DocumentInput } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { rebuildRollups } from '#shared/stores/duckdb/rollups/rebuild';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { localSyncExecution, synthesizeSplit } from '../../integration/split/local-state-machine';

/**
 * The AWS path of a split report says which rows answered it: the query handler → the Step Functions
 * executor → the synthesized state machine → the slice worker (each slice's source in its compact
 * encoding, inline or through the store) → the merge → `Server-Timing`. On DuckDB with rollups (the
 * path cares only that the engine says a source). Documents: one car an hour through 1-10 March 2024.
 */
const ORG = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const H = 3_600_000;
const START = Date.parse('2024-03-01T00:00:00Z');
const car = (t: number): DocumentInput<'movementEvents'> => ({
  organizationId: ORG,
  locationId: 'L1',
  label: 'car',
  timestamp: new Date(t).toISOString(),
});
const report = (
  splitInterval?: string,
  aggregations: unknown[] = [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
) => ({
  filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-11T00:00:00Z' }],
  aggregations,
  ...(splitInterval ? { splitInterval } : {}),
});

const split = synthesizeSplit();
let db: DuckDBInstance;
let engine: DuckDbEngine;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  await ingestDocuments(
    db,
    'movementEvents',
    Array.from({ length: 240 }, (_, h) => parseDocument('movementEvents', car(START + h * H))),
  );
  await rebuildRollups(db);
  engine = new DuckDbEngine(db, { rollups: true });
});
afterAll(() => db?.closeSync());

/** The query handler with the AWS executor; `payloadBudgetBytes` small sends every slice through the store. */
function awsPath(payloadBudgetBytes?: number) {
  const store = memorySliceStore();
  const worker = createSliceWorker({ engine: () => engine, store: () => store });
  const executor = new StepFunctionsSliceExecutor(
    localSyncExecution(split, worker),
    store,
    payloadBudgetBytes ? { payloadBudgetBytes } : {},
  );
  const handler = createQueryReportHandler({ engine: () => engine, slices: () => executor });
  return { query: (body: unknown) => invoke(handler, { body }), store };
}

const timing = (r: { headers: Record<string, string> }) => r.headers['server-timing'];

test('a split report every slice of which was answered from rollups says rollup, inline and through the store', async () => {
  // Act
  const inline = await awsPath().query(report('1d'));
  const stored = awsPath(1_000);
  const byReference = await stored.query(report('1d'));
  const unsplit = await invoke(createQueryReportHandler({ engine: () => engine }), { body: report() });
  // Assess: ten daily slices, each read from its day's rollup rows: the windows join into the range.
  const all = 'source;desc="rollup", rollup-window;desc="2024-03-01T00:00:00.000Z/2024-03-11T00:00:00.000Z"';
  expect([inline.status, timing(inline)]).toEqual([200, all]);
  expect([byReference.status, timing(byReference), stored.store.objects.size]).toEqual([200, all, 10]);
  expect([timing(unsplit), inline.body]).toEqual([all, unsplit.body]);
});

test('a split report with reverseNested says raw and the matcher’s reason', async () => {
  const answer = await awsPath().query(
    report('1d', [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'reverseNested' },
    ]),
  );
  expect([answer.status, timing(answer)]).toEqual([
    200,
    'source;desc="raw", raw-reason;desc="reverseNested counts each document once per bucket its items reach"',
  ]);
});

test('a split report whose last days are after the watermark says mixed and why', async () => {
  // Prepare: a late car on 8 March at 06:20 makes its grain dirty; 9 and 10 March lie wholly after it.
  await ingestDocuments(db, 'movementEvents', [
    parseDocument('movementEvents', car(Date.parse('2024-03-08T06:20:00Z'))),
  ]);
  // Act
  const answer = await awsPath().query(report('1d'));
  // Assess
  expect([answer.status, timing(answer)]).toEqual([
    200,
    'source;desc="mixed", raw-reason;desc="the rollups are complete only up to 2024-03-08T06:15:00.000Z, before this time range"',
  ]);
});
