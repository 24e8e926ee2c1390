import type { AggResult, EngineResult, ReportEngine, Scope } from '#shared/stores/store';
import { compileSearch } from '#shared/stores/opensearch/report/compile';
import { DEFAULT_LIMITS } from '#shared/stores/store';
import type { ReportPlan } from '#shared/report/plan/plan';
import { buildPlan } from '#shared/report/plan/build-plan';
import { matchRollup } from '#shared/rollups/match';
import {
  CAMERAS_PER_REPORT,
  countCrossings,
  CrossingCounts,
  crossingsRequest,
  occupancyOf,
} from '#shared/occupancy/crossings';
import type { CountingLine } from '#shared/locations/model';
import { cameraBuckets } from './fakes';

// biome-ignore lint/suspicious/noExplicitAny: the compiled search body, walked freely by the assertions
type Json = Record<string, any>;

const FROM = Date.parse('2024-03-31T04:00:00Z');
const TO = Date.parse('2024-03-31T10:00:00Z');
const line = (trackingCameraId: string, lineId: string, inDirection: 'A' | 'B'): CountingLine => ({
  trackingCameraId,
  lineId,
  inDirection,
});

/** filters(camera) → nested → terms(line) → terms(end), as an engine answers it. */
function result(perCamera: Record<string, Record<string, Record<string, number>>>): AggResult {
  return {
    kind: 'filters',
    buckets: Object.entries(perCamera).map(([key, lines]) => ({
      key,
      count: 1,
      sub: {
        kind: 'single',
        count: 1,
        sub: {
          kind: 'terms',
          buckets: Object.entries(lines).map(([lineId, ends]) => ({
            key: lineId,
            count: 1,
            sub: { kind: 'terms', buckets: Object.entries(ends).map(([end, count]) => ({ key: end, count })) },
          })),
        },
      },
    })),
  };
}

class RecordingEngine implements ReportEngine {
  readonly maxBuckets = 65_535;
  readonly plans: ReportPlan[] = [];
  constructor(
    private readonly answer: (plan: ReportPlan) => AggResult,
    private readonly truncated = false,
  ) {}
  async run(plan: ReportPlan, _scope: Scope): Promise<EngineResult> {
    this.plans.push(plan);
    return { root: this.answer(plan), truncated: this.truncated };
  }
}

describe('the crossings report', () => {
  test('is an ordinary report request that buildPlan accepts', () => {
    // Act
    const plan = buildPlan(crossingsRequest('berlin-mall', ['cam-1', 'cam-2'], ['door-north', 'door-south'], FROM, TO));
    // Assess
    expect(plan.source).toBe('movementEvents');
    expect(plan.locationIds).toEqual(['berlin-mall']);
    expect(plan.timeRange).toEqual({ from: FROM, to: TO });
    expect(plan.pipeline.map((n) => n.kind)).toEqual(['filters', 'nested', 'terms', 'terms']);
  });

  test('compiles to one search scoped to the organization, counting only items on the configured lines', () => {
    const plan = buildPlan(crossingsRequest('berlin-mall', ['cam-1'], ['door-north'], FROM, TO));
    const body = compileSearch(plan, { organizationId: 'org-a' }, { indexPrefix: '', limits: DEFAULT_LIMITS })
      .body as Json;
    expect(body.query.bool.filter).toEqual(
      expect.arrayContaining([
        { term: { organizationId: 'org-a' } },
        { terms: { locationId: ['berlin-mall'] } },
        { terms: { trackingCameraId: ['cam-1'] } },
        {
          nested: {
            path: 'crossedPaths',
            query: { bool: { filter: [{ terms: { 'crossedPaths.id': ['door-north'] } }] } },
          },
        },
      ]),
    );
    expect(body.aggs.s0.filters.filters).toEqual({ camera0: { terms: { trackingCameraId: ['cam-1'] } } });
    expect(body.aggs.s0.aggs.s1.aggs.s1i.filter).toEqual({
      bool: { filter: [{ terms: { 'crossedPaths.id': ['door-north'] } }] },
    });
  });
});

describe('countCrossings', () => {
  test("reads the engine's buckets back per camera, line and direction", async () => {
    // Prepare: camera0 = cam-1, camera1 = cam-2 (sorted).
    const engine = new RecordingEngine(() =>
      result({
        camera0: { 'door-north': { A: 3, B: 1 } },
        camera1: { 'door-north': { A: 5 }, 'door-south': { B: 2 } },
      }),
    );
    // Act
    const counts = await countCrossings(
      engine,
      { organizationId: 'org-a' },
      'L',
      [line('cam-2', 'door-south', 'B'), line('cam-1', 'door-north', 'A')],
      FROM,
      TO,
    );
    // Assess
    expect([
      counts.get('cam-1', 'door-north', 'A'),
      counts.get('cam-1', 'door-north', 'B'),
      counts.get('cam-2', 'door-north', 'A'),
      counts.get('cam-2', 'door-south', 'B'),
    ]).toEqual([3, 1, 5, 2]);
    expect(counts.get('cam-9', 'gate', 'A')).toBe(0);
  });

  test('splits more cameras than one filters aggregation allows into several reports', async () => {
    const engine = new RecordingEngine((plan) =>
      result(Object.fromEntries(cameraBuckets(plan).map((b) => [b.name, { gate: { A: 1 } }]))),
    );
    const lines = Array.from({ length: CAMERAS_PER_REPORT + 1 }, (_, i) =>
      line(`cam-${String(i).padStart(3, '0')}`, 'gate', 'A'),
    );
    const counts = await countCrossings(engine, { organizationId: 'o' }, 'L', lines, FROM, TO);
    expect(engine.plans).toHaveLength(2);
    expect(occupancyOf(lines, counts)).toBe(CAMERAS_PER_REPORT + 1);
  });

  test('asks nothing for an empty period', async () => {
    const engine = new RecordingEngine(() => result({}));
    await countCrossings(engine, { organizationId: 'o' }, 'L', [line('c', 'l', 'A')], TO, TO);
    expect(engine.plans).toHaveLength(0);
  });

  test('fails rather than undercount when the engine cut terms keys', async () => {
    const engine = new RecordingEngine(() => result({}), true);
    await expect(countCrossings(engine, { organizationId: 'o' }, 'L', [line('c', 'l', 'A')], FROM, TO)).rejects.toThrow(
      /truncated/,
    );
  });
});

describe('occupancyOf', () => {
  const counts = new CrossingCounts();
  counts.add('cam-1', 'door', 'A', 7);
  counts.add('cam-1', 'door', 'B', 3);
  counts.add('cam-2', 'exit', 'A', 6);

  test('is ins minus outs, each line with its own in direction', () => {
    expect(occupancyOf([line('cam-1', 'door', 'A')], counts)).toBe(4);
    expect(occupancyOf([line('cam-1', 'door', 'B')], counts)).toBe(0); // 3 − 7 → 0
    expect(occupancyOf([line('cam-1', 'door', 'A'), line('cam-2', 'exit', 'B')], counts)).toBe(0); // 4 − 6 → 0
  });

  test('never goes below zero', () => {
    expect(occupancyOf([line('cam-2', 'exit', 'B')], counts)).toBe(0);
  });
});

describe('history reads the documents, never the rollups (docs/locations-and-occupancy.md, "Not from rollups")', () => {
  const from = Date.parse('2024-03-01T00:00:00Z');
  const to = Date.parse('2024-04-01T00:00:00Z');
  const slots = (lead?: Parameters<typeof crossingsRequest>[5]) =>
    matchRollup(buildPlan(crossingsRequest('berlin-mall', ['cam-1'], ['door-north'], from, to, lead)));

  test("the history's 5-minute slots: the rollups' grain is 15 minutes, and its lines select documents by their items", () => {
    expect(slots({ type: 'dateHistogram', interval: '5m' })).toEqual({
      use: 'raw',
      reason: 'nestedFilters select documents by their items',
    });
    // Without the lines' filter, the interval alone still keeps it from the rollups.
    const plan = buildPlan({
      ...crossingsRequest('berlin-mall', ['cam-1'], ['door-north'], from, to, {
        type: 'dateHistogram',
        interval: '5m',
      }),
      nestedFilters: [],
    });
    expect(matchRollup(plan)).toEqual({ use: 'raw', reason: 'a 5m interval is not a multiple of the grain' });
  });
});
