import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ingestCli } from '../../../bin/ingest-cli';
import { type LocalService, startLocalService } from '../../../bin/dev/local-service';
import { mintIngestToken } from './ingest-token';

/**
 * `npm run ingest -- --api URL --token T file` against `npm start`: a file of more lines than one
 * request may carry goes in two batches; totals, refused lines by their number in the file, and a
 * second run of the same file that writes nothing (every line a duplicate: a crashed run resumes so).
 */
let service: LocalService;
let token: string;
let dir: string;

beforeAll(async () => {
  service = await startLocalService();
  token = mintIngestToken(service.dataDir);
  dir = mkdtempSync(join(tmpdir(), 'lrs-backfill-'));
});
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const event = (i: number, label: string, locationId = 'berlin-mall') =>
  JSON.stringify({
    locationId,
    timestamp: new Date(Date.UTC(2019, 5, 1) + i * 1000).toISOString(),
    label,
    trackingCameraId: 'cam-1',
    crossedPaths: [{ id: 'entrance', end: 'A' }],
  });

async function run(file: string, ...flags: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await ingestCli(['node', 'ingest', '--api', service.url, '--token', token, ...flags, file], {
    log: (l) => out.push(l),
    error: (l) => err.push(l),
  });
  return { code, out, err };
}

/** Documents with `label` in June 2019, as the report API counts them. */
async function count(label: string): Promise<number> {
  const response = await fetch(`${service.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      filters: [
        { type: 'range', field: 'timestamp', from: '2019-06-01T00:00:00Z', to: '2019-07-01T00:00:00Z' },
        { type: 'terms', field: 'label', values: [label] },
      ],
      aggregations: [{ type: 'terms', field: 'label' }],
    }),
  });
  return ((await response.json()) as Record<string, number>)[label] ?? 0;
}

test('backfills a file of two batches: totals, a refused line by its file line number, then all duplicates on a second run', async () => {
  // Prepare: 10,005 lines. Line 2 is blank, line 4 repeats line 1, line 10,003 names a location the
  // organization does not have. 10,004 documents: 10,000 in the first request (file lines 1-10,001),
  // 4 in the second (10,002-10,005), where the refused one is the batch's line 2.
  const lines = Array.from({ length: 10_005 }, (_, k) => event(k + 1, 'backfill'));
  lines[1] = '';
  lines[3] = lines[0] as string;
  lines[10_002] = event(10_003, 'backfill', 'atlantis');
  const file = join(dir, 'movementEvents-2019-06.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const refused = `${file}:10003: /locationId is not a location of your organization (GET /locations lists them)`;
  // Act
  const first = await run(file);
  const second = await run(file, '--concurrency', '1');
  // Assess: the collection comes from the file's name
  expect(first).toEqual({
    code: 2,
    out: [`${service.url}: 10002 accepted, 1 duplicates, 1 rejected, 0 not sent (0 of 2 batches failed), 0 retries`],
    err: [refused],
  });
  expect(second).toEqual({
    code: 2,
    out: [`${service.url}: 0 accepted, 10003 duplicates, 1 rejected, 0 not sent (0 of 2 batches failed), 0 retries`],
    err: [refused],
  });
  expect(await count('backfill')).toBe(10_002);
});

test('reads a gzip-compressed file, whatever its name, into the collection --source names', async () => {
  // Prepare
  const file = join(dir, 'events.ndjson.gz');
  writeFileSync(file, gzipSync([1, 2, 3].map((i) => event(i, 'backfill-gzip')).join('\n')));
  // Act
  const result = await run(file, '--source', 'movementEvents');
  // Assess
  expect(result).toEqual({
    code: 0,
    out: [`${service.url}: 3 accepted, 0 duplicates, 0 rejected, 0 not sent (0 of 1 batches failed), 0 retries`],
    err: [],
  });
  expect(await count('backfill-gzip')).toBe(3);
});

test('asks for --source when the file name names no collection', async () => {
  const file = join(dir, 'events.ndjson');
  writeFileSync(file, event(1, 'x'));
  const result = await run(file);
  expect(result.code).toBe(1);
  expect(result.err).toEqual([
    `--source is needed: no collection name (movementEvents, parkingLotStats, parkingEvents) starts the name of ${file}`,
  ]);
});
