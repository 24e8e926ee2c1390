import type { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import type { ReportEngine } from '#shared/stores/store';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { indexDocuments } from '#shared/stores/opensearch/write';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * Sums and averages of decimals, the same on both engines and exactly the decimal: random parking
 * durations with two decimals (k / 100 s) in the first half of 2024, each run an organization of its
 * own, beside the documents of the runs before and of another organization in later months, so that
 * OpenSearch searches shards (monthly indices) where the organization has nothing, and adds their
 * empty sums too. Each report goes through the real handler on both engines; the answer must be
 * byte for byte the same, and its numbers those worked out here in integers: sum = Σk / 100 (the
 * double nearest the decimal), avg = that sum / count. Through the plain report, a `filters` stage
 * (a bucket on every shard), a quarterly histogram (buckets on the shards that have documents),
 * the same split by month (slices merged), and `compare` (two periods).
 * Before one arithmetic (shared/report/shape/series.ts, answeredSum), 0.15 + 0.3 came back as 0.45
 * from OpenSearch (whose later empty shard applied Kahan's compensation) and 0.44999999999999996
 * from DuckDB, and 0.1 + 0.2 as 0.30000000000000004 from both.
 */
const client = testClient();
const prefix = uniquePrefix('decimals');
let duckdb: DuckDBInstance;
let handlers: Record<'OpenSearch' | 'DuckDB', ReturnType<typeof createQueryReportHandler>>;

const MONTHS = 6;
const OTHER_ORG = '99999999-9999-4999-8999-999999999999';
const orgOf = (run: number) => `00000000-0000-4000-8000-${String(run).padStart(12, '0')}`;

interface Value {
  readonly k: number;
  readonly month: number;
}

/** A parking event of `org` in 2024, month `month` (0 = January), `i` hours into it. */
const event = (org: string, i: number, month: number, duration: number) => ({
  id: `pe-${org.slice(-4)}-${i}`,
  organizationId: org,
  locationId: 'loc-1',
  timestamp: new Date(Date.UTC(2024, month, 1, i)).toISOString(),
  parkingLotId: 'lot-1',
  cameraId: 'cam-1',
  spotId: 's1',
  duration,
  startingTimestamp: new Date(Date.UTC(2024, month, 1, i) - 60_000).toISOString(),
});

async function store(docs: readonly ReturnType<typeof event>[]): Promise<void> {
  const parsed = docs.map((d, i) => parseDocument('parkingEvents', d, `/${i}`));
  const indexed = await indexDocuments(client, 'parkingEvents', parsed, { indexPrefix: prefix, refresh: true });
  if (indexed.failures.length > 0) throw new Error(`OpenSearch refused: ${JSON.stringify(indexed.failures)}`);
  await ingestDocuments(duckdb, 'parkingEvents', parsed);
}

beforeAll(async () => {
  await ensureIndexTemplates(client, prefix, { replicas: 0 });
  duckdb = await openDuckDb(':memory:');
  const handlerOn = (engine: ReportEngine) => createQueryReportHandler({ engine: () => engine });
  handlers = {
    OpenSearch: handlerOn(new OpenSearchEngine(client, { indexPrefix: prefix })),
    DuckDB: handlerOn(new DuckDbEngine(duckdb)),
  };
  // Shards after the organizations' months where none of them has a document
  await store([event(OTHER_ORG, 0, 8, 1.5), event(OTHER_ORG, 1, 11, 2.25)]);
});

afterAll(async () => {
  await deleteIndices(client, prefix);
  duckdb?.closeSync();
  await client.close();
});

/** Both engines' answers to `body` as `org`: the same bytes, parsed. */
async function answer(body: unknown, org: string): Promise<unknown> {
  const [os, db] = [await invoke(handlers.OpenSearch, { body, org }), await invoke(handlers.DuckDB, { body, org })];
  expect({ status: db.status, body: db.body }).toEqual({ status: os.status, body: os.body });
  expect(os.status).toBe(200);
  return os.json();
}

/** The stats of `values` worked out in integers: the decimal sum, and the average the service derives from it. */
function expected(values: readonly Value[]): Record<string, number> {
  const k = values.reduce((s, v) => s + v.k, 0);
  if (values.length === 0) return { count: 0, sum: 0 };
  return { avg: k / 100 / values.length, count: values.length, sum: k / 100 };
}

const stats = { type: 'stats', field: 'duration', avg: true, sum: true, count: true };
const range = (from: string, to: string) => ({ type: 'range', field: 'timestamp', from, to });
const HALF = range('2024-01-01T00:00:00Z', '2024-07-01T00:00:00Z');

/** Two decimals, often the classics of binary fractions (0.1, 0.2, 0.15, 0.3, 0.7). */
const value = fc.record({
  k: fc.oneof(fc.constantFrom(10, 15, 20, 30, 70), fc.integer({ min: 0, max: 100_000 })),
  month: fc.integer({ min: 0, max: MONTHS - 1 }),
});

test('sums and averages of decimals are the decimals, alike on both engines, whole, in buckets, split and compared', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 12 }), async (values) => {
      // Prepare
      const org = orgOf(++run);
      await store(values.map((v, i) => event(org, i, v.month, v.k / 100)));
      const quarter = (q: number) => values.filter((v) => Math.floor(v.month / 3) === q);
      // A sum and a count over no values are a true 0, written in both shapes; avg has no value then.
      const inQuarter = (q: number) => ({
        timestamp: new Date(Date.UTC(2024, 3 * q, 1)).toISOString(),
        ...expected(quarter(q)),
      });
      const quarterly = {
        source: 'parkingEvents',
        filters: [HALF],
        aggregations: [{ type: 'dateHistogram', interval: '1q' }, stats],
      };
      // Act, Assess
      expect(await answer({ source: 'parkingEvents', aggregations: [stats] }, org)).toEqual(expected(values));
      expect(
        await answer(
          {
            source: 'parkingEvents',
            aggregations: [{ type: 'filters', filters: { all: { type: 'range', field: 'duration', from: 0 } } }, stats],
          },
          org,
        ),
      ).toEqual(prefixed('all', expected(values)));
      expect(await answer(quarterly, org)).toEqual([inQuarter(0), inQuarter(1)]);
      expect(await answer({ ...quarterly, splitInterval: '1M' }, org)).toEqual([inQuarter(0), inQuarter(1)]);
      expect(
        await answer(
          {
            source: 'parkingEvents',
            filters: [range('2024-04-01T00:00:00Z', '2024-07-01T00:00:00Z')],
            aggregations: [stats],
            compare: { offset: '1q' },
          },
          org,
        ),
      ).toEqual({
        current: expected(quarter(1)),
        previous: expected(quarter(0)),
      });
    }),
    // First the fuzzer's case (FUZZ_SEED=-393408234 FUZZ_PATH=77 of report-grammar.fuzz.test.ts): 0.15 and 0.3 in two
    // shards.
    {
      numRuns: 30,
      examples: [
        [
          [
            { k: 15, month: 0 },
            { k: 30, month: 1 },
          ],
        ],
      ],
      ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH } : {}),
    },
  );
}, 300_000);

function prefixed(name: string, stats: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(stats).map(([k, v]) => [`${name} ${k}`, v]));
}
