import { readAnswer, seriesOrder, stack } from '../../../web/src/model/answer';

describe('reading a report answer for the chart and the table', () => {
  const buckets = [
    { timestamp: '2026-11-20T00:00:00.000Z', car: 3, person: 9 },
    { timestamp: '2026-11-20T01:00:00.000Z' },
    { timestamp: '2026-11-20T02:00:00.000Z', bicycle: 1, person: 3 },
  ];

  test('lines up a time series, an absent count being 0', () => {
    expect(readAnswer(buckets, 'zero')).toEqual({
      kind: 'timeSeries',
      times: [Date.UTC(2026, 10, 20, 0), Date.UTC(2026, 10, 20, 1), Date.UTC(2026, 10, 20, 2)],
      series: [
        { name: 'bicycle', values: [0, 0, 1] },
        { name: 'car', values: [3, 0, 0] },
        { name: 'person', values: [9, 0, 3] },
      ],
    });
  });

  test('leaves a gap where a stat is absent', () => {
    const answer = readAnswer(
      [{ timestamp: '2026-11-20T00:00:00.000Z', avg: 2.5 }, { timestamp: '2026-11-20T01:00:00.000Z' }],
      'gap',
    );
    expect(answer).toEqual({
      kind: 'timeSeries',
      times: [Date.UTC(2026, 10, 20, 0), Date.UTC(2026, 10, 20, 1)],
      series: [{ name: 'avg', values: [2.5, null] }],
    });
  });

  test('reads an object of named numbers in its order, zeros kept', () => {
    expect(readAnswer({ 'z-first': 4, 'a-second': 0 }, 'zero')).toEqual({
      kind: 'namedNumbers',
      entries: [
        ['z-first', 4],
        ['a-second', 0],
      ],
    });
  });

  test('refuses anything else', () => {
    expect(() => readAnswer('car,person', 'zero')).toThrow(TypeError);
  });
});

describe('one series order from the order of each bucket', () => {
  test('keeps every bucket’s order and puts a name seen later after its predecessor', () => {
    expect(
      seriesOrder([['car', 'person'], ['car'], ['bicycle', 'person'], ['bicycle', 'car', 'person', 'truck']]),
    ).toEqual(['bicycle', 'car', 'person', 'truck']);
  });

  test('orders names no bucket puts side by side in code-unit order, as terms keys come', () => {
    expect(seriesOrder([['car', 'person'], ['truck'], ['bicycle']])).toEqual(['bicycle', 'car', 'person', 'truck']);
  });

  test('keeps an order that is not alphabetical (filters buckets come in request order)', () => {
    expect(
      seriesOrder([
        ['north', 'east'],
        ['east', 'west'],
        ['north', 'middle', 'east'],
      ]),
    ).toEqual(['north', 'middle', 'east', 'west']);
  });
});

describe('stacking series for stacked bars', () => {
  test('adds each series onto the ones before it, an absent value counting 0', () => {
    expect(
      stack([
        { name: 'a', values: [1, null, 2] },
        { name: 'b', values: [3, 4, null] },
        { name: 'c', values: [0, 1, 5] },
      ]),
    ).toEqual([
      [1, 0, 2],
      [4, 4, 2],
      [4, 5, 7],
    ]);
  });
});

describe('a comparison answer', () => {
  test('pairs become current series then “previous” ones on the current times; an unpaired earlier bucket is left out', () => {
    const body = [
      {
        current: { timestamp: '2026-03-02T00:00:00.000Z', car: 2 },
        previous: { timestamp: '2026-02-23T00:00:00.000Z', car: 1, bus: 4 },
      },
      { previous: { timestamp: '2026-02-23T01:00:00.000Z', car: 9 } },
      { current: { timestamp: '2026-03-02T01:00:00.000Z' } },
    ];
    expect(readAnswer(body, 'zero')).toEqual({
      kind: 'timeSeries',
      times: [Date.parse('2026-03-02T00:00:00.000Z'), Date.parse('2026-03-02T01:00:00.000Z')],
      series: [
        { name: 'car', values: [2, 0] },
        { name: 'bus', values: [0, 0] },
        { name: 'previous car', values: [1, null], earlier: true, pairOf: 0 },
        { name: 'previous bus', values: [4, null], earlier: true, pairOf: 1 },
      ],
    });
  });
  test('without a histogram: the current numbers, then the earlier ones', () => {
    expect(readAnswer({ current: { car: 2 }, previous: { car: 1 } }, 'zero')).toEqual({
      kind: 'namedNumbers',
      entries: [
        ['car', 2],
        ['previous car', 1],
      ],
    });
  });
});
