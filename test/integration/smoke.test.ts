import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@opensearch-project/opensearch';
import { ephemeralDevKey, type DevKey } from '../../bin/local/auth/dev-key';
import { mintDevToken } from '../../bin/local/auth/tokens';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { openSearchStore } from '#shared/stores/opensearch/store';
import { openApiDocument } from '#shared/openapi/document';
import { provideStore } from '#commons/clients/store';
import { startLocalServer, type LocalServer } from '../../bin/local/server';
import { PROJECT_ROOT } from '../../lib/stack';
import { ORG_A, ORG_B, importFile } from '../fixtures/locations';
import { createTestTable, type TestTable } from './locations/table';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from './support/opensearch';

/**
 * `npm run smoke` as a person or the pipeline runs it (a separate process, over HTTP), against the
 * local server with the real handlers, DynamoDB Local and the OpenSearch node: it passes against a
 * seeded server and fails with a clear line against a broken one.
 */
const HOUR = 3_600_000;
const client = testClient();
const prefix = uniquePrefix('smoke');
let table: TestTable;
let key: DevKey;
let server: LocalServer;
let hourEnd: number;

const event = (org: string, locationId: string, msBeforeHourEnd: number) => ({
  organizationId: org,
  locationId,
  trackingCameraId: 'cam-1',
  label: 'person',
  timestamp: new Date(hourEnd - msBeforeHourEnd).toISOString(),
  crossedPaths: [],
  polygons: [],
});

beforeAll(async () => {
  table = await createTestTable('smoke');
  process.env.TABLE_NAME = table.name;
  process.env.ORGANIZATION_CLAIM = 'custom:organizationId';
  await applyImport(table.store, validateImportFile(importFile), { now: new Date('2024-01-01T00:00:00Z') });
  hourEnd = Math.floor(Date.now() / HOUR) * HOUR;
  // The smoke report counts berlin-mall's events in the 24 whole hours before now: three of org A
  // (2.5 h, 3 h 10 min and 10 h before the hour; still inside if the hour turns during the test);
  // not the one 30 h back, nor nyc-store's, nor org B's berlin-mall.
  await indexDocuments(client, prefix, {
    movementEvents: [
      event(ORG_A, 'berlin-mall', 2.5 * HOUR),
      event(ORG_A, 'berlin-mall', 3 * HOUR + 10 * 60_000),
      event(ORG_A, 'berlin-mall', 10 * HOUR),
      event(ORG_A, 'berlin-mall', 30 * HOUR),
      event(ORG_A, 'nyc-store', 2 * HOUR),
      event(ORG_B, 'berlin-mall', 2 * HOUR),
    ],
  });
  provideStore(openSearchStore(client, { indexPrefix: prefix }));
  key = await ephemeralDevKey();
  server = await startLocalServer({ port: 0, devKey: key, openApi: openApiDocument() });
});
afterAll(async () => {
  await server.close();
  await table.drop();
  await deleteIndices(client, prefix);
});

interface Run {
  readonly code: number;
  readonly lines: string[];
  readonly stderr: string;
}

/** `npm run smoke -- …` (tsx on bin/smoke.ts), asynchronously: the server answers from this process. */
function smoke(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'),
      ['bin/smoke.ts', ...args],
      { cwd: PROJECT_ROOT, timeout: 120_000, env: { ...process.env, SMOKE_TOKEN: '' } },
      (error, stdout, stderr) => {
        resolve({
          code: error ? ((error as { code?: number }).code ?? -1) : 0,
          lines: stdout.trimEnd().split('\n'),
          stderr,
        });
      },
    );
  });
}

const token = (organizationId: string) => mintDevToken(key, { organizationId, claimName: 'custom:organizationId' });

/** The JSON check's line for a given hour end: the window is the 24 whole hours before it. */
const reportLine = (end: number, events: number) =>
  `ok    POST /reports:query (JSON): 200, 24 hourly buckets from ${new Date(end - 24 * HOUR).toISOString()} to ${new Date(end).toISOString()}, ${events} movement events at berlin-mall`;

describe('npm run smoke against the local server', () => {
  test('passes against a seeded server and reports one line per check', async () => {
    // Act
    const run = await smoke('--api', `${server.url}/`, '--token', await token(ORG_A));
    const endAfter = Math.floor(Date.now() / HOUR) * HOUR;

    // Assess: berlin-mall comes first (ids in order); no refresh ran, so no group has an occupancy yet.
    expect(run.code).toBe(0);
    expect(run.lines[3]).toBe(
      'ok    GET /locations/{first}/insights/live?filter=occupancy: 200, berlin-mall: 0 open sensor groups with occupancy',
    );
    expect([reportLine(hourEnd, 3), reportLine(endAfter, 3)]).toContain(run.lines[4]);
    expect(run.lines).toEqual([
      `smoke: ${server.url}`, // the slash given after the URL is dropped (bin/cli/options.ts --api)
      `ok    GET /locations: 200, 2 locations of organization ${ORG_A}, first berlin-mall`,
      'ok    GET /locations without a token: 401, refused',
      run.lines[3],
      run.lines[4],
      'ok    POST /reports:query (CSV): 200, header "timestamp,count", 24 rows, the same counts as the JSON',
      'smoke: all 5 checks passed',
    ]);
  });

  test('fails at the first check with a wrong token, saying what came back and why', async () => {
    const other = await ephemeralDevKey();
    const foreign = await mintDevToken(other, { organizationId: ORG_A, claimName: 'custom:organizationId' });

    const run = await smoke('--api', server.url, '--token', foreign);

    expect(run.code).toBe(1);
    expect(run.lines).toEqual([
      `smoke: ${server.url}`,
      expect.stringMatching(
        /^FAIL {2}GET \/locations: expected 200, got 401: \{"type":"\/problems#unauthorized","title":"Unauthorized","status":401,"detail":"The token is invalid\.","requestId":"[0-9a-f-]{36}"\} \(is the token an unexpired ID token for this API\?\)$/,
      ),
      'smoke: failed at check 1 of 5; the later checks did not run',
    ]);
  });

  test('fails clearly when the token’s organization has no location to check', async () => {
    const run = await smoke('--api', server.url, '--token', await token(randomUUID()));

    expect(run.code).toBe(1);
    expect(run.lines[1]).toBe(
      "FAIL  GET /locations: 200, but the token's organization has no location: the smoke test needs one (docs/deploy.md, smoke user)",
    );
  });

  test('fails at the report when the report engine is down, after the checks that still pass', async () => {
    // Prepare: the same server, its report engine pointed at a port nothing listens on.
    provideStore(
      openSearchStore(new Client({ node: 'http://127.0.0.1:9', requestTimeout: 2_000 }), { indexPrefix: prefix }),
    );
    try {
      const run = await smoke('--api', server.url, '--token', await token(ORG_A), '--timeout', '20');

      expect(run.code).toBe(1);
      expect(run.lines.slice(1, 4).map((l) => l.slice(0, 6))).toEqual(['ok    ', 'ok    ', 'ok    ']);
      expect(run.lines[4]).toMatch(/^FAIL {2}POST \/reports:query \(JSON\): expected 200, got 503: \{.*"status":503/);
      expect(run.lines[5]).toBe('smoke: failed at check 4 of 5; the later checks did not run');
    } finally {
      provideStore(openSearchStore(client, { indexPrefix: prefix }));
    }
  });

  test('refuses to start without a token or with an API that is not a URL', async () => {
    expect(await smoke('--api', server.url)).toMatchObject({
      code: 1,
      stderr: 'smoke: a token is needed: --token <jwt> or SMOKE_TOKEN\n',
    });
    const notUrl = await smoke('--api', 'localhost:3000', '--token', 't');
    expect(notUrl.code).toBe(1);
    expect(notUrl.stderr).toContain(
      "option '--api <url>' argument 'localhost:3000' is invalid. must be an http(s) URL",
    );
  });
});
