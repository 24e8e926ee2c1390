import { createHealthHandler } from '../../../functions/health';
import { createListLocationsHandler } from '../../../functions/list-locations';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';

/**
 * Headers of every answer of the Lambda handlers (as in AWS; the local server runs the same ones):
 * `X-Content-Type-Options: nosniff` on successes and problems alike, and `Cache-Control: no-store`
 * on a report's answer, an organization's data as of the moment it was asked.
 */
const report = createQueryReportHandler({
  engine: () => ({
    maxBuckets: 65_535,
    run: async () => ({ root: { kind: 'terms', buckets: [{ key: 'car', count: 2 }] }, truncated: false }),
  }),
});
const list = createListLocationsHandler({ store: () => ({ listLocations: async () => [] }) });
const health = createHealthHandler({ checks: { engine: async () => undefined } });

describe('the headers every answer carries', () => {
  test('a report answers no-store and nosniff, as JSON and as CSV', async () => {
    const body = { source: 'movementEvents', aggregations: [{ type: 'terms', field: 'label' }] };
    const [json, csv] = await Promise.all([
      invoke(report, { body }),
      invoke(report, { body, headers: { accept: 'text/csv' } }),
    ]);
    expect([json.status, json.body, json.headers['cache-control'], json.headers['x-content-type-options']]).toEqual([
      200,
      '{"car":2}',
      'no-store',
      'nosniff',
    ]);
    expect([csv.status, csv.headers['cache-control'], csv.headers['x-content-type-options']]).toEqual([
      200,
      'no-store',
      'nosniff',
    ]);
  });

  test('a problem (400, 405), the locations and /health answer nosniff too', async () => {
    const answers = await Promise.all([
      invoke(report, { body: { aggregations: [] } }),
      invoke(report, { method: 'GET', path: '/reports:query' }),
      invoke(list, { method: 'GET', path: '/locations' }),
      invoke(health, { method: 'GET', path: '/health', org: null }),
    ]);
    expect(answers.map((a) => [a.status, a.headers['x-content-type-options']])).toEqual([
      [400, 'nosniff'],
      [405, 'nosniff'],
      [200, 'nosniff'],
      [200, 'nosniff'],
    ]);
  });
});
