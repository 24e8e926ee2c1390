import type { DuckDBInstance } from '@duckdb/node-api';
import type { ValidationError } from '#shared/errors';
import type { Location, SensorGroup } from '#shared/locations/model';
import { occupancyHistory } from '#shared/occupancy/history';
import { parseHistoryQuery, type HistoryQuery } from '#shared/occupancy/history-query';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine } from '#shared/stores/duckdb/report/execute';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { everyDay, location } from './fakes';

const ORG = 'org-a';
let duckdb: DuckDBInstance;
let engine: DuckDbEngine;

beforeAll(async () => {
  duckdb = await openDuckDb(':memory:');
  engine = new DuckDbEngine(duckdb, { maxBuckets: 2000 });
});
afterAll(() => duckdb.closeSync());

async function ingest(locationId: string, crossings: readonly [string, 'A' | 'B'][]): Promise<void> {
  const docs = crossings.map(([timestamp, end], i) =>
    parseDocument(
      'movementEvents',
      {
        organizationId: ORG,
        locationId,
        trackingCameraId: 'cam-1',
        label: 'person',
        timestamp,
        crossedPaths: [{ id: 'door', start: end === 'A' ? 'B' : 'A', end }],
        polygons: [],
      },
      `/${i}`,
    ),
  );
  await ingestDocuments(duckdb, 'movementEvents', docs);
}

const group = (hours: ReturnType<typeof everyDay>): SensorGroup => ({
  id: 1,
  name: 'Shop',
  lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'A' }],
  openingHours: hours,
});

async function fiveMinutes(loc: Location, sensorGroup: SensorGroup, from: string, to: string, interval = '5m') {
  const store = { getLocationWithGroups: async () => ({ location: loc, sensorGroups: [sensorGroup] }) };
  const answer = await occupancyHistory(
    { store, engine },
    { organizationId: ORG },
    loc.id,
    parseHistoryQuery({ filter: 'occupancy', from, to, interval }),
  );
  return answer.insights.occupancy![0]!.buckets.map((b) => [b.timestamp.slice(11, 16), b.occupancy, b.peak]);
}

describe('occupancy history', () => {
  test('counts from an opening off the marks, not from the mark before it, and up to a closing off the marks', async () => {
    // Prepare: open 08:03–08:12 (UTC). In at 08:01 (before the opening), 08:04 and 08:06; out at 08:11; in at 08:12
    // (closed).
    await ingest('off-marks', [
      ['2024-06-03T08:01:00Z', 'A'],
      ['2024-06-03T08:04:00Z', 'A'],
      ['2024-06-03T08:06:00Z', 'A'],
      ['2024-06-03T08:11:00Z', 'B'],
      ['2024-06-03T08:12:00Z', 'A'],
    ]);
    // Act
    const buckets = await fiveMinutes(
      location('off-marks'),
      group(everyDay('08:03', '08:12')),
      '2024-06-03T07:55:00Z',
      '2024-06-03T08:20:00Z',
    );
    // Assess: at 08:05 one in since 08:03 (not two); at 08:10 two; at the 08:12 closing 2 − 1 = 1; closed after.
    expect(buckets).toEqual([
      ['07:55', undefined, undefined],
      ['08:00', 1, 1],
      ['08:05', 2, 2],
      ['08:10', 1, 1],
      ['08:15', undefined, undefined],
    ]);
    // One quarter: the value at the closing, and the largest at the marks within it (2 at 08:10).
    expect(
      await fiveMinutes(
        location('off-marks'),
        group(everyDay('08:03', '08:12')),
        '2024-06-03T08:00:00Z',
        '2024-06-03T08:15:00Z',
        '15m',
      ),
    ).toEqual([['08:00', 1, 2]]);
  });

  test('resets at each opening and clamps the total since it, never a part of it', async () => {
    // Prepare: open 08:00–08:10 and 08:10–09:00 (two periods that touch). Out, in, in within the first; in at 08:12 in
    // the second.
    await ingest('resets', [
      ['2024-06-03T08:01:00Z', 'B'],
      ['2024-06-03T08:02:00Z', 'A'],
      ['2024-06-03T08:06:00Z', 'A'],
      ['2024-06-03T08:12:00Z', 'A'],
    ]);
    const hours = {
      monday: [
        { open: '08:00', close: '08:10' },
        { open: '08:10', close: '09:00' },
      ],
    };
    const buckets = await fiveMinutes(location('resets'), group(hours), '2024-06-03T08:00:00Z', '2024-06-03T08:20:00Z');
    // Assess: at 08:05 max(0, −1 + 1) = 0; at the 08:10 closing −1 + 2 = 1; the second period starts at 0: 1 at 08:15
    // and 08:20.
    expect(buckets).toEqual([
      ['08:00', 0, 0],
      ['08:05', 1, 1],
      ['08:10', 1, 1],
      ['08:15', 1, 1],
    ]);
  });
});

describe('utilization over time', () => {
  test('divides each bucket by the capacity in force at its samples, not by today’s', async () => {
    // Prepare: open 08:00–09:00; in at 08:01, 08:02, 08:03 and 08:21, out at 08:22. The capacity is 4
    // from 07:00, and 10 from 08:15 (so the 08:15 sample already uses 10).
    await ingest('capacity', [
      ['2024-06-03T08:01:00Z', 'A'],
      ['2024-06-03T08:02:00Z', 'A'],
      ['2024-06-03T08:03:00Z', 'A'],
      ['2024-06-03T08:21:00Z', 'A'],
      ['2024-06-03T08:22:00Z', 'B'],
    ]);
    const shop: SensorGroup = {
      ...group(everyDay('08:00', '09:00')),
      capacity: 10,
      capacityHistory: [
        { since: '2024-06-03T07:00:00.000Z', capacity: 4 },
        { since: '2024-06-03T08:15:00.000Z', capacity: 10 },
      ],
    };
    const store = { getLocationWithGroups: async () => ({ location: location('capacity'), sensorGroups: [shop] }) };
    // Act
    const answer = await occupancyHistory(
      { store, engine },
      { organizationId: ORG },
      'capacity',
      parseHistoryQuery({
        filter: 'occupancy',
        from: '2024-06-03T08:00:00Z',
        to: '2024-06-03T08:30:00Z',
        interval: '15m',
      }),
    );
    // Assess: samples 08:05 → 3 (of 4), 08:10 → 3, 08:15 → 3 (of 10); 08:20 → 3, 08:25 → 3 (in and out cancel).
    // First quarter: the last sample 08:15 is 3 of 10; the peak utilization is 3 of 4 at 08:05.
    expect(answer.insights.occupancy![0]!.buckets).toEqual([
      {
        timestamp: '2024-06-03T08:00:00.000Z',
        occupancy: 3,
        peak: 3,
        capacity: 10,
        utilization: 0.3,
        peakUtilization: 0.75,
      },
      {
        timestamp: '2024-06-03T08:15:00.000Z',
        occupancy: 3,
        peak: 3,
        capacity: 10,
        utilization: 0.3,
        peakUtilization: 0.3,
      },
    ]);
  });

  test('leaves utilization out of buckets before the group had a capacity', async () => {
    await ingest('no-capacity-yet', [['2024-06-03T08:01:00Z', 'A']]);
    const shop: SensorGroup = {
      ...group(everyDay('08:00', '09:00')),
      capacity: 5,
      capacityHistory: [{ since: '2024-06-03T08:20:00.000Z', capacity: 5 }],
    };
    const store = {
      getLocationWithGroups: async () => ({ location: location('no-capacity-yet'), sensorGroups: [shop] }),
    };
    const answer = await occupancyHistory(
      { store, engine },
      { organizationId: ORG },
      'no-capacity-yet',
      parseHistoryQuery({
        filter: 'occupancy',
        from: '2024-06-03T08:00:00Z',
        to: '2024-06-03T08:30:00Z',
        interval: '15m',
      }),
    );
    // 08:05, 08:10, 08:15 before the capacity; 08:20 and 08:25 with it: 1 of 5.
    expect(answer.insights.occupancy![0]!.buckets).toEqual([
      { timestamp: '2024-06-03T08:00:00.000Z', occupancy: 1, peak: 1 },
      {
        timestamp: '2024-06-03T08:15:00.000Z',
        occupancy: 1,
        peak: 1,
        capacity: 5,
        utilization: 0.2,
        peakUtilization: 0.2,
      },
    ]);
  });

  test('is 404 outside the grant, before anything is read', async () => {
    const store = { getLocationWithGroups: () => Promise.reject(new Error('the store must not be read')) };
    const query = parseHistoryQuery({ filter: 'occupancy', from: '2024-06-03T08:00:00Z', to: '2024-06-03T08:30:00Z' });
    await expect(
      occupancyHistory({ store, engine }, { organizationId: ORG, locationIds: ['other'] }, 'capacity', query),
    ).rejects.toThrow("There is no location 'capacity'.");
  });
});

describe('the bound on the answer', () => {
  const unused = { maxBuckets: 2000, run: () => Promise.reject(new Error('the engine must not be reached')) };
  /**
   * The history of `id` for `query`: its 400, naming the interval, and with `query` ending `at` instead, the engine
   * reached.
   */
  const history = (
    store: Parameters<typeof occupancyHistory>[0]['store'],
    id: string,
    query: HistoryQuery,
    at?: string,
  ) =>
    occupancyHistory(
      { store, engine: unused },
      { organizationId: ORG },
      id,
      at ? { ...query, to: Date.parse(at) } : query,
    );
  const refused = (message: string) => ({ status: 400, errors: [{ path: '/query/interval', message }] });

  test("refuses more values than 20 groups' most buckets, naming the interval, before asking the engine", async () => {
    // Prepare: 21 groups; 31 days of 15 minutes is 2976 buckets each.
    const sensorGroups = Array.from({ length: 21 }, (_, i) => ({ ...group(everyDay('08:00', '20:00')), id: i + 1 }));
    const store = { getLocationWithGroups: async () => ({ location: location('many'), sensorGroups }) };
    const query = parseHistoryQuery({ filter: 'occupancy', from: '2024-03-01T00:00:00Z', to: '2024-04-01T00:00:00Z' });
    // Act
    const answer = history(store, 'many', query);
    // Assess
    await expect(answer).rejects.toMatchObject(
      refused(
        "15m makes 2976 buckets for each of the location's 21 sensor groups, more than 59520 in all: use a longer interval (5m, 10m, 15m, 30m, 1h, 1d) or a shorter range",
      ),
    );
    await expect(history(store, 'many', query, '2024-03-02T00:00:00Z')).rejects.toThrow(
      'the engine must not be reached',
    );
  });

  test('counts the buckets that overlap the range in the time zone: 2977 quarters are refused, 2976 answered', async () => {
    // Prepare: the probe's range, 00:14 to 00:01 31 days later in Berlin (+01:00, then +02:00 from 30 March):
    // 31 × 96 quarters less 13 minutes, overlapping the 00:00 quarter at each end: 31 × 96 + 1 = 2977.
    const store = {
      getLocationWithGroups: async () => ({
        location: location('edges', ORG, 'Europe/Berlin'),
        sensorGroups: [group(everyDay('08:00', '20:00'))],
      }),
    };
    const query = parseHistoryQuery({ filter: 'occupancy', from: '2025-03-26T00:14:00Z', to: '2025-04-26T00:01:00Z' });
    // Act
    const answer = history(store, 'edges', query);
    // Assess: refused before the engine, naming the interval and the count.
    await expect(answer).rejects.toMatchObject(
      refused(
        "15m makes 2977 buckets overlapping this range in the location's time zone, more than 2976: use a longer interval (5m, 10m, 15m, 30m, 1h, 1d) or a shorter range",
      ),
    );
    // One minute less at the end (to 00:00) ends on an edge: 2976 quarters, past the bound check to the engine.
    await expect(history(store, 'edges', query, '2025-04-26T00:00:00Z')).rejects.toThrow(
      'the engine must not be reached',
    );
  });
});

describe('the history query', () => {
  const errorsOf = (query: Record<string, string>) => {
    try {
      parseHistoryQuery(query);
    } catch (e) {
      return (e as ValidationError).errors;
    }
    return [];
  };

  test('names every parameter that is missing or not allowed, with what is allowed', () => {
    expect(errorsOf({ filter: 'dwell', from: 'yesterday', interval: '7m' })).toEqual([
      { path: '/query/filter', message: "unknown insight kind 'dwell'; allowed: occupancy" },
      {
        path: '/query/from',
        message: 'must be an ISO 8601 timestamp with Z or an offset, e.g. 2024-03-31T00:00:00+02:00',
      },
      { path: '/query/to', message: 'is required (ISO 8601 with Z or an offset, e.g. 2024-03-31T00:00:00+02:00)' },
      { path: '/query/interval', message: 'must be one of 5m, 10m, 15m, 30m, 1h, 1d (default 15m)' },
    ]);
  });

  test('refuses health: sensor health is live only', () => {
    expect(errorsOf({ filter: 'occupancy,health', from: '2024-06-03T00:00:00Z', to: '2024-06-04T00:00:00Z' })).toEqual([
      { path: '/query/filter', message: "unknown insight kind 'health'; allowed: occupancy" },
    ]);
  });

  test('bounds the range and the buckets before any work', () => {
    const from = '2024-03-01T00:00:00Z';
    expect(errorsOf({ filter: 'occupancy', from, to: from })).toEqual([
      { path: '/query/to', message: 'must be after from' },
    ]);
    expect(errorsOf({ filter: 'occupancy', from, to: '2024-04-01T00:00:01Z', interval: '1d' })).toEqual([
      { path: '/query/to', message: 'must be at most 31 days after from' },
    ]);
    expect(errorsOf({ filter: 'occupancy', from, to: '2024-03-11T08:05:00Z', interval: '5m' })).toEqual([
      {
        path: '/query/interval',
        message:
          '5m makes 2977 buckets of this range, more than 2976: use a longer interval (5m, 10m, 15m, 30m, 1h, 1d) or a range of at most 248 hours',
      },
    ]);
    expect(errorsOf({ filter: 'occupancy', from, to: '2024-04-01T00:00:00Z' })).toEqual([]);
  });
});
