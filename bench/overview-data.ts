import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService, type LocalService } from '../bin/dev/local-service';
import { prng } from '../bin/seed/generate';
import { addDays, localDateOf, localMsOf, localToInstant } from '#shared/time/local-time';

/**
 * A data folder with many sites for the overview's benchmark: `npm start`'s seeded folder, then
 * `count` more locations in ten time zones (two sensor groups each, open all day) imported with
 * `npm run import-locations`, and `eventsPerDay` movement events each today up to now and on the
 * same day a week before (ingested with `npm run ingest` into the folder), then `npm start` on it.
 */
const ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/Chicago',
  'America/Los_Angeles',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Australia/Sydney',
  'America/Sao_Paulo',
  'Asia/Singapore',
];
const ROOT = join(__dirname, '..');

export interface ManySites {
  readonly service: LocalService;
  readonly ids: readonly string[];
  readonly events: number;
  stop(): Promise<void>;
}

export async function manySites(count: number, eventsPerDay: number): Promise<ManySites> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lrs-bench-sites-'));
  const files = mkdtempSync(join(tmpdir(), 'lrs-bench-sites-files-'));
  try {
    const seeded = await startLocalService({}, [], { dataDir });
    const organizationId = (
      (await (
        await fetch(`${seeded.url}/locations`, { headers: { authorization: `Bearer ${seeded.token}` } })
      ).json()) as { organizationId: string }[]
    )[0]!.organizationId;
    await seeded.stop();
    const allDay = Object.fromEntries(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [
        d,
        [{ open: '00:00', close: '24:00' }],
      ]),
    );
    const ids = Array.from({ length: count }, (_, i) => `site-${String(i).padStart(3, '0')}`);
    const locations = ids.map((id, i) => ({
      id,
      organizationId,
      type: 'store',
      timezone: ZONES[i % ZONES.length]!,
      sensorGroups: [
        {
          id: 1,
          name: 'Entrance',
          lines: [{ trackingCameraId: `${id}-cam-1`, lineId: 'door', inDirection: 'A' }],
          openingHours: allDay,
        },
        {
          id: 2,
          name: 'Floor',
          lines: [{ trackingCameraId: `${id}-cam-2`, lineId: 'stairs', inDirection: 'A' }],
          openingHours: allDay,
        },
      ],
    }));
    writeFileSync(join(files, 'locations.json'), JSON.stringify({ locations }));
    const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
    execFileSync(
      process.execPath,
      [tsx, 'bin/import-locations.ts', '--file', join(files, 'locations.json'), '--data-dir', dataDir],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const now = Date.now();
    const random = prng(34);
    const lines: string[] = [];
    locations.forEach((l) => {
      const today = localDateOf(now, l.timezone);
      const start = (days: number) => localToInstant(localMsOf(addDays(today, days)), l.timezone);
      for (const [from, to] of [
        [start(0), now],
        [start(-7), start(-6)],
      ] as const) {
        for (let k = 0; k < eventsPerDay; k++) {
          const camera = k % 2 === 0 ? 'cam-1' : 'cam-2';
          const timestamp = new Date(from + Math.floor(random() * Math.max(1, to - from))).toISOString();
          const crossedPaths = [{ id: camera === 'cam-1' ? 'door' : 'stairs', end: random() < 0.55 ? 'A' : 'B' }];
          lines.push(
            JSON.stringify({
              organizationId,
              locationId: l.id,
              trackingCameraId: `${l.id}-${camera}`,
              label: 'person',
              timestamp,
              crossedPaths,
              polygons: [],
            }),
          );
        }
      }
    });
    writeFileSync(join(files, 'movementEvents-bench.ndjson'), `${lines.join('\n')}\n`);
    execFileSync(
      process.execPath,
      [tsx, 'bin/ingest-cli.ts', join(files, 'movementEvents-bench.ndjson'), '--data-dir', dataDir],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const service = await startLocalService({}, [], { dataDir });
    return {
      service,
      ids,
      events: lines.length,
      async stop() {
        await service.stop();
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(files, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
    throw e;
  }
}
