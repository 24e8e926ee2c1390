import type { DocumentInput } from '#shared/documents/documents';
import { EngineUnavailableError } from '#shared/errors';
import type { ReportEngine } from '#shared/stores/store';
import { memorySliceStore } from '../../../functions/commons/split/slice-store';
import {
  StepFunctionsSliceExecutor,
  type StartSyncExecution,
  type SyncExecution,
} from '../../../functions/commons/split/step-functions-executor';
import { createQueryReportHandler } from '../../../functions/query-report';
import type { SliceEvent, SliceOutput } from '#shared/report/split/contract';
import { createSliceWorker } from '../../../functions/run-report-slice';
import { invoke } from '../../../bin/dev/lambda-events';
import { ENGINES, type LoadedEngine } from './engines';
import { localSyncExecution, synthesizeSplit } from './local-state-machine';
import { ORG_A } from '../report/fixtures';

/**
 * The AWS path of splitInterval, run here: the query handler → StepFunctionsSliceExecutor → the
 * Express state machine exactly as the service stack synthesizes it (aws-local-stepfunctions) →
 * its Map state → the slice worker in-process → OpenSearch, and back through the compact encoding
 * (and the store, for large results) to the merge. Compared with the same report unsplit.
 *
 * Documents: 10 days of March 2024, one car every hour on the hour and one person every third
 * hour, so a daily slice of the hourly report by label is 24 buckets with 24 cars and 8 people.
 */
const H = 3_600_000;
const START = Date.parse('2024-03-01T00:00:00Z');
const docs: DocumentInput<'movementEvents'>[] = Array.from({ length: 240 }, (_, h) => [
  { organizationId: ORG_A, locationId: 'L1', label: 'car', timestamp: new Date(START + h * H).toISOString() },
  ...(h % 3 === 0
    ? [
        {
          organizationId: ORG_A,
          locationId: 'L1',
          label: 'person',
          timestamp: new Date(START + h * H + 60_000).toISOString(),
        },
      ]
    : []),
]).flat();
const report = (splitInterval?: string) => ({
  filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-11T00:00:00Z' }],
  aggregations: [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
  ],
  ...(splitInterval ? { splitInterval } : {}),
});

const split = synthesizeSplit();
const opensearch = ENGINES.find((e) => e.name === 'OpenSearch');
let loaded: LoadedEngine;

beforeAll(async () => {
  loaded = await (opensearch as NonNullable<typeof opensearch>).load(docs);
});
afterAll(() => loaded.drop());

/** The handler with the AWS executor over the local state machine; what each execution answered is kept. */
function awsPath(
  worker: (e: SliceEvent) => Promise<SliceOutput>,
  options: { payloadBudgetBytes?: number } = {},
  store = memorySliceStore(),
) {
  const executions: SyncExecution[] = [];
  const local = localSyncExecution(split, worker);
  const start: StartSyncExecution = async (input) => {
    const execution = await local(input);
    executions.push(execution);
    return execution;
  };
  const executor = new StepFunctionsSliceExecutor(start, store, options);
  const handler = createQueryReportHandler({ engine: () => loaded.engine, slices: () => executor });
  return {
    query: (body: unknown, accept = 'text/csv') => invoke(handler, { body, headers: { accept } }),
    executions,
    store,
  };
}

describe('the synthesized split state machine', () => {
  test('runs the slice worker Lambda in its Map state', () => {
    expect(split.taskResource).toBe(`${split.workerId}.Arn`);
  });

  test('answers a split report exactly as the unsplit report, one daily slice per Map item', async () => {
    // Prepare: 10 daily slices, each 24 hourly buckets, at most MaxConcurrency (cdk.json) workers at once.
    let running = 0;
    let most = 0;
    const worker = createSliceWorker({ engine: () => loaded.engine, store: () => undefined });
    const counting = async (event: SliceEvent) => {
      most = Math.max(most, ++running);
      try {
        return await worker(event);
      } finally {
        running--;
      }
    };
    const { query, executions } = awsPath(counting);
    // Act
    const splitAnswer = await query(report('1d'));
    const unsplit = await invoke(createQueryReportHandler({ engine: () => loaded.engine }), {
      body: report(),
      headers: { accept: 'text/csv' },
    });
    // Assess
    expect(splitAnswer.status).toBe(200);
    expect(splitAnswer.body).toBe(unsplit.body);
    expect(splitAnswer.body.split('\r\n').slice(0, 3)).toEqual([
      'timestamp,car,person',
      '2024-03-01T00:00:00.000Z,1,1',
      '2024-03-01T01:00:00.000Z,1,0',
    ]);
    expect(executions.map((e) => e.status)).toEqual(['SUCCEEDED']);
    expect(JSON.parse(executions[0]?.output ?? '[]')).toHaveLength(10);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(split.maxConcurrency);
  });

  test('carries results over their share of the payload budget through the store, by reference', async () => {
    // Prepare: a 1,000-byte budget gives each of 10 slices 100 bytes (raised to 200), less than a day's encoding.
    const store = memorySliceStore();
    const { query, executions } = awsPath(
      createSliceWorker({ engine: () => loaded.engine, store: () => store }),
      { payloadBudgetBytes: 1_000 },
      store,
    );
    // Act
    const response = await query(report('1d'));
    // Assess
    expect(response.status).toBe(200);
    expect(store.objects.size).toBe(10);
    const outputs = JSON.parse(executions[0]?.output ?? '[]') as SliceOutput[];
    expect(outputs.every((o) => 'stored' in o)).toBe(true);
    expect(response.body).toBe(
      (
        await invoke(createQueryReportHandler({ engine: () => loaded.engine }), {
          body: report(),
          headers: { accept: 'text/csv' },
        })
      ).body,
    );
  });

  test('fails the whole execution when one slice fails, and the query answers that slice’s 503, nothing partial', async () => {
    // Prepare: the engine refuses the slice of 4 March only.
    const failing: ReportEngine = {
      maxBuckets: 65_535,
      run: (plan, scope) =>
        plan.timeRange?.from === Date.parse('2024-03-04T00:00:00Z')
          ? Promise.reject(new EngineUnavailableError('The search engine is busy or unavailable; try again shortly.'))
          : loaded.engine.run(plan, scope),
    };
    const { query, executions } = awsPath(createSliceWorker({ engine: () => failing, store: () => undefined }));
    // Act
    const response = await query(report('1d'), 'application/json');
    // Assess
    expect(executions).toEqual([
      { status: 'FAILED', error: 'SliceError', cause: expect.stringContaining('"status":503') },
    ]);
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toMatchObject({
      status: 503,
      type: expect.stringMatching(/engine-unavailable$/),
      detail: 'The search engine is busy or unavailable; try again shortly.',
    });
  });

  test('refuses a 1 s histogram over the 10 days with 422 naming the interval, before any execution starts', async () => {
    // Prepare: 864,000 time buckets, over the 262,140 an answer may hold however it is split
    const body = {
      ...report('2h'),
      aggregations: [
        { type: 'dateHistogram', interval: '1s' },
        { type: 'terms', field: 'label' },
      ],
    };
    const { query, executions } = awsPath(createSliceWorker({ engine: () => loaded.engine, store: () => undefined }));
    // Act
    const response = await query(body, 'application/json');
    // Assess
    expect(response.status).toBe(422);
    expect(response.json()).toMatchObject({
      type: expect.stringMatching(/too-many-buckets$/),
      maxAnswerBuckets: 262_140,
      errors: [{ path: '/aggregations/0/interval' }],
    });
    expect(executions).toEqual([]);
  });

  test('fails with 422 naming the split interval when a slice is over the bucket limit', async () => {
    // Prepare: a minute histogram with a 1y split: one slice of 10 days × 1,440 = 14,400 buckets, over 2,000.
    const body = {
      ...report('1y'),
      aggregations: [
        { type: 'dateHistogram', interval: '1m' },
        { type: 'terms', field: 'label' },
      ],
    };
    const { query, executions } = awsPath(createSliceWorker({ engine: () => loaded.engine, store: () => undefined }));
    const response = await query(body, 'application/json');
    expect(executions.map((e) => [e.status, e.error])).toEqual([['FAILED', 'SliceError']]);
    expect(response.status).toBe(422);
    expect(response.json()).toMatchObject({
      type: expect.stringMatching(/too-many-buckets$/),
      splitInterval: '1y',
      maxBuckets: 2000,
    });
  });
});
