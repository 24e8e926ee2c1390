import '../support/info-logs';
import type { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import type { ReportEngine } from '#shared/stores/store';
import { createQueryReportHandler } from '../../../functions/query-report';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { logger } from '#commons/powertools/logger';
import { invoke } from '../../../bin/dev/lambda-events';

/**
 * Every answer names its request: `X-Request-Id` (API Gateway's request id), the problem's
 * `requestId`, and the `correlation_id` of the log line the function writes about it, so that a
 * caller's error is found in the logs. The log lines are the Powertools logger's own (dev mode
 * prints them through the console, which the test reads).
 */
let duckDb: DuckDBInstance;
let printed: string[];
beforeAll(async () => {
  duckDb = await openDuckDb(':memory:');
});
afterAll(() => duckDb.closeSync());
beforeEach(() => {
  printed = [];
  for (const method of ['info', 'error', 'warn'] as const)
    jest.spyOn(console, method).mockImplementation((...line: unknown[]) => void printed.push(String(line[0])));
});
afterEach(() => jest.restoreAllMocks());

const logLines = () => printed.map((line) => JSON.parse(line) as Record<string, unknown>);

/** A bug: the engine reads a property of undefined. */
const buggy: ReportEngine = {
  maxBuckets: 65_535,
  run: async () => {
    const settings = undefined as unknown as { limits: { termsCap: number } };
    return { root: { kind: 'terms', buckets: [] }, truncated: settings.limits.termsCap > 0 };
  },
};

test('a 500 from a bug carries the request id in X-Request-Id, in the problem and in the error log line, and no internals', async () => {
  const response = await invoke(createQueryReportHandler({ engine: () => buggy }), {
    body: { aggregations: [{ type: 'terms', field: 'label' }] },
    requestId: 'Jq3q5j9xIAMEbAg=',
  });

  expect(response.status).toBe(500);
  expect(response.headers['x-request-id']).toBe('Jq3q5j9xIAMEbAg=');
  expect(response.json()).toEqual({
    type: '/problems#internal',
    title: 'Internal error',
    status: 500,
    detail: 'An unexpected error occurred.',
    requestId: 'Jq3q5j9xIAMEbAg=',
  });
  const failed = logLines().filter((l) => l.message === 'request failed');
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ level: 'ERROR', correlation_id: 'Jq3q5j9xIAMEbAg=', error: { name: 'TypeError' } });
});

test('a 400 carries the request id in X-Request-Id, in the problem and in the log line of the refusal', async () => {
  const engine = new DuckDbEngine(duckDb);
  const response = await invoke(createQueryReportHandler({ engine: () => engine }), {
    body: { aggregations: [] },
    requestId: 'KZ7dyhs2IAMEV0w=',
  });

  expect(response.status).toBe(400);
  expect(response.headers['x-request-id']).toBe('KZ7dyhs2IAMEV0w=');
  expect(response.json()).toMatchObject({ status: 400, requestId: 'KZ7dyhs2IAMEV0w=' });
  const refused = logLines().filter((l) => l.message === 'request refused');
  expect(refused).toHaveLength(1);
  expect(refused[0]).toMatchObject({ level: 'INFO', correlation_id: 'KZ7dyhs2IAMEV0w=', status: 400 });
});

test('every log line of a request carries its id as correlation_id, and the next request does not inherit it', async () => {
  // An engine that logs as it runs, as the engine's own code would.
  const chatty: ReportEngine = {
    maxBuckets: 65_535,
    run: async () => {
      logger.info('engine ran');
      return { root: { kind: 'terms', buckets: [] }, truncated: false };
    },
  };
  const handler = createQueryReportHandler({ engine: () => chatty });
  await invoke(handler, { body: { aggregations: [{ type: 'terms', field: 'label' }] }, requestId: 'first=' });
  logger.info('between requests');
  await invoke(handler, { body: { aggregations: [{ type: 'terms', field: 'label' }] }, requestId: 'second=' });

  expect(logLines().map((l) => [l.message, l.correlation_id])).toEqual([
    ['engine ran', 'first='],
    ['between requests', undefined],
    ['engine ran', 'second='],
  ]);
});

test('the failure line names its own request while another runs in the same process, as in the local server', async () => {
  // Both requests wait in the engine; the logger's correlation id is then the later one's (B).
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const waitsThenFails: ReportEngine = {
    maxBuckets: 65_535,
    run: async () => {
      await gate;
      throw new TypeError('a bug');
    },
  };
  const handler = createQueryReportHandler({ engine: () => waitsThenFails });
  const body = { aggregations: [{ type: 'terms', field: 'label' }] };
  const a = invoke(handler, { body, requestId: 'A=' });
  const b = invoke(handler, { body, requestId: 'B=' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  await Promise.all([a, b]);

  expect(
    logLines()
      .filter((l) => l.message === 'request failed')
      .map((l) => l.correlation_id),
  ).toEqual(['A=', 'B=']);
});

test('a successful answer carries X-Request-Id too', async () => {
  const handler = createListLocationsHandler({ store: () => ({ listLocations: async () => [] }) });
  const response = await invoke(handler, { method: 'GET', path: '/locations', requestId: 'Ab0cDefGhIJklMn=' });
  expect([response.status, response.headers['x-request-id'], response.body]).toEqual([200, 'Ab0cDefGhIJklMn=', '[]']);
});
