import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertEvent, AlertSink } from '#shared/alerts/events';
import { evaluateAlerts, type RefreshedLocation } from '#shared/alerts/evaluate';
import type { AlertRuleSpec } from '#shared/alerts/rules';
import { AlertStore } from '#shared/alerts/store';
import type { ItemTable } from '#shared/locations/item-table';
import type { LocationWithGroups } from '#shared/locations/model';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import type { ReportEngine } from '#shared/stores/store';
import { FileItemTable } from '../../../bin/local/file-table';
import { ORG_A } from '../../fixtures/locations';
import { createTestTable } from '../locations/table';

/**
 * The alert evaluator on both tables (DynamoDB Local with real conditional transactions, the embedded
 * file table), with hand-worked timelines. The hall (Berlin, UTC+2 in June) has group 1 with a
 * capacity of 10, open all day; the rule: occupancy-above 80 % (clear level by default 70 %).
 * Refreshes every 5 minutes from 12:00 local (10:00Z) with these occupancies:
 *   12:00 5 → nothing; 12:05 8 (80 % ≥ 80) → started; 12:10 9 → nothing (already active);
 *   12:15 7 (70 % ≥ 70, not below the clear level) → nothing; 12:20 6 (60 % < 70) → ended;
 *   12:25 6 → nothing; 12:30 8 → started again, a new transition (a new id).
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Subject {
  /** A handle on the table after a restart (the file table is closed and opened again). */
  handle(): ItemTable;
  /**
   * Another evaluator's handle at the same time: another client of DynamoDB; the one open file table (one process holds
   * it).
   */
  another(): ItemTable;
  close(): Promise<void>;
}

const subjects: [string, () => Promise<Subject>][] = [
  [
    'DynamoDB Local',
    async () => {
      const table = await createTestTable('alerts');
      const handle = () => new DynamoItemTable(table.client, table.name);
      return { handle, another: handle, close: () => table.drop() };
    },
  ],
  [
    'the embedded file table',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lrs-alerts-'));
      dirs.push(dir);
      const path = join(dir, 'locations.jsonl');
      let open: FileItemTable | undefined;
      return {
        // One process holds the file: a restart closes it and opens it again (what it wrote is read back).
        handle: () => {
          open?.close();
          open = FileItemTable.open(path);
          return open;
        },
        another: () => open as FileItemTable,
        close: async () => open?.close(),
      };
    },
  ],
];

const hall: LocationWithGroups = {
  location: {
    id: 'hall',
    name: 'Hall',
    organizationId: ORG_A,
    type: 'venue',
    timezone: 'Europe/Berlin',
    createdBy: null,
    updatedBy: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  },
  sensorGroups: [
    {
      id: 1,
      name: 'Floor',
      capacity: 10,
      lines: [{ trackingCameraId: 'cam-1', lineId: 'door', inDirection: 'A' }],
      openingHours: {},
    },
  ],
};
const at = (hhmm: string) =>
  Date.parse(`2024-06-03T${String(Number(hhmm.slice(0, 2)) - 2).padStart(2, '0')}:${hhmm.slice(3)}:00Z`);
const refreshed = (occupancy: number, now: number): RefreshedLocation[] => [
  {
    view: hall,
    entries: [
      {
        organizationId: ORG_A,
        locationId: 'hall',
        sensorGroupId: 1,
        name: 'Floor',
        occupancy,
        openedAt: '2024-06-02T22:00:00.000Z',
        refreshedAt: new Date(now).toISOString(),
      },
    ],
  },
];
/** Occupancy rules read no documents: an engine that is asked fails the test. */
const engine: ReportEngine = { maxBuckets: 1, run: () => Promise.reject(new Error('the engine was asked')) };
const recorder = () => {
  const events: AlertEvent[] = [];
  const sink: AlertSink = { publish: async (e) => void events.push(...e) };
  return { events, sink };
};
const RULE: AlertRuleSpec = {
  locationId: 'hall',
  kind: 'occupancy-above',
  sensorGroupId: 1,
  percent: 80,
  clearPercent: 70,
};

const event = (
  ruleId: string,
  state: 'started' | 'ended',
  startedAt: string,
  occurredAt: string,
  value: number,
  threshold: number,
) => ({
  type: 'occupancy.above',
  id: `${ruleId}:${startedAt}:${state}`,
  organizationId: ORG_A,
  occurredAt,
  data: { state, ruleId, locationId: 'hall', sensorGroupId: 1, value, capacity: 10, percent: value * 10, threshold },
});

describe.each(subjects)('alert evaluation on %s', (_, open) => {
  let subject: Subject;
  beforeEach(async () => {
    subject = await open();
  });
  afterEach(() => subject.close());

  test('fires once when the condition starts and once when it falls below the clear level, across a restart', async () => {
    let store = new AlertStore(subject.handle());
    const rule = await store.createRule(ORG_A, RULE, 'alice', '2024-06-03T09:00:00.000Z');
    const { events, sink } = recorder();
    const run = (hhmm: string, occupancy: number) =>
      evaluateAlerts({ store, sink, engine }, refreshed(occupancy, at(hhmm)), at(hhmm));
    await run('12:00', 5);
    await run('12:05', 8);
    await run('12:10', 9);
    store = new AlertStore(subject.handle()); // a restart: the state is read back from the table
    await run('12:15', 7);
    await run('12:20', 6);
    await run('12:25', 6);
    await run('12:30', 8);
    expect(events).toEqual([
      event(rule.id, 'started', '2024-06-03T10:05:00.000Z', '2024-06-03T10:05:00.000Z', 8, 80),
      event(rule.id, 'ended', '2024-06-03T10:05:00.000Z', '2024-06-03T10:20:00.000Z', 6, 70),
      event(rule.id, 'started', '2024-06-03T10:30:00.000Z', '2024-06-03T10:30:00.000Z', 8, 80),
    ]);
  });

  test('two evaluators racing on the same change: one commits and publishes it, the other loses the conditional write', async () => {
    const first = new AlertStore(subject.handle());
    await first.createRule(ORG_A, RULE, 'alice', '2024-06-03T09:00:00.000Z');
    // Both read the state before either writes: each waits for the other's read.
    let arrived = 0;
    let bothRead: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const racing = (store: AlertStore): AlertStore =>
      Object.assign(Object.create(store) as AlertStore, {
        listStates: async (org: string) => {
          const states = await store.listStates(org);
          if (++arrived === 2) bothRead();
          await barrier;
          return states;
        },
      });
    const a = recorder();
    const b = recorder();
    const second = new AlertStore(subject.another());
    const [ra, rb] = await Promise.all([
      evaluateAlerts({ store: racing(first), sink: a.sink, engine }, refreshed(8, at('12:05')), at('12:05')),
      evaluateAlerts(
        { store: racing(second), sink: b.sink, engine },
        refreshed(9, at('12:05') + 1000),
        at('12:05') + 1000,
      ),
    ]);
    expect([...a.events, ...b.events].map((e) => e.data.state)).toEqual(['started']);
    expect(ra.lostRaces + rb.lostRaces).toBe(1);
    // And the state is the winner's: the next run (9 people) sends nothing.
    const c = recorder();
    await evaluateAlerts({ store: first, sink: c.sink, engine }, refreshed(9, at('12:10')), at('12:10'));
    expect(c.events).toEqual([]);
  });

  test('a sink that fails leaves the event pending: the next run hands on the same event, once', async () => {
    const store = new AlertStore(subject.handle());
    const rule = await store.createRule(ORG_A, RULE, 'alice', '2024-06-03T09:00:00.000Z');
    const failing: AlertSink = { publish: () => Promise.reject(new Error('receiver down')) };
    const errors: string[] = [];
    const logger = { error: (message: string) => void errors.push(message) };
    await evaluateAlerts({ store, sink: failing, engine, logger }, refreshed(8, at('12:05')), at('12:05'));
    expect(errors).toEqual(['alert rule evaluation failed']);
    const { events, sink } = recorder();
    await evaluateAlerts({ store, sink, engine }, refreshed(9, at('12:10')), at('12:10'));
    await evaluateAlerts({ store, sink, engine }, refreshed(9, at('12:15')), at('12:15'));
    expect(events).toEqual([event(rule.id, 'started', '2024-06-03T10:05:00.000Z', '2024-06-03T10:05:00.000Z', 8, 80)]);
  });
});
