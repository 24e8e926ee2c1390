import { refreshOccupancy } from '#shared/occupancy/refresh';
import { CountingEngine, everyDay, group, location, MemoryStore } from './fakes';

const NOW = Date.parse('2024-06-03T12:00:00Z'); // a Monday

describe('refreshOccupancy', () => {
  test('writes one entry per open group: ins − outs since the opening, with the period it counted from', async () => {
    // Prepare
    const store = new MemoryStore([
      { location: location('L1'), sensorGroups: [group(1, 'cam-1', everyDay('08:00', '20:00'))] },
    ]);
    // Act
    const summary = await refreshOccupancy({ store, engine: new CountingEngine(5, 2) }, NOW);
    // Assess
    expect(summary).toMatchObject({
      locations: 1,
      refreshedLocations: 1,
      failedLocations: 0,
      entriesWritten: 1,
      entriesDeleted: 0,
    });
    expect([...store.entries.values()]).toEqual([
      {
        organizationId: 'org-a',
        locationId: 'L1',
        sensorGroupId: 1,
        name: 'Group 1',
        occupancy: 3,
        openedAt: '2024-06-03T08:00:00.000Z',
        refreshedAt: '2024-06-03T12:00:00.000Z',
      },
    ]);
  });

  test("counts each location within its own organization's scope", async () => {
    const store = new MemoryStore([
      { location: location('L1', 'org-a'), sensorGroups: [group(1, 'cam-1')] },
      { location: location('L1', 'org-b'), sensorGroups: [group(1, 'cam-1')] },
    ]);
    const engine = new CountingEngine(1);
    await refreshOccupancy({ store, engine }, NOW);
    expect(engine.calls.map((c) => [c.scope.organizationId, c.plan.locationIds])).toEqual([
      ['org-a', ['L1']],
      ['org-b', ['L1']],
    ]);
  });

  test('logs and counts a failing location and still refreshes the others', async () => {
    const store = new MemoryStore([
      { location: location('bad'), sensorGroups: [group(1, 'cam-1')] },
      { location: location('good'), sensorGroups: [group(1, 'cam-1')] },
    ]);
    const logged: unknown[] = [];
    const logger = {
      info: () => undefined,
      error: (message: string, extra: Record<string, unknown>) =>
        logged.push({ message, locationId: extra.locationId }),
    };
    const summary = await refreshOccupancy({ store, engine: new CountingEngine(2, 0, ['bad']), logger }, NOW);
    expect(summary).toMatchObject({
      locations: 2,
      refreshedLocations: 1,
      failedLocations: 1,
      failures: [{ locationId: 'bad', message: 'engine unavailable' }],
    });
    expect(logged).toEqual([{ message: 'occupancy refresh of a location failed', locationId: 'bad' }]);
    expect([...store.entries.values()].map((e) => e.locationId)).toEqual(['good']);
  });

  test('removes the entry of a group that has closed, and never writes one for it', async () => {
    const hours = everyDay('08:00', '12:00');
    const store = new MemoryStore([{ location: location('L1'), sensorGroups: [group(1, 'cam-1', hours)] }]);
    await refreshOccupancy({ store, engine: new CountingEngine(1) }, Date.parse('2024-06-03T11:55:00Z'));
    const summary = await refreshOccupancy(
      { store, engine: new CountingEngine(1) },
      Date.parse('2024-06-03T12:00:00Z'),
    );
    expect(summary).toMatchObject({ entriesWritten: 0, entriesDeleted: 1 });
    expect(store.entries.size).toBe(0);
  });

  test('is idempotent: the same instant twice gives the same entries', async () => {
    const store = new MemoryStore([{ location: location('L1'), sensorGroups: [group(1, 'cam-1'), group(2, 'cam-2')] }]);
    await refreshOccupancy({ store, engine: new CountingEngine(4, 1) }, NOW);
    const first = structuredClone([...store.entries.values()]);
    await refreshOccupancy({ store, engine: new CountingEngine(4, 1) }, NOW);
    expect([...store.entries.values()]).toEqual(first);
  });

  test('never replaces an entry with one computed for an earlier instant (overlapping runs)', async () => {
    const store = new MemoryStore([{ location: location('L1'), sensorGroups: [group(1, 'cam-1')] }]);
    await refreshOccupancy({ store, engine: new CountingEngine(9) }, NOW);
    const late = await refreshOccupancy({ store, engine: new CountingEngine(1) }, NOW - 300_000);
    expect(late.entriesWritten).toBe(0);
    expect([...store.entries.values()][0]?.occupancy).toBe(9);
  });

  test('counts groups that opened at different times with one report each', async () => {
    const store = new MemoryStore([
      {
        location: location('L1'),
        sensorGroups: [
          group(1, 'cam-1', everyDay('08:00', '20:00')),
          group(2, 'cam-2', everyDay('10:00', '20:00')),
          group(3, 'cam-3', everyDay('08:00', '18:00')),
        ],
      },
    ]);
    const engine = new CountingEngine(1);
    await refreshOccupancy({ store, engine }, NOW);
    expect(engine.calls.map((c) => c.plan.timeRange?.from)).toEqual([
      Date.parse('2024-06-03T08:00:00Z'),
      Date.parse('2024-06-03T10:00:00Z'),
    ]);
  });
});
