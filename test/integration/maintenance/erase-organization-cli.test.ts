import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from '#shared/documents/documents';
import { openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { putMachineClient } from '#shared/ingest/machine-clients';
import { DRY_RUN_EXIT, eraseOrganizationCli } from '../../../bin/erase-organization';
import { dataPaths } from '../../../bin/local/config';
import { FileItemTable } from '../../../bin/local/file-table';
import { ORG_A, ORG_B } from '../../fixtures/documents';

/**
 * A data folder with 2 movement events of org A and 1 of org B (same location id), a machine client
 * each: without --yes the command lists and deletes nothing (exit 2); with it, org A's 2 events and
 * client go; run again, it finds nothing.
 */
describe('npm run erase-organization on a data folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-erase-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    const paths = dataPaths(dir);
    const db = await openDuckDb(paths.duckdb);
    const event = (organizationId: string, timestamp: string) =>
      parseDocument('movementEvents', {
        organizationId,
        locationId: 'loc',
        trackingCameraId: 'cam-1',
        timestamp,
        label: 'car',
      });
    await ingestDocuments(db, 'movementEvents', [
      event(ORG_A, '2024-03-01T00:00:00Z'),
      event(ORG_A, '2024-04-01T00:00:00Z'),
      event(ORG_B, '2024-03-01T00:00:00Z'),
    ]);
    db.closeSync();
    const table = FileItemTable.open(paths.locations);
    for (const [id, org] of [
      ['client-a', ORG_A],
      ['client-b', ORG_B],
    ] as const) {
      await putMachineClient(table, {
        clientId: id,
        organizationId: org,
        name: 'gw',
        createdAt: '2024-03-01T00:00:00Z',
        revokedAt: null,
      });
    }
    table.close();
  });

  const run = async (...flags: string[]) => {
    const lines: string[] = [];
    const code = await eraseOrganizationCli(
      ['node', 'erase-organization', '--org', ORG_A, '--data-dir', dir, ...flags],
      { log: (l) => lines.push(l), error: (l) => lines.push(l) },
      {},
    );
    return { code, lines: lines.slice(1) };
  };

  it('shows what it would delete without --yes, deletes with it, and finds nothing the second time', async () => {
    expect(await run()).toEqual({
      code: DRY_RUN_EXIT,
      lines: [
        'would delete documents: 2 movementEvents, 0 parkingLotStats, 0 parkingEvents',
        'would delete items: 0 locations, 0 sensor groups, 0 occupancy entries, 1 machine clients, 0 idempotency records, 0 change log entries, 0 deletion records',
        'would delete machine client client-a (gw)',
        expect.stringContaining('their Cognito app clients remain'),
        'nothing was deleted: run again with --yes to delete',
      ],
    });
    expect((await run('--yes')).lines.slice(0, 2)).toEqual([
      'deleted documents: 2 movementEvents, 0 parkingLotStats, 0 parkingEvents',
      'deleted items: 0 locations, 0 sensor groups, 0 occupancy entries, 1 machine clients, 0 idempotency records, 0 change log entries, 0 deletion records',
    ]);
    expect(await run('--yes')).toEqual({
      code: 0,
      lines: [
        'deleted documents: 0 movementEvents, 0 parkingLotStats, 0 parkingEvents',
        'deleted items: 0 locations, 0 sensor groups, 0 occupancy entries, 0 machine clients, 0 idempotency records, 0 change log entries, 0 deletion records',
      ],
    });
    // Org B's event and client are still there.
    const other = await eraseOrganizationCli(
      ['node', 'erase-organization', '--org', ORG_B, '--data-dir', dir],
      { log: () => undefined, error: () => undefined },
      {},
    );
    expect(other).toBe(DRY_RUN_EXIT);
    const db = await openDuckDb(dataPaths(dir).duckdb);
    const connection = await db.connect();
    expect(
      (
        await connection.runAndReadAll('SELECT "organizationId", count(*) FROM movement_events GROUP BY ALL')
      ).getRowsJS(),
    ).toEqual([[ORG_B, 1n]]);
    connection.closeSync();
    db.closeSync();
  });

  it('refuses an organization id that is not a UUID, before opening anything', async () => {
    const lines: string[] = [];
    expect(
      await eraseOrganizationCli(
        ['node', 'erase-organization', '--org', 'acme', '--data-dir', join(dir, 'none')],
        { log: (l) => lines.push(l), error: (l) => lines.push(l) },
        {},
      ),
    ).toBe(1);
    expect(lines.join('\n')).toMatch(/--org.*must be a UUID/);
  });
});
