import { NotFoundError, ValidationError, type FieldError } from '#shared/errors';
import { liveInsights, maxAgeSeconds, parseInsightKinds } from '#shared/occupancy/live-insights';
import { everyDay, group, location, MemoryStore } from './fakes';

function errorsOf(filter: string | undefined): FieldError[] {
  try {
    parseInsightKinds(filter);
  } catch (e) {
    if (e instanceof ValidationError) return [...e.errors];
    throw e;
  }
  throw new Error('expected a 400');
}

describe('parseInsightKinds', () => {
  test('accepts occupancy with whitespace, empty items and repetitions', () => {
    expect(parseInsightKinds('occupancy')).toEqual(['occupancy']);
    expect(parseInsightKinds(' occupancy , occupancy,, ')).toEqual(['occupancy']);
  });

  test('is a 400 naming the query parameter when filter is missing or empty', () => {
    expect(errorsOf(undefined)).toEqual([
      { path: '/query/filter', message: 'is required (comma-separated insight kinds; allowed: occupancy, health)' },
    ]);
    expect(errorsOf(' , ')).toEqual([
      { path: '/query/filter', message: 'must name at least one insight kind; allowed: occupancy, health' },
    ]);
  });

  test('is a 400 listing every unknown kind, even next to occupancy', () => {
    expect(errorsOf('occupancy,dwell, Occupancy')).toEqual([
      { path: '/query/filter', message: "unknown insight kind 'dwell'; allowed: occupancy, health" },
      { path: '/query/filter', message: "unknown insight kind 'Occupancy'; allowed: occupancy, health" },
    ]);
  });
});

describe('liveInsights', () => {
  const NOW = Date.parse('2024-06-03T12:00:00Z'); // Monday
  const entry = (
    sensorGroupId: number,
    occupancy: number,
    refreshedAt: string,
    openedAt = '2024-06-03T00:00:00.000Z',
  ) => ({
    organizationId: 'org-a',
    locationId: 'L1',
    sensorGroupId,
    name: `cached ${sensorGroupId}`,
    occupancy,
    openedAt,
    refreshedAt,
  });

  function storeWith(...entries: ReturnType<typeof entry>[]) {
    const store = new MemoryStore([
      {
        location: location('L1'),
        sensorGroups: [group(2, 'c2'), group(1, 'c1'), group(3, 'c3', everyDay('14:00', '20:00')), group(4, 'c4')],
      },
    ]);
    for (const e of entries) store.entries.set(JSON.stringify([e.organizationId, e.locationId, e.sensorGroupId]), e);
    return store;
  }

  test("answers the cached occupancy per open group, ordered by id, named by the group's current name", async () => {
    const store = storeWith(entry(2, 5, '2024-06-03T11:55:00.000Z'), entry(1, 0, '2024-06-03T11:55:00.000Z'));
    const { body } = await liveInsights(store, { organizationId: 'org-a' }, 'L1', ['occupancy'], NOW);
    expect(body).toEqual({
      insights: {
        occupancy: [
          { sensorGroup: { id: 1, name: 'Group 1' }, occupancy: 0 },
          { sensorGroup: { id: 2, name: 'Group 2' }, occupancy: 5 },
        ],
      },
    });
  });

  test('leaves out closed groups, entries older than three refresh periods and entries of an earlier open period', async () => {
    const store = storeWith(
      entry(1, 7, '2024-06-03T11:45:00.000Z'), // exactly 15 minutes: still shown
      entry(2, 8, '2024-06-03T11:44:59.999Z'), // older: data unavailable
      entry(3, 9, '2024-06-03T11:55:00.000Z', '2024-06-03T14:00:00.000Z'), // group 3 is closed now
      entry(4, 1, '2024-06-03T11:55:00.000Z', '2024-06-02T00:00:00.000Z'), // counted from yesterday's opening
    );
    const { body } = await liveInsights(store, { organizationId: 'org-a' }, 'L1', ['occupancy'], NOW);
    expect(body.insights.occupancy).toEqual([{ sensorGroup: { id: 1, name: 'Group 1' }, occupancy: 7 }]);
  });

  test('answers an empty array when nothing is cached', async () => {
    expect((await liveInsights(storeWith(), { organizationId: 'org-a' }, 'L1', ['occupancy'], NOW)).body).toEqual({
      insights: { occupancy: [] },
    });
  });

  test('adds the capacity of now and the utilization, rounded half up to 3 decimals, to groups that have a capacity', async () => {
    // Prepare: 5 of 12 is 0.41666… → 0.417; 1 of 2000 is 0.0005 exactly → 0.001 (half up); group 4 has none.
    const store = new MemoryStore([
      {
        location: location('L1'),
        sensorGroups: [{ ...group(1, 'c1'), capacity: 12 }, { ...group(2, 'c2'), capacity: 2000 }, group(4, 'c4')],
      },
    ]);
    for (const e of [
      entry(1, 5, '2024-06-03T11:55:00.000Z'),
      entry(2, 1, '2024-06-03T11:55:00.000Z'),
      entry(4, 3, '2024-06-03T11:55:00.000Z'),
    ]) {
      store.entries.set(JSON.stringify([e.organizationId, e.locationId, e.sensorGroupId]), e);
    }
    // Act
    const { body } = await liveInsights(store, { organizationId: 'org-a' }, 'L1', ['occupancy'], NOW);
    // Assess
    expect(body.insights.occupancy).toEqual([
      { sensorGroup: { id: 1, name: 'Group 1' }, occupancy: 5, capacity: 12, utilization: 0.417 },
      { sensorGroup: { id: 2, name: 'Group 2' }, occupancy: 1, capacity: 2000, utilization: 0.001 },
      { sensorGroup: { id: 4, name: 'Group 4' }, occupancy: 3 },
    ]);
  });

  test('is 404 for a location outside the grant, the answer of an unknown one', async () => {
    const store = storeWith(entry(1, 0, '2024-06-03T11:55:00.000Z'));
    await expect(
      liveInsights(store, { organizationId: 'org-a', locationIds: ['L2'] }, 'L1', ['occupancy'], NOW),
    ).rejects.toThrow("There is no location 'L1'.");
    await expect(
      liveInsights(store, { organizationId: 'org-a', locationIds: [] }, 'L1', ['occupancy'], NOW),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(
      (await liveInsights(store, { organizationId: 'org-a', locationIds: ['L1', 'L2'] }, 'L1', ['occupancy'], NOW)).body
        .insights.occupancy,
    ).toHaveLength(1);
  });

  test("is 404 for an unknown location and for another organization's", async () => {
    await expect(
      liveInsights(storeWith(), { organizationId: 'org-a' }, 'nope', ['occupancy'], NOW),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      liveInsights(storeWith(), { organizationId: 'org-b' }, 'L1', ['occupancy'], NOW),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('maxAgeSeconds', () => {
  const at = (hhmmss: string) => Date.parse(`2024-06-03T${hhmmss}Z`);

  test('lasts until the next refresh has written: the next 5-minute mark plus one minute', () => {
    expect(maxAgeSeconds(at('12:01:00'))).toBe(300);
    expect(maxAgeSeconds(at('12:03:30'))).toBe(150);
    expect(maxAgeSeconds(at('12:05:59'))).toBe(1);
  });

  test('is short between a mark and the end of that refresh, so the new data is fetched soon', () => {
    expect(maxAgeSeconds(at('12:05:00'))).toBe(60);
    expect(maxAgeSeconds(at('12:05:30'))).toBe(30);
  });
});
