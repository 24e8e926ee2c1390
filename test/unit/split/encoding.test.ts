import fc from 'fast-check';
import type { AggResult, EngineResult } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import type { AggNode } from '#shared/report/plan/plan';
import { compareKeys } from '#shared/report/shape/series';
import {
  decodeSlice,
  encodeSlice,
  packCounts,
  packKeys,
  unpackCounts,
  unpackKeys,
} from '#shared/report/split/encoding';

const H = 3_600_000;
const pipelineOf = (aggregations: unknown[]): readonly AggNode[] =>
  buildPlan({ source: 'movementEvents', aggregations }).pipeline;
const byLabel = pipelineOf([
  { type: 'dateHistogram', interval: '1h' },
  { type: 'terms', field: 'label' },
]);

describe('packKeys and packCounts', () => {
  test('write a fixed interval as first key, step and repeat count', () => {
    expect(packKeys([0, H, 2 * H, 3 * H])).toEqual([0, H, 3]);
    expect(unpackKeys([0, H, 3])).toEqual([0, H, 2 * H, 3 * H]);
  });

  test('write the 23-hour DST day of a Berlin daily histogram as its own run', () => {
    // Berlin days 29, 30, 31 March and 1 April 2024: 24 h, 23 h (DST), 24 h.
    const keys = [
      Date.parse('2024-03-28T23:00:00Z'),
      Date.parse('2024-03-29T23:00:00Z'),
      Date.parse('2024-03-30T23:00:00Z'),
      Date.parse('2024-03-31T22:00:00Z'),
      Date.parse('2024-04-01T22:00:00Z'),
    ];
    expect(packKeys(keys)).toEqual([keys[0], 24 * H, 2, 23 * H, 1, 24 * H, 1]);
    expect(unpackKeys(packKeys(keys))).toEqual(keys);
  });

  test('write runs of zeros as one negative number and leave trailing zeros out', () => {
    // Buckets 0..9: 3 at 0, 5 at 4, a real 0 at 5 (a filters bucket), 2 at 6, nothing after.
    expect(
      packCounts([
        [0, 3],
        [4, 5],
        [5, 0],
        [6, 2],
      ]),
    ).toEqual([3, -3, 5, -1, 2]);
    expect(unpackCounts([3, -3, 5, -1, 2], 10)).toEqual([3, 0, 0, 0, 5, 0, 2, 0, 0, 0]);
  });
});

describe('encodeSlice', () => {
  test('encodes a histogram by label as one count column per label', () => {
    // Prepare: 3 hourly buckets; car in the 1st and 3rd, person in the 2nd.
    const result: EngineResult = {
      truncated: false,
      root: {
        kind: 'histogram',
        buckets: [
          { key: 0, count: 2, sub: { kind: 'terms', buckets: [{ key: 'car', count: 2 }] } },
          { key: H, count: 1, sub: { kind: 'terms', buckets: [{ key: 'person', count: 1 }] } },
          { key: 2 * H, count: 4, sub: { kind: 'terms', buckets: [{ key: 'car', count: 4 }] } },
        ],
      },
    };
    // Act
    const encoded = encodeSlice(result);
    // Assess
    expect(encoded).toEqual({
      v: 1,
      tr: 0,
      k: [0, H, 2],
      c: [2, 1, 4],
      s: [
        { d: 1, p: ['car'], c: [2, -1, 4] },
        { d: 1, p: ['person'], c: [-1, 1] },
      ],
    });
    expect(decodeSlice(encoded, byLabel)).toEqual(result);
  });

  test('keeps stats exact and leaves min and max out where a bucket saw no value', () => {
    const pipeline = pipelineOf([
      { type: 'dateHistogram', interval: '1h' },
      { type: 'nested', path: 'polygons' },
      { type: 'stats', field: 'polygons.value', min: true },
    ]);
    const result: EngineResult = {
      truncated: true,
      root: {
        kind: 'histogram',
        buckets: [
          {
            key: 0,
            count: 1,
            sub: { kind: 'single', count: 2, sub: { kind: 'stats', count: 2, min: -1.5, max: 0.1, sum: -1.4 } },
          },
          {
            key: H,
            count: 1,
            sub: { kind: 'single', count: 0, sub: { kind: 'stats', count: 0, min: null, max: null, sum: 0 } },
          },
        ],
      },
    };
    const encoded = encodeSlice(result);
    expect(encoded.s).toEqual([
      { d: 1, p: [], c: [2] },
      { d: 2, p: [], c: [2], mn: [-1.5], mx: [0.1], sm: [-1.4] },
    ]);
    expect(decodeSlice(encoded, pipeline)).toEqual(result);
  });

  test('carries which rows answered the slice, why not rollups, and the rollup window across Step Functions', () => {
    // Prepare: one slice from rollups over its first two hours, one read raw with the matcher's reason.
    const root: EngineResult['root'] = {
      kind: 'histogram',
      buckets: [{ key: 0, count: 2, sub: { kind: 'terms', buckets: [{ key: 'car', count: 2 }] } }],
    };
    const fromRollups: EngineResult = {
      root,
      truncated: false,
      source: 'rollup',
      rollupWindow: { from: 0, to: 2 * H },
    };
    const raw: EngineResult = {
      root,
      truncated: false,
      source: 'raw',
      rawReason: 'reverseNested counts each document once per bucket its items reach',
    };
    // Act: through JSON, as a Map state's output travels.
    const travelled = (r: EngineResult) => decodeSlice(JSON.parse(JSON.stringify(encodeSlice(r))), byLabel);
    // Assess
    expect(encodeSlice(fromRollups)).toMatchObject({ src: 'rollup', win: [0, 2 * H] });
    expect(travelled(fromRollups)).toEqual(fromRollups);
    expect(travelled(raw)).toEqual(raw);
    expect(encodeSlice({ root, truncated: false })).not.toHaveProperty('src');
  });

  test('refuses a result whose root is not a histogram', () => {
    expect(() => encodeSlice({ truncated: false, root: { kind: 'single', count: 1 } })).toThrow(/histogram root/);
  });
});

/** Random results that follow a pipeline, as an engine could return them. */
function resultOf(pipeline: readonly AggNode[], d: number): fc.Arbitrary<AggResult | undefined> {
  const node = pipeline[d];
  if (!node) return fc.constant(undefined);
  const sub = resultOf(pipeline, d + 1);
  const withSub = <T extends object>(value: T, s: AggResult | undefined) => (s ? { ...value, sub: s } : value);
  switch (node.kind) {
    case 'terms':
      return fc
        .uniqueArray(
          fc.tuple(fc.constantFrom('car', 'person', 'A', 'B', 'ä', '😀', ''), fc.integer({ min: 1, max: 99 }), sub),
          { selector: (t) => t[0], maxLength: 4 },
        )
        .map((items) => ({ kind: 'terms', buckets: items.map(([key, count, s]) => withSub({ key, count }, s)) }));
    case 'filters':
      return fc
        .array(fc.tuple(fc.nat(9), sub), { minLength: node.buckets.length, maxLength: node.buckets.length })
        .map((items) => ({
          kind: 'filters',
          buckets: items.map(([count, s], i) => withSub({ key: node.buckets[i]?.name as string, count }, s)),
        }));
    case 'stats':
      return fc.oneof(
        fc.constant({ kind: 'stats', count: 0, min: null, max: null, sum: 0 } as const),
        fc
          .tuple(
            fc.integer({ min: 1, max: 9 }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
          )
          .map(
            ([count, a, b, sum]) =>
              ({ kind: 'stats', count, min: Math.min(a, b) || 0, max: Math.max(a, b) || 0, sum: sum || 0 }) as const,
          ),
      );
    case 'dateHistogram':
      throw new Error('only at the root');
    default:
      return fc.tuple(fc.nat(9), sub).map(([count, s]) => withSub({ kind: 'single', count } as const, s));
  }
}

/** Terms buckets in key order (engines may return any order; the shaper sorts them). */
function normalize(node: AggResult | undefined): AggResult | undefined {
  if (!node || node.kind === 'stats') return node;
  if (node.kind === 'single') return node.sub ? { ...node, sub: normalize(node.sub) as AggResult } : node;
  const buckets = node.buckets.map((b) => (b.sub ? { ...b, sub: normalize(b.sub) as AggResult } : b));
  if (node.kind === 'terms')
    return {
      ...node,
      buckets: [...buckets].sort((a, b) => compareKeys(a.key as string, b.key as string)),
    } as AggResult;
  return { ...node, buckets } as AggResult;
}

const PIPELINES = [
  [{ type: 'dateHistogram', interval: '1h' }],
  [
    { type: 'dateHistogram', interval: '1h' },
    { type: 'terms', field: 'label' },
    { type: 'terms', field: 'trackingCameraId' },
  ],
  [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'nested', path: 'polygons' },
    { type: 'terms', field: 'polygons.id' },
    { type: 'stats', field: 'polygons.value' },
  ],
  [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'nested', path: 'crossedPaths' },
    { type: 'terms', field: 'crossedPaths.end' },
    { type: 'reverseNested' },
    { type: 'terms', field: 'label' },
  ],
  [
    { type: 'dateHistogram', interval: '1w' },
    {
      type: 'filters',
      filters: {
        cars: { type: 'terms', field: 'label', values: ['car'] },
        rest: { type: 'terms', field: 'label', values: ['person'] },
      },
    },
    { type: 'filter', filter: { type: 'terms', field: 'locationId', values: ['L1'] } },
    { type: 'nested', path: 'polygons' },
    { type: 'stats', field: 'polygons.value' },
  ],
].map(pipelineOf);

describe('decodeSlice ∘ encodeSlice', () => {
  test('gives back any result an engine could return, for every pipeline shape', () => {
    const arbitrary = fc.constantFrom(...PIPELINES).chain((pipeline) =>
      fc
        .tuple(fc.uniqueArray(fc.integer({ min: 0, max: 1_000 }), { maxLength: 12 }), fc.boolean())
        .chain(([keys, truncated]) =>
          fc
            .tuple(
              ...[...keys]
                .sort((a, b) => a - b)
                .map((k) => fc.tuple(fc.constant(k * H), fc.nat(50), resultOf(pipeline, 1))),
            )
            .map((buckets) => ({
              pipeline,
              result: {
                truncated,
                root: {
                  kind: 'histogram',
                  buckets: buckets.map(([key, count, sub]) => (sub ? { key, count, sub } : { key, count })),
                },
              } as EngineResult,
            })),
        ),
    );
    fc.assert(
      fc.property(arbitrary, ({ pipeline, result }) => {
        const travelled = JSON.parse(JSON.stringify(encodeSlice(result)));
        expect(normalize(decodeSlice(travelled, pipeline).root)).toEqual(normalize(result.root));
        expect(decodeSlice(travelled, pipeline).truncated).toBe(result.truncated);
      }),
      { numRuns: 500 },
    );
  });
});
