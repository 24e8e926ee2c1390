import { capacityAt, MAX_CAPACITY_HISTORY, nextCapacityHistory, utilization } from '#shared/locations/capacity';

describe('capacity over time', () => {
  test('appends a change only when the capacity changes, none for a group that never had one', () => {
    // Act
    const first = nextCapacityHistory(undefined, 40, '2024-05-01T00:00:00.000Z');
    const same = nextCapacityHistory(first, 40, '2024-06-01T00:00:00.000Z');
    const raised = nextCapacityHistory(same, 60, '2024-06-01T00:00:00.000Z');
    const cleared = nextCapacityHistory(raised, undefined, '2024-07-01T00:00:00.000Z');
    // Assess
    expect(nextCapacityHistory(undefined, undefined, '2024-05-01T00:00:00.000Z')).toEqual([]);
    expect(first).toEqual([{ since: '2024-05-01T00:00:00.000Z', capacity: 40 }]);
    expect(same).toEqual(first);
    expect(cleared).toEqual([
      { since: '2024-05-01T00:00:00.000Z', capacity: 40 },
      { since: '2024-06-01T00:00:00.000Z', capacity: 60 },
      { since: '2024-07-01T00:00:00.000Z', capacity: null },
    ]);
  });

  test('keeps the newest entries only', () => {
    let history = nextCapacityHistory(undefined, 1, new Date(0).toISOString());
    for (let i = 2; i <= MAX_CAPACITY_HISTORY + 5; i++)
      history = nextCapacityHistory(history, i, new Date(i).toISOString());
    expect(history).toHaveLength(MAX_CAPACITY_HISTORY);
    expect(history[0]).toEqual({ since: new Date(6).toISOString(), capacity: 6 });
  });

  test('finds the capacity in force at an instant: none before the first, the last one not after it', () => {
    const group = {
      capacity: 60,
      capacityHistory: [
        { since: '2024-05-01T00:00:00.000Z', capacity: 40 },
        { since: '2024-06-01T00:00:00.000Z', capacity: null },
        { since: '2024-06-10T00:00:00.000Z', capacity: 60 },
      ],
    };
    expect(capacityAt(group, Date.parse('2024-04-30T23:59:59.999Z'))).toBeUndefined();
    expect(capacityAt(group, Date.parse('2024-05-01T00:00:00.000Z'))).toBe(40);
    expect(capacityAt(group, Date.parse('2024-06-05T00:00:00.000Z'))).toBeUndefined();
    expect(capacityAt(group, Date.parse('2024-06-10T00:00:00.000Z'))).toBe(60);
    expect(capacityAt({ capacity: 25 }, 0)).toBe(25);
    expect(capacityAt({}, 0)).toBeUndefined();
  });

  test('divides occupancy by capacity, rounding half up to three decimals', () => {
    expect(utilization(5, 12)).toBe(0.417); // 0.41666…
    expect(utilization(1, 3)).toBe(0.333);
    expect(utilization(1, 2000)).toBe(0.001); // 0.0005: a half, up
    expect(utilization(1, 8)).toBe(0.125);
    expect(utilization(0, 10)).toBe(0);
    expect(utilization(15, 10)).toBe(1.5);
  });
});
