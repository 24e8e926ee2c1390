import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { eraseOrganization } from '#shared/erasure/erase-organization';
import { putMachineClient } from '#shared/ingest/machine-clients';
import { DynamoItemTable } from '#shared/locations/dynamo-store';
import { applyImport } from '#shared/locations/import';
import type { ItemTable } from '#shared/locations/item-table';
import { validateImportFile } from '#shared/locations/import';
import { TableLocationStore } from '#shared/locations/table-store';
import { deleteOrganizationRows } from '#shared/stores/duckdb/erase';
import type { ReportEngine } from '#shared/stores/store';
import { deleteOrganizationDocuments } from '#shared/stores/opensearch/erase';
import { indexPattern } from '#shared/stores/opensearch/layout/indices';
import { answerReport } from '#shared/report/query-report';
import { COLLECTIONS } from '#shared/documents/fields';
import { TablePersistenceLayer } from '#commons/idempotency/table-persistence';
import { FileItemTable } from '../../../bin/local/file-table';
import { LOC_BERLIN, ORG_A, ORG_B } from '../../fixtures/documents';
import { importFile, ORG_A as LOC_ORG_A, ORG_B as LOC_ORG_B } from '../../fixtures/locations';
import { createTestTable } from '../locations/table';
import { fixtureEngines, loadFixtureEngines } from '../support/fixture-engines';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * The fixtures (test/fixtures/documents.ts) plus org B's documents at org A's location id
 * `loc-berlin` with org A's camera `cam-1`: org A has 18 movement events (28 nested items), 7 lot
 * stats, 6 parking events; org B 4 + 2 = 6 movement events (2 + 1 = 3 items, at 2 (org, location)
 * scopes), 1 + 1 lot stats, 1 + 1 parking events. Erasing org A deletes 18, 7 and 6 documents and
 * leaves org B's 6, 2 and 2.
 */
const ORG_B_AT_BERLIN = {
  movementEvents: [
    {
      id: 'mbx-01',
      organizationId: ORG_B,
      locationId: LOC_BERLIN,
      trackingCameraId: 'cam-1',
      timestamp: '2024-03-29T11:00:00Z',
      label: 'car',
      crossedPaths: [{ id: 'line-north', end: 'A' as const }],
    },
    {
      id: 'mbx-02',
      organizationId: ORG_B,
      locationId: LOC_BERLIN,
      trackingCameraId: 'cam-1',
      timestamp: '2024-10-27T10:00:00Z',
      label: 'person',
    },
  ],
  parkingLotStats: [
    {
      id: 'lsbx-01',
      organizationId: ORG_B,
      locationId: LOC_BERLIN,
      timestamp: '2024-03-30T10:00:00Z',
      parkingLotId: 'lot-1',
      occupied: 1,
      free: 9,
      total: 10,
    },
  ],
  parkingEvents: [
    {
      id: 'pebx-01',
      organizationId: ORG_B,
      locationId: LOC_BERLIN,
      timestamp: '2024-03-30T12:00:00Z',
      parkingLotId: 'lot-1',
      cameraId: 'cam-p1',
      spotId: 's1',
      duration: 7,
    },
  ],
};
const ERASED_A = { movementEvents: 18, parkingLotStats: 7, parkingEvents: 6 };
const NONE = { movementEvents: 0, parkingLotStats: 0, parkingEvents: 0 };

const client = testClient();
const prefix = uniquePrefix('erasure');
let duckdb: DuckDBInstance;
let engines: { opensearch: ReportEngine; duckdb: ReportEngine };

const byLocation = {
  source: 'movementEvents',
  aggregations: [
    { type: 'terms', field: 'locationId' },
    { type: 'terms', field: 'trackingCameraId' },
  ],
};
const answer = async (engine: ReportEngine, org: string, body: unknown = byLocation) =>
  JSON.parse((await answerReport(body, { organizationId: org }, engine, 'application/json')).body) as unknown;

beforeAll(async () => {
  duckdb = await loadFixtureEngines(client, prefix, ORG_B_AT_BERLIN);
  engines = fixtureEngines(client, prefix, duckdb);
});
afterAll(async () => {
  duckdb.closeSync();
  await deleteIndices(client, prefix);
});

describe.each(['opensearch', 'duckdb'] as const)('erasing an organization’s documents on %s', (kind) => {
  const erase = (organizationId: string, dryRun = false) =>
    kind === 'opensearch'
      ? deleteOrganizationDocuments(client, prefix, { organizationId, dryRun, pollMs: 50 })
      : deleteOrganizationRows(duckdb, { organizationId, dryRun });

  it('counts on a dry run, deletes org A from every collection and month, leaves org B’s report as it was, and finds nothing the second time', async () => {
    const before = await answer(engines[kind], ORG_B);
    expect(await erase(ORG_A, true)).toEqual(ERASED_A);
    expect(await remaining()).toEqual({ [ORG_A]: [18, 7, 6], [ORG_B]: [6, 2, 2] });

    expect(await erase(ORG_A)).toEqual(ERASED_A);

    expect(await remaining()).toEqual({ [ORG_A]: [0, 0, 0], [ORG_B]: [6, 2, 2] });
    // Org B at its own location and at the location id (and camera name) it shares with org A.
    expect(before).toEqual({ 'loc-b1 cam-9': 4, [`${LOC_BERLIN} cam-1`]: 2 });
    expect(await answer(engines[kind], ORG_B)).toEqual(before);
    expect(await answer(engines[kind], ORG_A)).toEqual({});
    expect(await erase(ORG_A)).toEqual(NONE);
    if (kind === 'duckdb')
      expect(await duckdbRows()).toEqual({
        items: 3,
        scopes: [
          [ORG_B, 'loc-b1'],
          [ORG_B, LOC_BERLIN],
        ],
      });
  });

  async function remaining(): Promise<Record<string, number[]>> {
    const of = async (org: string) =>
      Object.values(
        await (kind === 'opensearch'
          ? countOpenSearch(org)
          : deleteOrganizationRows(duckdb, { organizationId: org, dryRun: true })),
      );
    return { [ORG_A]: await of(ORG_A), [ORG_B]: await of(ORG_B) };
  }
});

async function countOpenSearch(org: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const c of COLLECTIONS)
    counts[c] = (
      await client.count({ index: indexPattern(prefix, c), body: { query: { term: { organizationId: org } } } })
    ).body.count;
  return counts;
}

async function duckdbRows() {
  const connection = await duckdb.connect();
  try {
    const items = (
      await connection.runAndReadAll(
        'SELECT (SELECT count(*) FROM movement_crossed_paths) + (SELECT count(*) FROM movement_polygons)',
      )
    ).getRowsJS()[0]![0];
    const scopes = (
      await connection.runAndReadAll('SELECT "organizationId", "locationId" FROM movement_scopes ORDER BY ALL')
    ).getRowsJS();
    return { items: Number(items), scopes };
  } finally {
    connection.closeSync();
  }
}

/**
 * Table items of test/fixtures/locations.ts: org A has 2 locations with 3 + 1 sensor groups, org B
 * one location of the same id `berlin-mall` with 1 group on the same camera; occupancy entries for 2
 * of org A's groups and org B's; a machine client and an idempotency record each.
 */
const tables: [string, () => Promise<{ table: ItemTable; close(): Promise<void> }>][] = [
  [
    'DynamoDB Local',
    async () => {
      const t = await createTestTable('erasure');
      return { table: new DynamoItemTable(t.client, t.name), close: () => t.drop() };
    },
  ],
  [
    'the embedded file table',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lrs-erasure-'));
      const table = FileItemTable.open(join(dir, 'locations.jsonl'));
      return { table, close: async () => (table.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  ],
];

describe.each(tables)('erasing an organization’s items on %s', (_, open) => {
  it('deletes org A’s locations, groups, entries, client and idempotency record, keeps org B’s, and finds nothing the second time', async () => {
    const { table, close } = await open();
    try {
      const store = new TableLocationStore(table);
      await applyImport(store, validateImportFile(importFile), { now: new Date('2024-03-01T00:00:00Z'), actor: null });
      for (const [org, loc, group] of [
        [LOC_ORG_A, 'berlin-mall', 1],
        [LOC_ORG_A, 'nyc-store', 7],
        [LOC_ORG_B, 'berlin-mall', 1],
      ] as const) {
        await store.putOccupancy({
          organizationId: org,
          locationId: loc,
          sensorGroupId: group,
          name: 'g',
          occupancy: 3,
          openedAt: '2024-03-01T05:00:00.000Z',
          refreshedAt: '2024-03-01T10:00:00.000Z',
        });
      }
      for (const org of [LOC_ORG_A, LOC_ORG_B]) {
        await putMachineClient(table, {
          clientId: `client-${org.slice(0, 1)}`,
          organizationId: org,
          name: 'gateway',
          createdAt: '2024-03-01T00:00:00Z',
          revokedAt: null,
        });
        const layer = new TablePersistenceLayer(table, org);
        const config = new IdempotencyConfig({ eventKeyJmesPath: 'key' });
        config.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as never);
        layer.configure({ config });
        await layer.saveInProgress({ key: `same key, ${org}` });
      }
      const removed: string[] = [];
      const targets = {
        table,
        documents: async () => NONE,
        removeClient: async (c: { clientId: string }) => void removed.push(c.clientId),
      };
      // Each imported location wrote one change-log entry (2 for org A); nothing was deleted, no client used.
      const erasedA = {
        location: 2,
        sensorGroup: 4,
        occupancy: 2,
        machineClient: 1,
        idempotency: 1,
        locationChange: 2,
        deletedLocation: 0,
        machineClientUse: 0,
        webhookEndpoint: 0,
        webhookEndpointState: 0,
        webhookDelivery: 0,
      };

      expect((await eraseOrganization(targets, LOC_ORG_A, { dryRun: true })).items).toEqual(erasedA);
      expect(removed).toEqual([]);
      const outcome = await eraseOrganization(targets, LOC_ORG_A);

      expect(outcome.items).toEqual(erasedA);
      expect(outcome.machineClients.map((c) => c.clientId)).toEqual(['client-a']);
      expect(removed).toEqual(['client-a']);
      const left = await table.scan();
      expect(left.filter((i) => JSON.stringify(i).includes(LOC_ORG_A))).toEqual([]);
      expect(left.map((i) => i.kind).sort()).toEqual([
        'idempotency',
        'location',
        'locationChange',
        'machineClient',
        'occupancy',
        'sensorGroup',
      ]);
      expect((await store.getLocationWithGroups(LOC_ORG_B, 'berlin-mall'))?.sensorGroups.map((g) => g.name)).toEqual([
        'Lobby',
      ]);
      expect((await eraseOrganization(targets, LOC_ORG_A)).items).toEqual({
        location: 0,
        sensorGroup: 0,
        occupancy: 0,
        machineClient: 0,
        idempotency: 0,
        locationChange: 0,
        deletedLocation: 0,
        machineClientUse: 0,
        webhookEndpoint: 0,
        webhookEndpointState: 0,
        webhookDelivery: 0,
      });
    } finally {
      await close();
    }
  });
});
