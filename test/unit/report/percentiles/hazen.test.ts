import fc from 'fast-check';
import { hazenPercentile, percentilePosition } from '#shared/report/percentiles/hazen';
import { hazenReference } from '../../../fixtures/hazen-reference';

/** Percents as the language allows them: 0 to 100 with at most 2 decimals. */
const percent = fc.integer({ min: 0, max: 10_000 }).map((hundredths) => hundredths / 100);
/** Values with repeats, negatives, fractions that are not exact in binary, and far apart magnitudes. */
const value = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0.1, 0.2, 33.3, 1e-9, 1e12),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
);

describe('hazenPercentile', () => {
  test('answers what the step-by-step definition answers, from the two values at percentilePosition', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 60 }), percent, (values, p) => {
        // Prepare
        const sorted = [...values].sort((a, b) => a - b);
        const i = percentilePosition(p, sorted.length);
        // Act
        const answer = hazenPercentile(p, sorted.length, sorted[i] ?? null, sorted[i + 1] ?? null);
        // Assess: the same double (Object.is tells -0 from 0 too)
        expect(answer).toBe(hazenReference(sorted, p));
      }),
      { numRuns: 2_000 },
    );
  });

  test('has no value over no values, and one value is every percentile of itself', () => {
    expect(hazenPercentile(50, 0, null, null)).toBeNull();
    expect([0, 0.5, 50, 99.99, 100].map((p) => hazenPercentile(p, 1, 33.3, null))).toEqual([
      33.3, 33.3, 33.3, 33.3, 33.3,
    ]);
  });
});
