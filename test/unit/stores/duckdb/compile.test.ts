import type { KeySegment } from '#shared/stores/duckdb/report/sql/buckets';
import { compileReport } from '#shared/stores/duckdb/report/sql/compile';
import { compileTimeExtent } from '#shared/stores/duckdb/report/sql/compile-scope';
import type { SqlQuery } from '#shared/stores/duckdb/report/sql/sql-params';
import { buildPlan } from '#shared/report/plan/build-plan';

const scope = { organizationId: "org'); DROP TABLE movement_events; --" };
const limits = { termsCap: 7 };
const hostile = "car' OR '1'='1";
const segments: KeySegment[] = [
  { start: 1_700_000_000_000, kind: 'shift', offset: 3_600_000 },
  { start: 1_711_846_800_000, kind: 'constant', key: 1_711_839_600_000 },
  { start: 1_711_922_400_000, kind: 'shift', offset: 7_200_000 },
];

function compile(body: unknown, histogramSegments?: KeySegment[], stageByStage = false): SqlQuery {
  return compileReport(buildPlan(body), scope, {
    limits,
    stageByStage,
    ...(histogramSegments ? { histogramSegments } : {}),
  });
}

/** The stage-by-stage compilation (grouped.test.ts covers the grouped one). */
const staged = (body: unknown, histogramSegments?: KeySegment[]): SqlQuery => compile(body, histogramSegments, true);

/** Placeholders used in the SQL, e.g. [1, 2, 3] for `$1 ... $3`. */
const placeholders = (sql: string): number[] =>
  [...new Set([...sql.matchAll(/\$(\d+)::(VARCHAR|DOUBLE|BIGINT)\b/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);

describe('compileReport: parameters', () => {
  const body = {
    source: 'movementEvents',
    locationIds: ["loc'1", 'loc"2'],
    filters: [
      { type: 'terms', field: 'label', values: [hostile] },
      { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' },
    ],
    nestedFilters: [{ path: 'polygons', filters: [{ type: 'range', field: 'polygons.value', from: 1.5 }] }],
    aggregations: [
      { type: 'dateHistogram', interval: '90m', timeZone: 'Europe/Berlin' },
      { type: 'filters', filters: { "it's": { type: 'terms', field: 'trackingCameraId', values: ['cam; --'] } } },
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value' },
    ],
  };

  /** The same values in a report the grouped compilation takes (no filters aggregation). */
  const grouped = {
    ...body,
    nestedFilters: [
      ...body.nestedFilters,
      { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ["it's"] }] },
    ],
    aggregations: body.aggregations.map((a) =>
      a.type === 'filters'
        ? { type: 'filter', filter: { type: 'terms', field: 'trackingCameraId', values: ['cam; --'] } }
        : a,
    ),
  };

  test.each([
    ['stage by stage', body, false],
    ['grouped', grouped, false],
    ['grouped, forced stage by stage', grouped, true],
  ] as const)('never puts a request value into the SQL text (%s)', (_, report, stageByStage) => {
    // Act
    const { sql, params } = compile(report, segments, stageByStage);
    // Assess
    for (const value of [scope.organizationId, "loc'1", 'loc"2', hostile, 'cam; --', "it's"])
      expect(sql).not.toContain(value);
    expect(sql).not.toMatch(/1709251200000|1711929600000|5400000|3600000|1\.5/);
    expect(params).toEqual(
      expect.arrayContaining([
        { type: 'VARCHAR', value: scope.organizationId },
        { type: 'VARCHAR', value: hostile },
        { type: 'BIGINT', value: 1_709_251_200_000n },
        { type: 'BIGINT', value: 5_400_000n },
        { type: 'DOUBLE', value: 1.5 },
      ]),
    );
  });

  test('references every bound parameter, and only those', () => {
    const queries = [
      compile(body, segments),
      compile(body, [{ start: 0, kind: 'constant', key: 42 }]),
      compile(grouped, segments),
      staged(grouped, segments),
      compileTimeExtent(buildPlan(body), scope),
    ];
    for (const query of queries) {
      expect(placeholders(query.sql)).toEqual(query.params.map((_, i) => i + 1));
    }
  });
});

describe('compileReport stage by stage: one relation per stage', () => {
  test('scopes to the organization, the locations, the filters and one semi-join per nestedFilters entry', () => {
    const { sql } = staged({
      nestedFilters: [
        { path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['n'] }] },
        { path: 'polygons', filters: [{ type: 'range', field: 'polygons.value', to: 3 }] },
      ],
      aggregations: [{ type: 'terms', field: 'label' }],
    });
    expect(sql).toContain('FROM "movement_events" d WHERE d."organizationId" = $1::VARCHAR');
    expect(sql).toContain(
      'd."row_id" IN (SELECT n."event_id" FROM "movement_crossed_paths" n WHERE (n."id" IN ($2::VARCHAR)))',
    );
    expect(sql).toContain(
      'd."row_id" IN (SELECT n."event_id" FROM "movement_polygons" n WHERE (n."value" < $3::DOUBLE))',
    );
  });

  test('repeats root filters on the time inside each nestedFilters subquery (items carry their document’s time), not the others', () => {
    const { sql } = staged({
      filters: [
        { type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-02T00:00:00Z' },
        { type: 'terms', field: 'label', values: ['car'] },
      ],
      nestedFilters: [{ path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['n'] }] }],
      aggregations: [{ type: 'terms', field: 'label' }],
    });
    // $1 organization, $2 and $3 the root time range, $4 label, $5 and $6 the time range again, $7 the line.
    expect(sql).toContain(
      '(d."timestamp" >= $2::BIGINT AND d."timestamp" < $3::BIGINT) AND (d."label" IN ($4::VARCHAR))',
    );
    expect(sql).toContain(
      'd."row_id" IN (SELECT n."event_id" FROM "movement_crossed_paths" n WHERE (n."timestamp" >= $5::BIGINT AND n."timestamp" < $6::BIGINT) AND (n."id" IN ($7::VARCHAR)))',
    );
  });

  test('joins the child table for nested, keeping only items that match the nestedFilters of that path', () => {
    const { sql } = staged({
      nestedFilters: [{ path: 'crossedPaths', filters: [{ type: 'terms', field: 'crossedPaths.id', values: ['n'] }] }],
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
      ],
    });
    expect(sql).toMatch(
      /s1 AS \(SELECT c\.\*, c\.rowid AS _ord FROM s0 s JOIN "movement_crossed_paths" c ON c\."event_id" = s\."row_id" WHERE \(c\."id" IN \(\$\d+::VARCHAR\)\)\)/,
    );
  });

  test('steps back to each parent document once per bucket for reverseNested', () => {
    const { sql } = staged({
      aggregations: [
        { type: 'nested', path: 'crossedPaths' },
        { type: 'terms', field: 'crossedPaths.end' },
        { type: 'reverseNested' },
        { type: 'terms', field: 'label' },
      ],
    });
    expect(sql).toContain(
      'SELECT r.k0, d.* FROM (SELECT DISTINCT s.k0, s."event_id" FROM s2 s) r JOIN "movement_events" d ON d."row_id" = r."event_id"',
    );
  });

  test('keeps the termsCap smallest keys per parent bucket, the cap bound as a parameter', () => {
    const { sql, params } = staged({
      aggregations: [
        { type: 'terms', field: 'locationId' },
        { type: 'terms', field: 'label' },
        { type: 'terms', field: 'trackingCameraId' },
      ],
    });
    expect(sql).toContain('row_number() OVER (PARTITION BY k0 ORDER BY k1) AS rn');
    expect(sql).toMatch(/WHERE r\.rn <= \$\d+::BIGINT/);
    expect(params.filter((p) => p.value === 7n)).toHaveLength(3);
  });

  test('adds a row once per matching bucket for filters, keyed by the bucket index', () => {
    const { sql } = staged({
      aggregations: [
        {
          type: 'filters',
          filters: {
            a: { type: 'terms', field: 'label', values: ['x'] },
            b: { type: 'range', field: 'timestamp', from: '2024-01-01T00:00:00Z' },
          },
        },
      ],
    });
    expect(sql).toContain(
      's1 AS (SELECT s.*, 0 AS k0 FROM s0 s WHERE s."label" IN ($2::VARCHAR) UNION ALL SELECT s.*, 1 AS k0 FROM s0 s WHERE s."timestamp" >= $3::BIGINT)',
    );
  });

  test('sums stats per shard in document order with Kahan summation', () => {
    const { sql } = staged({ source: 'parkingEvents', aggregations: [{ type: 'stats', field: 'duration' }] });
    expect(sql).toContain(
      'count(s."duration") AS n, min(s."duration") AS mn, max(s."duration") AS mx, fsum(s."duration" ORDER BY s."row_id") AS sm, s._shard AS shard FROM s0 s GROUP BY _shard',
    );
  });

  test('computes the histogram key with a CASE over the segment starts and integer arithmetic only', () => {
    const { sql } = staged(
      {
        source: 'movementEvents',
        aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' }],
      },
      segments,
    );
    expect(sql).toMatch(
      /CASE WHEN s\."timestamp" < \$\d+::BIGINT THEN .* ELSE CASE WHEN s\."timestamp" < \$\d+::BIGINT THEN \$\d+::BIGINT ELSE/,
    );
    expect(sql).not.toMatch(/timezone|AT TIME ZONE|TIMESTAMPTZ/i);
  });
});
