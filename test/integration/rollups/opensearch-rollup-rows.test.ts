import type { Client } from '@opensearch-project/opensearch';
import { parseDocument, type DocumentInput } from '#shared/documents/documents';
import type { EngineResult } from '#shared/stores/store';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';
import { indexDocuments } from '#shared/stores/opensearch/write';
import { rollupIndexName } from '#shared/stores/opensearch/layout/rollup-indices';
import { readRollupState } from '#shared/stores/opensearch/rollups/marks';
import { rebuildRollups } from '#shared/stores/opensearch/rollups/rebuild';
import { buildPlan } from '#shared/report/plan/build-plan';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * Rollup rows on OpenSearch, with values worked out by hand: two events share a row (same grain,
 * location and label), so the row stands for two documents and its items for several items each.
 */
const scope = { organizationId: 'org-a' };
const event = (timestamp: string, extra: Partial<DocumentInput<'movementEvents'>> = {}) =>
  parseDocument('movementEvents', { organizationId: 'org-a', locationId: 'L1', label: 'car', timestamp, ...extra });

const DOCS = [
  event('2024-03-05T10:01:00Z', { crossedPaths: [{ id: 'north', end: 'A' }], polygons: [{ id: 'z1', value: 3 }] }),
  event('2024-03-05T10:02:00Z', {
    crossedPaths: [
      { id: 'north', end: 'A' },
      { id: 'south', end: 'B' },
    ],
    polygons: [
      { id: 'z1', value: 5 },
      { id: 'z2', value: 7 },
    ],
  }),
  event('2024-03-05T10:20:00Z', { label: 'person', crossedPaths: [{ id: 'north', end: 'A' }] }),
];
const DAY = { type: 'range', field: 'timestamp', from: '2024-03-04T18:30:00Z', to: '2024-03-05T18:30:00Z' };
const daily = { type: 'dateHistogram', interval: '1d', timeZone: 'Asia/Kolkata' };

describe('rollup rows on OpenSearch', () => {
  let client: Client;
  let prefix: string;
  let engine: OpenSearchEngine;
  const run = (aggregations: unknown[]): Promise<EngineResult> =>
    engine.run(buildPlan({ source: 'movementEvents', filters: [DAY], aggregations }), scope);

  beforeAll(async () => {
    client = testClient();
    prefix = uniquePrefix('rollup-rows');
    await ensureIndexTemplates(client, prefix, { replicas: 0 });
    await indexDocuments(client, 'movementEvents', DOCS, { indexPrefix: prefix, refresh: true });
    await rebuildRollups(client, prefix);
    // A state kept for minutes: the test of a write since the rebuild below proves that the write itself makes it read
    // again.
    engine = new OpenSearchEngine(client, { indexPrefix: prefix, rollups: true, rollupStateTtlMs: 600_000 });
  });
  afterAll(async () => {
    await deleteIndices(client, prefix);
    await client.close();
  });

  test('keep one row per grain and dimensions, counting the documents and items it stands for', async () => {
    const { body } = await client.search({
      index: rollupIndexName(prefix, 'movementEvents'),
      body: { query: { term: { label: 'car' } } },
    });
    const rows = (body.hits.hits as { _source: Record<string, unknown> }[]).map((h) => h._source);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      timestamp: Date.parse('2024-03-05T10:00:00Z'),
      _doc_count: 2,
      crossedPaths: [
        { id: 'north', end: 'A', start: 'B', _n: 2 },
        { id: 'south', end: 'B', start: 'A', _n: 1 },
      ],
      polygons: [
        { id: 'z1', _n: 2, value__n: 2, value__min: 3, value__max: 5, value__sum: 8, value__odd: 0 },
        { id: 'z2', _n: 1, value__n: 1, value__sum: 7 },
      ],
    });
    expect((await readRollupState(client, prefix, 'movementEvents')).watermark).toBe(Infinity);
  });

  test('answer crossings by line and direction from the rows: documents and items as the documents count them', async () => {
    const result = await run([
      daily,
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
    ]);
    // The whole range is on grains, so all of it was read from rollup rows (Server-Timing's rollup-window).
    expect(result).toMatchObject({
      source: 'rollup',
      rollupWindow: { from: Date.parse(DAY.from), to: Date.parse(DAY.to) },
    });
    expect(result.rawReason).toBeUndefined();
    const day = result.root.kind === 'histogram' ? result.root.buckets[0] : undefined;
    expect(day?.count).toBe(3);
    expect(day?.sub).toEqual({
      kind: 'single',
      count: 4,
      sub: {
        kind: 'terms',
        buckets: [
          { key: 'north', count: 3, sub: { kind: 'terms', buckets: [{ key: 'A', count: 3 }] } },
          { key: 'south', count: 1, sub: { kind: 'terms', buckets: [{ key: 'B', count: 1 }] } },
        ],
      },
    });
  });

  test('answer integer stats from the rows: count, min, max and sum over the items', async () => {
    const result = await run([
      daily,
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', count: true, min: true, max: true, sum: true },
    ]);
    expect(result.source).toBe('rollup');
    const day = result.root.kind === 'histogram' ? result.root.buckets[0] : undefined;
    expect(day?.sub).toEqual({ kind: 'single', count: 3, sub: { kind: 'stats', count: 3, min: 3, max: 7, sum: 15 } });
  });

  test('read percentiles from the documents: they do not add up per grain', async () => {
    const result = await run([
      daily,
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', count: true, median: true },
    ]);
    expect(result).toMatchObject({ source: 'raw', rawReason: 'percentiles do not add up per grain' });
    expect(result.root).toMatchObject({ buckets: [{ sub: { sub: { count: 3, percentiles: [5] } } }] });
  });

  test('answer a rollup report in one search: the rollup state is read once, not before every report', async () => {
    // A client of its own (the state is kept per client), counting the searches it sends.
    const counting = testClient();
    const searches: string[] = [];
    counting.on('request', (_error, event) => {
      const path = event?.meta.request.params.path ?? '';
      if (path.endsWith('/_search')) searches.push(path);
    });
    try {
      const reports = new OpenSearchEngine(counting, { indexPrefix: prefix, rollups: true, rollupStateTtlMs: 600_000 });
      const plan = buildPlan({
        source: 'movementEvents',
        filters: [DAY],
        aggregations: [daily, { type: 'terms', field: 'label' }],
      });
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await reports.run(plan, scope));
      // The first report reads the bookkeeping index, then the rows; the next three, the rows alone:
      // 4 reports, 5 searches (8 when the state was read before each report).
      expect(searches).toHaveLength(5);
      expect(searches[0]).toContain('rollup-dirty');
      expect(searches.slice(1).every((p) => p.includes(rollupIndexName(prefix, 'movementEvents')))).toBe(true);
      for (const answer of answers) {
        expect(answer).toMatchObject({
          source: 'rollup',
          root: {
            buckets: [
              {
                count: 3,
                sub: {
                  buckets: [
                    { key: 'car', count: 2 },
                    { key: 'person', count: 1 },
                  ],
                },
              },
            ],
          },
        });
      }
    } finally {
      await counting.close();
    }
  });

  test('read a grain written since the last rebuild raw, and a non-integer sum from the documents alone', async () => {
    await indexDocuments(
      client,
      'movementEvents',
      [event('2024-03-05T10:05:00Z', { polygons: [{ id: 'z1', value: 0.5 }] })],
      { indexPrefix: prefix, refresh: true },
    );
    expect((await readRollupState(client, prefix, 'movementEvents')).watermark).toBe(
      Date.parse('2024-03-05T10:00:00Z'),
    );
    const counts = await run([daily, { type: 'terms', field: 'label' }]);
    // Rollup rows up to the watermark, the documents after it: a partial answer, and says so.
    expect(counts).toMatchObject({
      source: 'rollup',
      rollupWindow: { from: Date.parse(DAY.from), to: Date.parse('2024-03-05T10:00:00Z') },
    });
    expect(counts.root).toMatchObject({
      buckets: [
        {
          count: 4,
          sub: {
            buckets: [
              { key: 'car', count: 3 },
              { key: 'person', count: 1 },
            ],
          },
        },
      ],
    });
    await rebuildRollups(client, prefix);
    const stats = await run([
      daily,
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', sum: true },
    ]);
    expect(stats).toMatchObject({
      source: 'raw',
      rawReason: 'a stats value to add is not an integer: only the documents give its exact sum',
    });
    expect(stats.root).toMatchObject({ buckets: [{ sub: { count: 4, sub: { count: 4, sum: 15.5 } } }] });
  });
});
