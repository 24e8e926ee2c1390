import type { TimeSeriesAnswer } from '../../../web/src/model/answer';
import { compareWeeks, dayWindows, soFarRequest } from '../../../web/src/model/dashboard';
import { crossingsInOut, entriesAndExits } from '../../../web/src/model/lines';
import { siteRows, sortRows } from '../../../web/src/model/overview';
import { nowNumbers, peakOf } from '../../../web/src/model/tiles';

const iso = (t: number) => new Date(t).toISOString();

describe('the days the dashboard compares', () => {
  test('are today up to now and the same day a week before up to the same wall-clock time, across a DST change', () => {
    // Sunday 2024-03-31 12:00 CEST (10:00Z), Europe's spring-forward day; the Sunday before was on CET.
    const w = dayWindows('Europe/Berlin', Date.parse('2024-03-31T10:00:00Z'));
    expect([
      w.today,
      iso(w.todayStart),
      iso(w.todayEnd),
      iso(w.lastWeekDayStart),
      iso(w.lastWeekDayEnd),
      iso(w.lastWeekUntil),
      iso(w.weekStart),
      iso(w.lastWeekStart),
    ]).toEqual([
      '2024-03-31',
      '2024-03-30T23:00:00.000Z',
      '2024-03-31T22:00:00.000Z',
      '2024-03-23T23:00:00.000Z',
      '2024-03-24T23:00:00.000Z',
      '2024-03-24T11:00:00.000Z', // 12:00 CET, not the 10:00Z of the same time since midnight
      '2024-03-24T23:00:00.000Z', // Monday the 25th
      '2024-03-17T23:00:00.000Z',
    ]);
  });

  test('are asked in one report of four counts, each a half-open range', () => {
    const w = dayWindows('Asia/Tokyo', Date.parse('2024-06-12T03:00:00Z')); // Wednesday 12:00 JST
    const request = soFarRequest('tokyo-station', w);
    expect(request.filters).toEqual([
      { type: 'range', field: 'timestamp', from: '2024-06-02T15:00:00.000Z', to: '2024-06-12T03:00:00.000Z' },
    ]);
    expect(request.aggregations).toEqual([
      {
        type: 'filters',
        filters: {
          today: {
            type: 'range',
            field: 'timestamp',
            from: '2024-06-11T15:00:00.000Z',
            to: '2024-06-12T03:00:00.000Z',
          },
          todayLastWeek: {
            type: 'range',
            field: 'timestamp',
            from: '2024-06-04T15:00:00.000Z',
            to: '2024-06-05T03:00:00.000Z',
          },
          week: { type: 'range', field: 'timestamp', from: '2024-06-09T15:00:00.000Z', to: '2024-06-12T03:00:00.000Z' },
          lastWeek: {
            type: 'range',
            field: 'timestamp',
            from: '2024-06-02T15:00:00.000Z',
            to: '2024-06-05T03:00:00.000Z',
          },
        },
      },
    ]);
  });
});

describe('this week against last week', () => {
  const days = (values: number[]): TimeSeriesAnswer => ({
    kind: 'timeSeries',
    times: values.map((_, i) => i),
    series: [{ name: 'count', values }],
  });

  test('compares today so far with last week’s same day up to the same time, never with the whole day', () => {
    // Wednesday: Monday and Tuesday whole, today 40 so far; last Wednesday 30 by now, 100 all day.
    const c = compareWeeks(
      days([10, 20, 45, 0, 0, 0, 0]),
      days([8, 25, 100, 50, 50, 50, 50]),
      3,
      { today: 40, todayLastWeek: 30, week: 70, lastWeek: 63 },
      0,
    );
    expect(c.rows.slice(0, 4).map((r) => [r.weekday, r.thisWeek, r.lastWeek, r.lastWeekWhole, r.change])).toEqual([
      ['monday', 10, 8, 8, { delta: 2, share: 0.25 }],
      ['tuesday', 20, 25, 25, { delta: -5, share: -0.2 }],
      ['wednesday', 40, 30, 100, { delta: 10, share: 10 / 30 }],
      ['thursday', null, 50, 50, null],
    ]);
    expect([c.thisWeekTotal, c.lastWeekSameTime, c.lastWeekTotal, c.total]).toEqual([
      70,
      63,
      333,
      { delta: 7, share: 7 / 63 },
    ]);
  });
});

describe('in and out from the counting lines', () => {
  const groups = [
    { id: 1, name: 'Hall', lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'B' as const }] },
    {
      id: 2,
      name: 'Deck',
      lines: [
        { trackingCameraId: 'cam-2', lineId: 'ramp', inDirection: 'A' as const },
        { trackingCameraId: 'cam-3', lineId: 'gate', inDirection: 'A' as const },
      ],
    },
  ];
  const answer: TimeSeriesAnswer = {
    kind: 'timeSeries',
    times: [0, 1],
    series: [
      { name: 'cam-1 door A', values: [3, 1] },
      { name: 'cam-1 door B', values: [5, 2] },
      { name: 'cam-2 ramp A', values: [4, null] },
      { name: 'cam-9 stray A', values: [7, 7] },
    ],
  };

  test('names each line’s directions after its area, in first, and keeps other lines as the cameras name them', () => {
    expect(crossingsInOut(answer, groups).series.map((s) => [s.name, s.values])).toEqual([
      ['Hall in', [5, 2]], // B is in at the hall's door
      ['Hall out', [3, 1]],
      ['Deck (ramp) in', [4, null]],
      ['Deck (ramp) out', [0, 0]], // no crossing that way: zeros
      ['Deck (gate) in', [0, 0]],
      ['Deck (gate) out', [0, 0]],
      ['cam-9 stray A', [7, 7]],
    ]);
  });

  test('counts entries and exits over the counting lines only', () => {
    expect(entriesAndExits(answer, groups)).toEqual({ entries: 7 + 4, exits: 4 });
  });
});

describe('the headline numbers', () => {
  test('add the people of the open areas, and take the share of capacity of the areas that have one', () => {
    const g = (occupancy: number, capacity?: number) => ({
      sensorGroup: { id: 1, name: 'x' },
      occupancy,
      ...(capacity ? { capacity } : {}),
    });
    expect(nowNumbers([g(30, 100), g(10, 300), g(5)])).toEqual({
      people: 45,
      groups: 3,
      capacity: 400,
      utilization: 40 / 400,
      partialCapacity: true,
    });
    expect(nowNumbers([g(30)])).toEqual({ people: 30, groups: 1, partialCapacity: false });
  });

  test('find today’s peak of the areas together at one 5-minute mark, the earliest when it repeats, nothing after now', () => {
    const bucket = (t: string, occupancy?: number) =>
      occupancy === undefined ? { timestamp: t } : { timestamp: t, occupancy, peak: occupancy };
    const history = {
      timeZone: 'UTC',
      interval: '5m',
      from: '',
      to: '',
      insights: {
        occupancy: [
          {
            sensorGroup: { id: 1, name: 'a' },
            buckets: [
              bucket('2024-06-01T09:00:00.000Z', 4),
              bucket('2024-06-01T09:05:00.000Z', 6),
              bucket('2024-06-01T09:10:00.000Z', 2),
              bucket('2024-06-01T09:15:00.000Z', 9),
            ],
          },
          {
            sensorGroup: { id: 2, name: 'b' },
            buckets: [
              bucket('2024-06-01T09:00:00.000Z', 5),
              bucket('2024-06-01T09:05:00.000Z'),
              bucket('2024-06-01T09:10:00.000Z', 4),
              bucket('2024-06-01T09:15:00.000Z', 9),
            ],
          },
        ],
      },
    };
    // 9 at 09:05 (4+5 at the 09:05 mark), 6 at 09:10, 6 at 09:15; the 09:15 bucket starts after now.
    expect(peakOf(history, Date.parse('2024-06-01T09:12:00Z'))).toEqual({
      people: 9,
      at: Date.parse('2024-06-01T09:05:00Z'),
    });
  });
});

describe('every site', () => {
  const location = (id: string, people: number, groups: number, today: number, lastWeek: number) => ({
    id,
    timezone: 'UTC',
    occupancy: { people, groups, sensorGroups: [] },
    today: { from: '', to: '', count: today, hourly: [] },
    lastWeek: { from: '', to: '', count: lastWeek, hourly: [] },
  });
  const rows = siteRows(
    { at: '', locations: [location('b', 5, 1, 10, 20), location('a', 0, 0, 30, 0), location('c', 9, 2, 12, 10)] },
    new Map([
      ['a', 'Zoo'],
      ['b', 'Mall'],
      ['c', 'Arena'],
    ]),
  );

  test('reads names, people (none when closed) and the change against last week (no share of nothing)', () => {
    expect(rows.map((r) => [r.id, r.name, r.people, r.change])).toEqual([
      ['b', 'Mall', 5, { delta: -10, share: -0.5 }],
      ['a', 'Zoo', undefined, { delta: 30, share: undefined }],
      ['c', 'Arena', 9, { delta: 2, share: 0.2 }],
    ]);
  });

  test('reads how full a site is, and whether some open areas have no capacity', () => {
    // Two areas of 10 and 20 with 2 and 3 people, a third without a capacity with 1: 5 of 30.
    const groups = [
      { sensorGroup: { id: 1, name: 'Hall' }, occupancy: 2, capacity: 10, utilization: 0.2 },
      { sensorGroup: { id: 2, name: 'Café' }, occupancy: 1 },
      { sensorGroup: { id: 3, name: 'Deck' }, occupancy: 3, capacity: 20, utilization: 0.15 },
    ];
    const full = (sensorGroups: typeof groups) => ({
      ...location('d', 6, sensorGroups.length, 0, 0),
      occupancy: { people: 6, groups: sensorGroups.length, capacity: 30, utilization: 0.167, sensorGroups },
    });
    const [partial, whole] = siteRows({ at: '', locations: [full(groups), full([groups[0]!, groups[2]!])] }, new Map());
    expect([partial!.utilization, partial!.capacity, partial!.partialCapacity]).toEqual([0.167, 30, true]);
    expect(whole!.partialCapacity).toBe(false);
    expect([rows[0]!.capacity, rows[0]!.partialCapacity]).toEqual([undefined, false]);
  });

  test('sorts by a column either way, a row without a value last both ways', () => {
    expect(sortRows(rows, 'name', 'ascending').map((r) => r.name)).toEqual(['Arena', 'Mall', 'Zoo']);
    expect(sortRows(rows, 'people', 'descending').map((r) => r.id)).toEqual(['c', 'b', 'a']);
    expect(sortRows(rows, 'people', 'ascending').map((r) => r.id)).toEqual(['b', 'c', 'a']);
    expect(sortRows(rows, 'change', 'descending').map((r) => r.id)).toEqual(['c', 'b', 'a']);
  });
});
