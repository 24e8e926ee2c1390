import type { DuckDBInstance } from '@duckdb/node-api';
import { parseDocument, type DocumentInput } from '#shared/documents/documents';
import { compileReport } from '#shared/stores/duckdb/report/sql/compile';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { COLLECTIONS } from '#shared/documents/fields';
import { buildPlan } from '#shared/report/plan/build-plan';
import { FIXTURE_DOCUMENTS, ORG_A } from '../../../fixtures/documents';

/**
 * The two compilations of compile.ts: grouped (the items read alone, or joined to their parent
 * when a stage before `nested` reads a root field they carry no copy of) and stage by stage. Small
 * documents whose answers are worked out by hand below, then both compilations compared over the
 * shared fixtures.
 */
const ORG = 'org-grouped';
const OTHER = 'org-other';

type Movement = DocumentInput<'movementEvents'>;
const ev = (
  timestamp: string,
  loc: string,
  label: string | undefined,
  paths: [string, 'A' | 'B'][],
  polygons: [string, number][] = [],
  org = ORG,
): Movement => ({
  organizationId: org,
  locationId: loc,
  timestamp,
  ...(label ? { label } : {}),
  ...(paths.length > 0 ? { crossedPaths: paths.map(([id, end]) => ({ id, end })) } : {}),
  ...(polygons.length > 0 ? { polygons: polygons.map(([id, value]) => ({ id, value })) } : {}),
});

/**
 * Day 1 (Mar 1): e1 L1 car n/A s/B; e2 L1 bus n/A; e3 L2 car, no lines.
 * Day 2 (Mar 2): e4 L1 no label n/B n/B; e5 L2 car s/A n/A (its first line is not n).
 * Apr 1: e7 L1 car n/A. Another organization on day 1: e6 car n/A.
 * Polygons: e1 q 0.5, r 2; e2 q 0.25; e7 q 4.
 */
const EVENTS: Movement[] = [
  ev(
    '2024-03-01T08:00:00Z',
    'L1',
    'car',
    [
      ['n', 'A'],
      ['s', 'B'],
    ],
    [
      ['q', 0.5],
      ['r', 2],
    ],
  ),
  ev('2024-03-01T09:00:00Z', 'L1', 'bus', [['n', 'A']], [['q', 0.25]]),
  ev('2024-03-01T10:00:00Z', 'L2', 'car', []),
  ev('2024-03-02T08:00:00Z', 'L1', undefined, [
    ['n', 'B'],
    ['n', 'B'],
  ]),
  ev('2024-03-02T09:00:00Z', 'L2', 'car', [
    ['s', 'A'],
    ['n', 'A'],
  ]),
  ev('2024-03-01T08:30:00Z', 'L1', 'car', [['n', 'A']], [], OTHER),
  ev('2024-04-01T00:30:00Z', 'L1', 'car', [['n', 'A']], [['q', 4]]),
];

const DAY1 = Date.UTC(2024, 2, 1);
const DAY2 = Date.UTC(2024, 2, 2);
const march = { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-03T00:00:00Z' };

let db: DuckDBInstance;
let fixtures: DuckDBInstance;

beforeAll(async () => {
  db = await openDuckDb(':memory:');
  await ingestDocuments(
    db,
    'movementEvents',
    EVENTS.map((d) => parseDocument('movementEvents', d)),
  );
  fixtures = await openDuckDb(':memory:');
  for (const c of COLLECTIONS)
    await ingestDocuments(fixtures, c, FIXTURE_DOCUMENTS[c].map((d) => parseDocument(c, d)) as never);
});
afterAll(() => {
  db.closeSync();
  fixtures.closeSync();
});

const grouped = (options = {}) => new DuckDbEngine(db, options);
const staged = (options = {}) => new DuckDbEngine(db, { ...options, stageByStage: true });
const run = (engine: DuckDbEngine, body: unknown, organizationId = ORG) =>
  engine.run(buildPlan(body), { organizationId });
const sqlOf = (body: unknown, stageByStage = false) =>
  compileReport(
    buildPlan(body),
    { organizationId: ORG },
    {
      limits: { termsCap: 10 },
      stageByStage,
      scopeNumbers: [1, 2],
      histogramSegments: [{ start: 0, kind: 'shift', offset: 0 }],
    },
  ).sql;

/** Both compilations answer `body` with `expected`, the answer worked out by hand. */
async function answersBoth(body: unknown, expected: unknown, options = {}) {
  await expect(run(grouped(options), body)).resolves.toEqual(expected);
  await expect(run(staged(options), body)).resolves.toEqual(expected);
}

const bucket = (key: string | number, count: number, sub?: unknown) => (sub ? { key, count, sub } : { key, count });
const terms = (...buckets: unknown[]) => ({ kind: 'terms', buckets });
const single = (count: number, sub?: unknown) => (sub ? { kind: 'single', count, sub } : { kind: 'single', count });

describe('daily × nested × terms line × terms direction: the items alone', () => {
  const body = {
    filters: [march],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  };
  // Day 1: 3 documents, 3 lines: n A (e1, e2), s B (e1). Day 2: 2 documents, 4 lines: n B B (e4) A (e5), s A (e5).
  const expected = {
    truncated: false,
    root: {
      kind: 'histogram',
      buckets: [
        bucket(DAY1, 3, single(3, terms(bucket('n', 2, terms(bucket('A', 2))), bucket('s', 1, terms(bucket('B', 1)))))),
        bucket(
          DAY2,
          2,
          single(
            4,
            terms(bucket('n', 3, terms(bucket('A', 1), bucket('B', 2))), bucket('s', 1, terms(bucket('A', 1)))),
          ),
        ),
      ],
    },
  };

  test('reads the child table without joining the documents', () => {
    const sql = sqlOf(body);
    expect(sql).toMatch(/FROM "movement_crossed_paths" c WHERE c."_scope" IN \(\$\d+::BIGINT, \$\d+::BIGINT\) AND/);
    expect(sql).not.toMatch(/JOIN "movement_events"/);
    // documents with lines are counted through their first line, the others from the root table
    expect(sql).toContain('count_if(c."_item" = 0) AS np');
    expect(sql).toContain('d."_crossedPaths" = 0');
  });

  test('answers as worked out by hand, grouped and stage by stage', async () => {
    await answersBoth(body, expected);
  });
});

describe('daily × terms label × nested × terms direction: the items joined to their documents', () => {
  const body = {
    filters: [march],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  };
  // Day 1: bus e2 (A); car e1 (A, B) and e3 (no lines). Day 2: car e5 (A, A); e4 has no label.
  const expected = {
    truncated: false,
    root: {
      kind: 'histogram',
      buckets: [
        bucket(
          DAY1,
          3,
          terms(
            bucket('bus', 1, single(1, terms(bucket('A', 1)))),
            bucket('car', 2, single(2, terms(bucket('A', 1), bucket('B', 1)))),
          ),
        ),
        bucket(DAY2, 2, terms(bucket('car', 1, single(2, terms(bucket('A', 2)))))),
      ],
    },
  };

  test('joins the documents, as the child table carries no copy of label', () => {
    expect(sqlOf(body)).toContain(
      'FROM "movement_crossed_paths" c JOIN "movement_events" d ON d."row_id" = c."event_id"',
    );
  });

  test('answers as worked out by hand, grouped and stage by stage', async () => {
    await answersBoth(body, expected);
  });
});

describe('nestedFilters and a filter before nested', () => {
  const body = {
    filters: [march],
    nestedFilters: [{ path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['n'] }] }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'filter', filter: { type: 'terms', field: 'locationId', values: ['L1'] } },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  };
  // Documents with a line n: e1, e2 (day 1), e4, e5 (day 2; e5's first line is s). In L1: e1, e2; e4.
  // Their lines n only: A A; B B.
  const expected = {
    truncated: false,
    root: {
      kind: 'histogram',
      buckets: [
        bucket(DAY1, 2, single(2, single(2, terms(bucket('A', 2))))),
        bucket(DAY2, 2, single(1, single(2, terms(bucket('B', 2))))),
      ],
    },
  };

  test('answers as worked out by hand, grouped and stage by stage', async () => {
    await answersBoth(body, expected);
  });
});

describe('nested stats over two shards, terms cut at termsCap', () => {
  const body = {
    aggregations: [
      { type: 'nested', path: 'polygons' },
      { type: 'terms', field: 'polygons.id' },
      { type: 'stats', field: 'polygons.value', sum: true, min: true, max: true, count: true },
    ],
  };
  // q: 0.5, 0.25 (March), 4 (April); r: 2. termsCap 1 keeps q.
  const expected = {
    truncated: true,
    root: single(4, terms(bucket('q', 3, { kind: 'stats', count: 3, min: 0.25, max: 4, sum: 4.75 }))),
  };

  test('answers as worked out by hand, grouped and stage by stage', async () => {
    await answersBoth(body, expected, { limits: { termsCap: 1 } });
  });
});

describe('filters stages, grouped: one row per group and bucket, not per document and bucket', () => {
  const filters = (buckets: Record<string, unknown>) => ({ type: 'filters', filters: buckets });
  const loc = (...values: string[]) => ({ type: 'terms', field: 'locationId', values });
  const body = {
    filters: [march],
    aggregations: [
      filters({ L1: loc('L1'), cars: { type: 'terms', field: 'label', values: ['car'] }, all: loc('L1', 'L2') }),
      filters({
        early: { type: 'range', field: 'timestamp', to: '2024-03-01T09:30:00Z' },
        late: { type: 'range', field: 'timestamp', from: '2024-03-01T09:30:00Z' },
      }),
      { type: 'terms', field: 'label' },
    ],
  };
  // L1: e1 e2 e4 (early: e1 car, e2 bus; late: e4, no label). cars: e1 e3 e5 (early e1; late e3 e5).
  // all: e1 to e5 (early: e1 car, e2 bus; late: e3 car, e4, e5 car).
  const keyed = (...buckets: unknown[]) => ({ kind: 'filters', buckets });
  const expected = {
    truncated: false,
    root: keyed(
      bucket('L1', 3, keyed(bucket('early', 2, terms(bucket('bus', 1), bucket('car', 1))), bucket('late', 1, terms()))),
      bucket('cars', 3, keyed(bucket('early', 1, terms(bucket('car', 1))), bucket('late', 2, terms(bucket('car', 2))))),
      bucket(
        'all',
        5,
        keyed(
          bucket('early', 2, terms(bucket('bus', 1), bucket('car', 1))),
          bucket('late', 3, terms(bucket('car', 2))),
        ),
      ),
    ),
  };

  test('groups the documents by the values the conditions read, then the groups by their buckets, then unnests the groups', () => {
    const sql = sqlOf(body);
    // the documents by location, label and a bit mask of the time ranges; each condition once per group
    expect(sql).toMatch(
      /^WITH a_1 AS \(SELECT d."locationId" AS v0, d."label" AS v1, \(CASE WHEN d."timestamp" < \$\d+::BIGINT THEN 1::BIGINT/,
    );
    expect(sql).toMatch(/a AS \(SELECT list_filter\(\[CASE WHEN v0 IN \(\$\d+::VARCHAR\) THEN 0 END, CASE WHEN v1 IN/);
    expect(sql).toContain('SELECT * REPLACE (unnest(k1) AS k1)');
    expect(sql).not.toBe(sqlOf(body, true));
  });

  test('answers as worked out by hand, grouped and stage by stage', async () => {
    await answersBoth(body, expected);
  });

  test('sums stats under filters over the items themselves, in item order', async () => {
    const stats = {
      filters: [march],
      aggregations: [
        { type: 'nested', path: 'polygons' },
        filters({
          small: { type: 'range', field: 'polygons.value', to: 1 },
          all: { type: 'range', field: 'polygons.value', from: 0 },
        }),
        { type: 'stats', field: 'polygons.value', min: true, max: true, sum: true, count: true },
      ],
    };
    // In March: e1 q 0.5, r 2; e2 q 0.25. small: 0.5, 0.25; all: 0.5, 2, 0.25.
    const result = {
      truncated: false,
      root: single(
        3,
        keyed(
          bucket('small', 2, { kind: 'stats', count: 2, min: 0.25, max: 0.5, sum: 0.75 }),
          bucket('all', 3, { kind: 'stats', count: 3, min: 0.25, max: 2, sum: 2.75 }),
        ),
      ),
    };
    expect(sqlOf(stats)).toContain('fsum(_x ORDER BY _ord)');
    await answersBoth(stats, result);
  });
});

describe('reverseNested, grouped: each document once per bucket its items reach', () => {
  const filters = (buckets: Record<string, unknown>) => ({ type: 'filters', filters: buckets });
  const keyed = (...buckets: unknown[]) => ({ kind: 'filters', buckets });
  const line = (...values: string[]) => ({ type: 'terms', field: 'crossedPaths.id', values });

  test('filters on the items, then back to the documents: e4 (two n B lines) and e5 (s A, n A) count once', async () => {
    const body = {
      filters: [march],
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        filters({ n: line('n'), A: { type: 'terms', field: 'crossedPaths.end', values: ['A'] }, any: line('n', 's') }),
        { type: 'reverseNested' },
        { type: 'terms', field: 'label' },
      ],
    };
    // Lines: e1 n A, s B; e2 n A; e4 n B, n B; e5 s A, n A (7). n: 5 lines of e1 e2 e4 e5; A: 4 lines of
    // e1 e2 e5; any: all 7, of e1 e2 e4 e5. Labels: e1 car, e2 bus, e4 none, e5 car.
    const expected = {
      truncated: false,
      root: single(
        7,
        keyed(
          bucket('n', 5, single(4, terms(bucket('bus', 1), bucket('car', 2)))),
          bucket('A', 4, single(3, terms(bucket('bus', 1), bucket('car', 2)))),
          bucket('any', 7, single(4, terms(bucket('bus', 1), bucket('car', 2)))),
        ),
      ),
    };
    expect(sqlOf(body)).toContain('bc_1 AS (SELECT');
    await answersBoth(body, expected);
  });

  test('filters on the documents before nested: documents without lines (e3) count in the first stage only', async () => {
    const body = {
      filters: [march],
      aggregations: [
        filters({
          L1: { type: 'terms', field: 'locationId', values: ['L1'] },
          all: { type: 'terms', field: 'locationId', values: ['L1', 'L2'] },
        }),
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'reverseNested' },
        { type: 'terms', field: 'label' },
      ],
    };
    // L1: e1 e2 e4, lines A: e1 e2 (bus, car); B: e1 s B, e4 n B n B (car; e4 has no label).
    // all: e1 to e5, 7 lines; A: e1 e2 e5 (4 lines: bus, car 2); B as L1.
    const expected = {
      truncated: false,
      root: keyed(
        bucket(
          'L1',
          3,
          single(
            5,
            terms(
              bucket('A', 2, single(2, terms(bucket('bus', 1), bucket('car', 1)))),
              bucket('B', 3, single(2, terms(bucket('car', 1)))),
            ),
          ),
        ),
        bucket(
          'all',
          5,
          single(
            7,
            terms(
              bucket('A', 4, single(3, terms(bucket('bus', 1), bucket('car', 2)))),
              bucket('B', 3, single(2, terms(bucket('car', 1)))),
            ),
          ),
        ),
      ),
    };
    await answersBoth(body, expected);
  });

  test('with nestedFilters, only the matching lines lead back to their documents', async () => {
    const body = {
      filters: [march],
      nestedFilters: [{ path: 'crossedPaths', filters: [line('s')] }],
      aggregations: [
        filters({
          L1: { type: 'terms', field: 'locationId', values: ['L1'] },
          L2: { type: 'terms', field: 'locationId', values: ['L2'] },
        }),
        { type: 'nested', path: 'crossedPaths' },
        { type: 'reverseNested' },
        { type: 'terms', field: 'label' },
      ],
    };
    // Documents with a line s: e1 (L1, car, s B) and e5 (L2, car, s A); only their s lines are counted.
    const expected = {
      truncated: false,
      root: keyed(
        bucket('L1', 1, single(1, single(1, terms(bucket('car', 1))))),
        bucket('L2', 1, single(1, single(1, terms(bucket('car', 1))))),
      ),
    };
    await answersBoth(body, expected);
  });

  test('reverseNested counts each document once per bucket, as worked out by hand', async () => {
    const body = {
      filters: [march],
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'reverseNested' },
        { type: 'terms', field: 'label' },
      ],
    };
    // n: lines of e1, e2, e4 (twice), e5 → documents e1 car, e2 bus, e4 (no label), e5 car; s: e1 car, e5 car.
    const expected = {
      truncated: false,
      root: single(
        7,
        terms(
          bucket('n', 5, single(4, terms(bucket('bus', 1), bucket('car', 2)))),
          bucket('s', 2, single(2, terms(bucket('car', 2)))),
        ),
      ),
    };
    await answersBoth(body, expected);
  });

  test('reads the items alone when the stages on the documents need only what the items carry', () => {
    const body = {
      filters: [march],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'reverseNested' },
      ],
    };
    const sql = sqlOf(body);
    expect(sql).not.toMatch(/JOIN "movement_events"/);
    // documents with several lines are those with a second line: only they keep their id
    expect(sql).toContain(
      'CASE WHEN c."event_id" IN (SELECT "event_id" FROM "movement_crossed_paths" WHERE "_item" = 1) THEN c."event_id" END AS _doc',
    );
  });

  test('a second nested stage after reverseNested is compiled stage by stage', () => {
    const body = {
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'reverseNested' },
        { type: 'nested', path: 'polygons' },
        { type: 'terms', field: 'polygons.id' },
      ],
    };
    expect(sqlOf(body)).toBe(sqlOf(body, true));
  });
});

describe('both compilations agree over the shared fixtures', () => {
  const berlin = { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' };
  const bodies: Record<string, unknown> = {
    'daily × nested × line × direction': {
      aggregations: [
        berlin,
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'terms', field: 'crossedPaths.end' },
      ],
    },
    'daily × label × nested × direction': {
      aggregations: [
        berlin,
        { type: 'terms', field: 'label' },
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
      ],
    },
    'location × camera × label': {
      aggregations: [
        { type: 'terms', field: 'locationId' },
        { type: 'terms', field: 'trackingCameraId' },
        { type: 'terms', field: 'label' },
      ],
    },
    'weekly × filter × nested polygons × stats': {
      aggregations: [
        { type: 'dateHistogram', interval: '1w', timeZone: 'America/New_York' },
        { type: 'filter', filter: { type: 'terms', field: 'label', values: ['car', 'person'] } },
        { type: 'nested', path: 'polygons' },
        { type: 'filter', filter: { type: 'range', field: 'polygons.value', from: 1 } },
        { type: 'stats', field: 'polygons.value', sum: true, avg: true, min: true, max: true, count: true },
      ],
    },
    'nestedFilters × location × nested × direction': {
      nestedFilters: [{ path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.end', values: ['A'] }] }],
      aggregations: [
        { type: 'terms', field: 'locationId' },
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
      ],
    },
    'parking: monthly × lot × stats duration': {
      source: 'parkingEvents',
      aggregations: [
        { type: 'dateHistogram', interval: '1M' },
        { type: 'terms', field: 'parkingLotId' },
        { type: 'stats', field: 'duration', sum: true, avg: true, count: true },
      ],
    },
    'stats alone': {
      source: 'parkingLotStats',
      aggregations: [{ type: 'stats', field: 'occupied', sum: true, min: true, max: true }],
    },
    'overlapping filters × filters × label': {
      aggregations: [
        {
          type: 'filters',
          filters: {
            berlin: { type: 'terms', field: 'locationId', values: ['loc-berlin'] },
            cars: { type: 'terms', field: 'label', values: ['car'] },
            both: { type: 'terms', field: 'locationId', values: ['loc-berlin', 'loc-nyc'] },
          },
        },
        {
          type: 'filters',
          filters: {
            spring: { type: 'range', field: 'timestamp', to: '2024-04-01T00:00:00Z' },
            rest: { type: 'range', field: 'timestamp', from: '2024-03-31T00:00:00Z' },
          },
        },
        { type: 'terms', field: 'label' },
      ],
    },
    'Berlin daily × nestedFilters × filters on lines × reverseNested × camera': {
      nestedFilters: [{ path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.end', values: ['A'] }] }],
      aggregations: [
        berlin,
        { type: 'nested', path: 'crossedPaths' },
        {
          type: 'filters',
          filters: {
            north: { type: 'terms', field: 'crossedPaths.id', values: ['line-north'] },
            any: { type: 'terms', field: 'crossedPaths.end', values: ['A', 'B'] },
          },
        },
        { type: 'reverseNested' },
        { type: 'terms', field: 'trackingCameraId' },
      ],
    },
    'label × nested polygons × filters × stats': {
      aggregations: [
        { type: 'terms', field: 'label' },
        { type: 'nested', path: 'polygons' },
        {
          type: 'filters',
          filters: {
            small: { type: 'range', field: 'polygons.value', to: 1 },
            large: { type: 'range', field: 'polygons.value', from: 1 },
            all: { type: 'range', field: 'polygons.value', from: 0 },
          },
        },
        { type: 'stats', field: 'polygons.value', sum: true, avg: true, min: true, max: true, count: true },
      ],
    },
    'Berlin daily × nested × line × reverseNested (the items alone)': {
      aggregations: [
        berlin,
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.id' },
        { type: 'reverseNested' },
      ],
    },
    'filters × nested × direction × reverseNested × filter × label': {
      aggregations: [
        {
          type: 'filters',
          filters: {
            berlin: { type: 'terms', field: 'locationId', values: ['loc-berlin'] },
            all: { type: 'terms', field: 'locationId', values: ['loc-berlin', 'loc-nyc'] },
          },
        },
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'reverseNested' },
        { type: 'filter', filter: { type: 'range', field: 'timestamp', from: '2024-03-30T00:00:00Z' } },
        { type: 'terms', field: 'label' },
      ],
    },
  };

  test.each(Object.keys(bodies))('%s', async (name) => {
    const plan = buildPlan(bodies[name]);
    for (const termsCap of [1000, 1]) {
      const limits = { termsCap };
      const a = await new DuckDbEngine(fixtures, { limits }).run(plan, { organizationId: ORG_A });
      const b = await new DuckDbEngine(fixtures, { limits, stageByStage: true }).run(plan, { organizationId: ORG_A });
      expect(a).toEqual(b);
      expect(JSON.stringify(a.root)).toMatch(/"count":[1-9]/);
    }
  });
});
