import { answerSourceOf, describeSource, parseServerTiming } from '../../../web/src/model/source';

describe('reading which rows answered from Server-Timing', () => {
  test('reads entries with quoted descriptions that hold commas, escapes and other parameters', () => {
    expect(
      parseServerTiming(
        'source;desc="raw", raw-reason;desc="complete only up to X, before \\"this\\" range", db;dur=12.5, cache',
      ),
    ).toEqual([
      { name: 'source', desc: 'raw' },
      { name: 'raw-reason', desc: 'complete only up to X, before "this" range' },
      { name: 'db' },
      { name: 'cache' },
    ]);
  });

  test('takes the source and the reason, and nothing when the service says no source', () => {
    expect(
      answerSourceOf('source;desc="rollup", rollup-window;desc="2024-06-01T00:00:00.000Z/2024-06-02T00:00:00.000Z"'),
    ).toEqual({ source: 'rollup' });
    expect(answerSourceOf('source;desc=raw, raw-reason;desc="percentiles do not add up per grain"')).toEqual({
      source: 'raw',
      reason: 'percentiles do not add up per grain',
    });
    expect(answerSourceOf(null)).toBeUndefined();
    expect(answerSourceOf('cdn-cache;desc=HIT')).toBeUndefined();
    expect(answerSourceOf('source;desc="somewhere"')).toBeUndefined();
  });

  test('says it in words, not by colour alone', () => {
    expect(describeSource({ source: 'rollup' }).label).toBe('Accelerated:');
    expect(describeSource({ source: 'raw', reason: 'percentiles do not add up per grain' })).toEqual({
      label: 'Not accelerated:',
      text: 'read from the documents, because percentiles do not add up per grain.',
    });
    expect(describeSource({ source: 'mixed', reason: 'r' }).label).toBe('Partly accelerated:');
  });
});
