import { combineSources } from '#shared/report/answer-source';
import { mergeResults } from '#shared/report/split/merge';
import type { EngineResult } from '#shared/stores/store';

const H = 3_600_000;
const hist = (key: number): EngineResult['root'] => ({ kind: 'histogram', buckets: [{ key, count: 1 }] });
const rollup = (from: number, to: number) => ({ source: 'rollup', rollupWindow: { from, to } }) as const;
const raw = (rawReason: string) => ({ source: 'raw', rawReason }) as const;

describe('combineSources', () => {
  test('says rollup, with the windows joined, when every part was answered from rollups end to end', () => {
    expect(combineSources([rollup(0, H), rollup(H, 3 * H)])).toEqual({
      source: 'rollup',
      rollupWindow: { from: 0, to: 3 * H },
    });
  });

  test('says rollup without a window when the parts’ windows leave a gap (a comparison’s two periods)', () => {
    expect(combineSources([rollup(0, H), rollup(2 * H, 3 * H)])).toEqual({ source: 'rollup' });
  });

  test('says mixed, with the first raw part’s reason, when some parts read raw', () => {
    expect(combineSources([rollup(0, H), raw('past the watermark'), raw('another')])).toEqual({
      source: 'mixed',
      rawReason: 'past the watermark',
    });
  });

  test('says raw with the first reason when no part was answered from rollups', () => {
    expect(combineSources([raw('reverseNested'), raw('reverseNested')])).toEqual({
      source: 'raw',
      rawReason: 'reverseNested',
    });
  });

  test('says nothing when a part says nothing (rollups off) or there is no part', () => {
    expect(combineSources([rollup(0, H), {}])).toEqual({});
    expect(combineSources([])).toEqual({});
  });
});

describe('mergeResults', () => {
  test('carries the slices’ combined source into the merged result of a split report', () => {
    // Prepare: two hourly slices, the first from rollups, the second read raw.
    const slices: EngineResult[] = [
      { root: hist(0), truncated: false, ...rollup(0, H) },
      {
        root: hist(H),
        truncated: false,
        ...raw('the rollups are complete only up to 1970-01-01T01:00:00.000Z, before this time range'),
      },
    ];
    // Act
    const merged = mergeResults(slices);
    // Assess
    expect(merged).toMatchObject({
      source: 'mixed',
      rawReason: 'the rollups are complete only up to 1970-01-01T01:00:00.000Z, before this time range',
    });
    expect(merged.rollupWindow).toBeUndefined();
  });
});
