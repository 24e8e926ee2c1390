import fc from 'fast-check';
import { parseDocument, type DocumentInput } from '#shared/report/documents';
import type { EngineResult, ReportEngine } from '#shared/report/engines/engine';
import { OpenSearchEngine } from '#shared/report/engines/opensearch/execute';
import { ensureIndexTemplates } from '#shared/report/engines/opensearch/templates';
import { indexDocuments } from '#shared/report/engines/opensearch/ingest';
import { rebuildRollups } from '#shared/report/engines/opensearch/rollup/rebuild';
import { answerReport } from '#shared/report/query-report';
import { AppError } from '#shared/errors';
import { TEST_MAX_BUCKETS } from '../../../bin/dev/opensearch-node';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The rollups' property on OpenSearch (docs/rollups.md): for random documents — some written after
 * the last rebuild (past the watermark), some again (duplicates) — and random reports, the engine
 * with rollups answers exactly the bytes the engine without answers, and serves most matched reports
 * from the rollup rows. Times cluster around the 2024 DST changes of New York and Berlin, on and
 * off the grain, over three monthly indices; ranges start and end inside grains (the raw tail).
 */
const DAY = 86_400_000;
const WINDOW_START = Date.parse('2024-03-01T00:00:00Z');
const WINDOW_DAYS = 75;
const scope = { organizationId: 'org-a' };

/** Grains many documents share (rollup rows that stand for several): days around the DST changes, on and off the hour. */
const BUSY_GRAINS = [0, 9.25, 10.5, 25.75, 30, 30.0625, 44.5, 70.25, 73.875].map((day) => WINDOW_START + day * DAY);

const timestampIn = (firstDay: number) =>
  fc
    .oneof(
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...BUSY_GRAINS.filter((g) => g >= WINDOW_START + firstDay * DAY)), fc.integer({ min: 0, max: 899_999 })).map(([g, ms]) => g + ms - WINDOW_START) },
      { weight: 1, arbitrary: fc.integer({ min: firstDay * DAY, max: WINDOW_DAYS * DAY - 1 }) },
      { weight: 1, arbitrary: fc.integer({ min: firstDay * 96, max: WINDOW_DAYS * 96 - 1 }).map((q) => q * 900_000) },
    )
    .map((offset) => new Date(WINDOW_START + offset).toISOString());

/** Movement events from day `firstDay` of the window on (late documents are mostly recent). */
const movementEvent = (firstDay = 0): fc.Arbitrary<DocumentInput<'movementEvents'>> => fc
  .record({
    organizationId: fc.constantFrom('org-a', 'org-a', 'org-a', 'org-a', 'org-b'),
    locationId: fc.constantFrom('L1', 'L1', 'L1', 'L2'),
    trackingCameraId: fc.option(fc.constantFrom('c1', 'c1', 'c1', 'c2'), { nil: undefined, freq: 8 }),
    label: fc.option(fc.constantFrom('car', 'car', 'person', 'truck'), { nil: undefined, freq: 8 }),
    timestamp: timestampIn(firstDay),
    crossedPaths: fc.array(fc.record({ id: fc.constantFrom('north', 'south'), end: fc.constantFrom('A' as const, 'B' as const) }), { maxLength: 2 }),
    // Mostly integers (sums that roll up exactly), sometimes halves (the report then reads raw).
    polygons: fc.array(fc.record({ id: fc.constantFrom('z1', 'z2'), value: fc.oneof(fc.integer({ min: -40, max: 200 }), fc.integer({ min: -40, max: 200 }).map((v) => v / 2)) }), { maxLength: 2 }),
  })
  .map((d) => Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)) as DocumentInput<'movementEvents'>);

const stats = { type: 'stats', field: 'polygons.value', min: true, max: true, avg: true, sum: true, count: true };
/** After the first stage: none, terms, crossings by line and direction, nested stats, filters, and what reads raw. */
const TAILS: readonly unknown[][] = [
  [],
  [{ type: 'terms', field: 'label' }],
  [{ type: 'terms', field: 'label', keyJoiner: '/' }, { type: 'terms', field: 'trackingCameraId' }],
  [{ type: 'nested', path: 'crossedPaths' }, { type: 'terms', field: 'crossedPaths.id' }, { type: 'terms', field: 'crossedPaths.end' }],
  [{ type: 'terms', field: 'locationId' }, { type: 'nested', path: 'polygons' }, { type: 'terms', field: 'polygons.id' }, stats],
  [{ type: 'nested', path: 'polygons' }, stats],
  [{ type: 'filters', filters: { cars: { type: 'terms', field: 'label', values: ['car'] }, l1: { type: 'terms', field: 'locationId', values: ['L1'] } } }, { type: 'nested', path: 'crossedPaths' }, { type: 'terms', field: 'crossedPaths.end' }],
  [{ type: 'nested', path: 'crossedPaths' }, { type: 'terms', field: 'crossedPaths.id' }, { type: 'reverseNested' }, { type: 'terms', field: 'label' }],
];

const report = fc
  .record({
    first: fc.oneof(
      fc.record({ interval: fc.constantFrom('15m', '10m', '20m', '90m', '3h', '1d', '7d', '1w', '1M'), timeZone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu') }).map((h) => ({ type: 'dateHistogram', ...h })),
      fc.constantFrom({ type: 'terms', field: 'label' }, { type: 'profile', unit: 'hour', timeZone: 'Europe/Berlin' }, { type: 'profile', unit: 'weekday', timeZone: 'America/New_York' }),
    ),
    tail: fc.constantFrom(...TAILS),
    // Ranges that start anywhere, or shortly before a busy grain (so that fine intervals see its documents).
    fromMinute: fc.oneof(
      fc.integer({ min: -2 * 1440, max: (WINDOW_DAYS - 2) * 1440 }),
      fc.tuple(fc.constantFrom(...BUSY_GRAINS), fc.integer({ min: 1, max: 1440 })).map(([g, before]) => (g - WINDOW_START) / 60_000 - before),
    ),
    minutes: fc.oneof(fc.integer({ min: 60, max: 360 }), fc.integer({ min: 60, max: 3 * 1440 }), fc.integer({ min: 60, max: 40 * 1440 })),
    filter: fc.constantFrom([], [{ type: 'terms', field: 'locationId', values: ['L1'] }], [{ type: 'terms', field: 'label', values: ['car', 'truck'] }]),
  })
  .map((r) => {
    const from = WINDOW_START + r.fromMinute * 60_000;
    const range = { type: 'range', field: 'timestamp', from: new Date(from).toISOString(), to: new Date(from + r.minutes * 60_000).toISOString() };
    return { source: 'movementEvents', filters: [range, ...r.filter], aggregations: [r.first, ...r.tail] };
  });

/** Which rows answered each run of the engine. */
class Recorder implements ReportEngine {
  readonly sources: (EngineResult['source'] | undefined)[] = [];
  readonly maxBuckets: number;
  constructor(private readonly engine: ReportEngine) {
    this.maxBuckets = engine.maxBuckets;
  }
  async run(...args: Parameters<ReportEngine['run']>): Promise<EngineResult> {
    const result = await this.engine.run(...args);
    this.sources.push(result.source);
    return result;
  }
}

async function answer(body: unknown, engine: ReportEngine) {
  try {
    return await answerReport(body, scope, engine, 'application/json');
  } catch (e) {
    if (e instanceof AppError && e.slug === 'too-many-buckets') return 'too-many-buckets';
    throw e;
  }
}

const parsed = (docs: readonly DocumentInput<'movementEvents'>[]) => docs.map((d) => parseDocument('movementEvents', d));

describe('rollups on OpenSearch', () => {
  const client = testClient();
  afterAll(() => client.close());

  test('answer every random report with exactly the bytes of the documents, most from the rollups', async () => {
    let fromRollups = 0;
    let reports = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(movementEvent(), { minLength: 10, maxLength: 60 }), fc.array(movementEvent(WINDOW_DAYS - 10), { maxLength: 15 }), fc.array(report, { minLength: 8, maxLength: 16 }), fc.boolean(), async (docs, late, bodies, rebuildAgain) => {
        const prefix = uniquePrefix('rollups');
        try {
          await ensureIndexTemplates(client, prefix, { replicas: 0 });
          await indexDocuments(client, 'movementEvents', parsed(docs), { indexPrefix: prefix, refresh: true });
          await rebuildRollups(client, prefix, { pageSize: 7 });
          // Late documents and duplicates (a batch sent again): past the watermark unless rebuilt again.
          const again = rebuildAgain ? docs.slice(0, 5) : late.slice(0, 3);
          await indexDocuments(client, 'movementEvents', parsed([...late, ...again]), { indexPrefix: prefix, refresh: true });
          if (rebuildAgain) await rebuildRollups(client, prefix);
          const raw = new OpenSearchEngine(client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS });
          const rollups = new Recorder(new OpenSearchEngine(client, { indexPrefix: prefix, maxBuckets: TEST_MAX_BUCKETS, rollups: true }));
          for (const body of bodies) {
            const expected = await answer(body, raw);
            const got = await answer(body, rollups);
            // The same bytes; only the path that served them (Server-Timing) may differ.
            const bytes = (a: Awaited<ReturnType<typeof answer>>) => (typeof a === 'string' ? a : { ...a, source: undefined });
            expect(bytes(got)).toEqual(bytes(expected));
            reports++;
          }
          fromRollups += rollups.sources.filter((s) => s === 'rollup').length;
        } finally {
          await deleteIndices(client, prefix);
        }
      }),
      { numRuns: Number(process.env.ROLLUP_RUNS ?? 4) },
    );
    expect(fromRollups).toBeGreaterThan(reports / 4);
  }, 600_000);
});
