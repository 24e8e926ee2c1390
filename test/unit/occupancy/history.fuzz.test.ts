import type { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { createOccupancyHistoryHandler } from '../../../functions/occupancy-history';
import { ORG_A } from '../../integration/report/fixtures';
import { invoke } from '../../../bin/dev/lambda-events';
import { everyDay, group, location } from './fakes';

/** Random query strings, ids, identities and Accept headers: every answer is a 200 or a 4xx problem, never a 5xx. */
let duckdb: DuckDBInstance;
beforeAll(async () => {
  duckdb = await openDuckDb(':memory:');
});
afterAll(() => duckdb.closeSync());

const zones = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns'];
const isoDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const near = fc.integer({ min: -3 * 86_400_000, max: 40 * 86_400_000 });

test('GET /locations/{id}/insights/history never answers 5xx, whatever the query, id, identity and Accept', async () => {
  const engine = new DuckDbEngine(duckdb, { maxBuckets: 2000 });
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...zones),
      fc.record(
        {
          filter: fc.oneof(fc.string(), fc.constant('occupancy')),
          from: fc.oneof(fc.string(), isoDate, fc.constant('2024-03-31T00:30:00+05:45')),
          span: near,
          to: fc.oneof(fc.string(), isoDate),
          interval: fc.oneof(fc.string(), fc.constantFrom('5m', '10m', '15m', '30m', '1h', '1d')),
        },
        { requiredKeys: [] },
      ),
      fc.boolean(),
      fc.oneof(fc.constant('L1'), fc.string()),
      fc.option(fc.oneof(fc.constant(ORG_A), fc.uuid(), fc.string())),
      fc.option(
        fc.constantFrom('text/csv', 'application/json', 'application/xml', '*/*', 'text/csv;q=0.5, application/json'),
      ),
      async (zone, q, spanTo, locationId, org, accept) => {
        const store = {
          getLocationWithGroups: async (o: string, id: string) =>
            o === ORG_A && id === 'L1'
              ? {
                  location: location('L1', ORG_A, zone),
                  sensorGroups: [group(1, 'cam-1'), group(2, 'cam-2', everyDay('08:03', '02:30'))],
                }
              : undefined,
        };
        const handler = createOccupancyHistoryHandler({ store: async () => store, engine: async () => engine });
        const { span, ...rest } = q;
        const query = Object.fromEntries(Object.entries(rest).filter((e): e is [string, string] => e[1] !== undefined));
        if (spanTo && typeof q.from === 'string' && span !== undefined && !Number.isNaN(Date.parse(q.from)))
          query.to = new Date(Date.parse(q.from) + span).toISOString();
        const response = await invoke(handler, {
          method: 'GET',
          path: `/locations/${encodeURIComponent(locationId)}/insights/history`,
          pathParameters: { locationId },
          query,
          org,
          ...(accept === null ? {} : { headers: { accept } }),
        });
        expect([200, 400, 401, 404, 406]).toContain(response.status);
        if (response.status !== 200) expect(response.headers['content-type']).toBe('application/problem+json');
      },
    ),
    { numRuns: 300 },
  );
});
