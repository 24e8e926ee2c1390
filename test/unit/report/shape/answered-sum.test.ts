import { answeredSum } from '#shared/report/shape/series';

/**
 * The one arithmetic of sums and averages (shared/report/shape/series.ts): whichever order the
 * engines added a sum of fractions in, the answer is the same 15-digit value; integers stay exact.
 */
describe('answeredSum', () => {
  test.each([
    ['0.15 + 0.3 added once', 0.15 + 0.3, 0.45],
    ['0.15 + 0.3 with the compensation applied', 0.45, 0.45],
    ['0.1 + 0.2', 0.1 + 0.2, 0.3],
    ['a third', 1 / 3, 0.333333333333333],
    ['a tiny fraction', 1.5e-20 + 1e-36, 1.5e-20],
  ])('%s, %p, is answered as %p', (_, sum, expected) => {
    expect(answeredSum(sum)).toBe(expected);
  });

  test.each([
    ['a count-like sum', 12_345_678],
    ['an integer past 15 digits', 2 ** 53 - 1],
    ['an integer past 2^53', 2 ** 60],
    ['zero', 0],
    ['an overflow', Infinity],
  ])('leaves %s as it is', (_, sum) => {
    expect(answeredSum(sum)).toBe(sum);
  });
});
