import { occupancyOf } from '#shared/occupancy/overview';

/** A location's "how full" in GET /insights/overview, from its groups' live entries (hand-computed). */
const group = (id: number, occupancy: number, capacity?: number) => ({
  sensorGroup: { id, name: `g${id}` },
  occupancy,
  ...(capacity === undefined ? {} : { capacity, utilization: 0 }),
});

describe('how full a location is now', () => {
  test('people of the groups with a capacity over their capacities together; a group without one counts in people only', () => {
    // 2 of 10 and 3 of 20 are 5 of 30 = 0.1666… → 0.167; the café's 1 person is in `people`, not in the share.
    const entries = [group(1, 2, 10), group(2, 1), group(3, 3, 20)];
    expect(occupancyOf(entries)).toEqual({
      people: 6,
      groups: 3,
      capacity: 30,
      utilization: 0.167,
      sensorGroups: entries,
    });
  });

  test('rounds half up to 3 decimals, as a group’s utilization', () => {
    // 1 of 16 = 0.0625 → 0.063; 1 of 8 = 0.125 exactly.
    expect(occupancyOf([group(1, 1, 16)]).utilization).toBe(0.063);
    expect(occupancyOf([group(1, 0, 4), group(2, 1, 4)]).utilization).toBe(0.125);
  });

  test('no capacity and no utilization when no counted group has a capacity, or none is open', () => {
    expect(occupancyOf([group(1, 4)])).toEqual({ people: 4, groups: 1, sensorGroups: [group(1, 4)] });
    expect(occupancyOf([])).toEqual({ people: 0, groups: 0, sensorGroups: [] });
  });

  test('over capacity is above 1', () => {
    expect(occupancyOf([group(1, 45, 40)]).utilization).toBe(1.125);
  });
});
