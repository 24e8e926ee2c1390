import type { Answer } from '../../../web/src/model/answer';
import { emptyReason, failureNote, withoutFuture } from '../../../web/src/model/honest';

const series: Answer = {
  kind: 'timeSeries',
  times: [0, 10, 20],
  series: [
    { name: 'a', values: [1, 0, 0] },
    { name: 'b', values: [0, 2, 0] },
  ],
};

describe('withoutFuture', () => {
  test('empties buckets starting after now and counts them; the bucket holding now stays', () => {
    expect(withoutFuture(series, 10)).toEqual({
      answer: {
        ...series,
        series: [
          { name: 'a', values: [1, 0, null] },
          { name: 'b', values: [0, 2, null] },
        ],
      },
      future: 1,
    });
    expect(withoutFuture(series, 25)).toEqual({ answer: series, future: 0 });
  });
  test('leaves named numbers alone', () => {
    const named: Answer = { kind: 'namedNumbers', entries: [['x', 0]] };
    expect(withoutFuture(named, -1)).toEqual({ answer: named, future: 0 });
  });
});

describe('emptyReason', () => {
  test('a range after now, then no values, else nothing to say', () => {
    expect(emptyReason(series, { from: 30, to: 40 }, 25)).toBe('Nothing yet: the range starts after now.');
    expect(emptyReason({ kind: 'namedNumbers', entries: [['x', 0]] }, { from: 0, to: 10 }, 25)).toMatch(/^No data/);
    expect(
      emptyReason({ kind: 'timeSeries', times: [0], series: [{ name: 'a', values: [null] }] }, { from: 0, to: 10 }, 25),
    ).toMatch(/^No data/);
    expect(emptyReason(series, { from: 0, to: 30 }, 25)).toBeUndefined();
  });
});

test('failureNote tells no access from a mistake and from no answer', () => {
  expect(failureNote(401)).toMatch(/^No access: the token/);
  expect(failureNote(404)).toMatch(/^No access: the service/);
  expect(failureNote(400)).toMatch(/^The report failed/);
  expect(failureNote(undefined)).toMatch(/could not be reached/);
});
