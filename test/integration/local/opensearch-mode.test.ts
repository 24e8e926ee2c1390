import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyImport, validateImportFile } from '#shared/locations/import';
import { loadOrCreateDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken } from '../../../bin/local/auth/tokens';
import { ORG_A, ORG_B, importFile } from '../../fixtures/locations';
import { type LocalService, startLocalService } from '../../../bin/dev/local-service';
import { createTestTable, type TestTable } from '../locations/table';
import { startTlsFront, type TlsFront } from '../stack/aws-endpoints';
import { deleteIndices, testClient, uniquePrefix } from '../support/opensearch';

/**
 * `npm start -- --opensearch-url URL --dynamodb-endpoint URL --table NAME`: the same handlers on the
 * suite's OpenSearch node and DynamoDB Local, documents loaded with the ingest CLI, once by URL and
 * once by `--domain`, whose endpoint the CLI asks Amazon OpenSearch Service for (DescribeDomain).
 * That one control-plane call is answered by a stand-in (AWS_ENDPOINT_URL_OPENSEARCH); the CLI then
 * talks https with SigV4 to the node through a TLS front, as it would to a domain.
 */
const ROOT = join(__dirname, '../../..');
const OPENSEARCH_URL = process.env.OPENSEARCH_URL as string;
const DOMAIN = 'lrs-test';
const REGION = 'eu-west-1';
const client = testClient();
const prefix = uniquePrefix('osmode');

const event = (org: string, locationId: string, label: string, timestamp: string) => ({
  organizationId: org,
  locationId,
  trackingCameraId: 'cam-1',
  label,
  timestamp,
  crossedPaths: [{ id: 'door-north', end: 'A' }],
  polygons: [],
});

let dir: string;
let table: TestTable;
let tls: TlsFront;
let controlPlane: Server;
const describeDomainCalls: { path: string; authorization: string }[] = [];
let service: LocalService;

/** The one Amazon OpenSearch Service call the CLIs make, answered for one domain: its endpoint is the TLS front. */
async function startControlPlane(endpoint: string): Promise<string> {
  controlPlane = createServer((req: IncomingMessage, res) => {
    describeDomainCalls.push({ path: req.url ?? '', authorization: req.headers.authorization ?? '' });
    req.resume();
    if (req.method === 'GET' && req.url === `/2021-01-01/opensearch/domain/${DOMAIN}`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          DomainStatus: {
            ARN: `arn:aws:es:${REGION}:000000000000:domain/${DOMAIN}`,
            DomainId: `000000000000/${DOMAIN}`,
            DomainName: DOMAIN,
            Endpoint: endpoint,
            Created: true,
            Deleted: false,
            Processing: false,
            ClusterConfig: {},
          },
        }),
      );
      return;
    }
    res
      .writeHead(409, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' })
      .end(JSON.stringify({ message: 'Domain not found' }));
  });
  await new Promise<void>((resolve) => controlPlane.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(controlPlane.address() as AddressInfo).port}`;
}

function cli(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), `bin/${script}.ts`, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function ndjson(name: string, docs: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${docs.map((d) => JSON.stringify(d)).join('\n')}\n`);
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lrs-osmode-'));
  table = await createTestTable('osmode');
  await applyImport(table.store, validateImportFile(importFile), {
    now: new Date('2024-01-01T00:00:00Z'),
    actor: null,
  });
  tls = await startTlsFront('opensearch', OPENSEARCH_URL);
  const controlPlaneUrl = await startControlPlane(`127.0.0.1:${new URL(tls.url).port}`);

  // Two days of org A's events (one of them at nyc-store), and one of org B's that no answer may show.
  const byUrl = await cli('ingest-cli', [
    '--source',
    'movementEvents',
    '--opensearch-url',
    OPENSEARCH_URL,
    '--index-prefix',
    prefix,
    ndjson('a.ndjson', [
      event(ORG_A, 'berlin-mall', 'car', '2024-03-01T08:00:00Z'),
      event(ORG_A, 'berlin-mall', 'person', '2024-03-01T09:30:00Z'),
      event(ORG_A, 'nyc-store', 'car', '2024-03-02T10:00:00Z'),
      event(ORG_B, 'berlin-mall', 'bus', '2024-03-01T08:00:00Z'),
    ]),
  ]);
  const domainEnv = {
    AWS_ENDPOINT_URL_OPENSEARCH: controlPlaneUrl,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    NODE_EXTRA_CA_CERTS: tls.caFile,
    AWS_PROFILE: '',
  };
  const byDomain = await cli(
    'ingest-cli',
    [
      '--source',
      'movementEvents',
      '--domain',
      DOMAIN,
      '--region',
      REGION,
      '--index-prefix',
      prefix,
      ndjson('b.ndjson', [
        event(ORG_A, 'berlin-mall', 'truck', '2024-03-02T11:00:00Z'),
        event(ORG_A, 'berlin-mall', 'car', '2024-03-02T23:30:00Z'),
      ]),
    ],
    domainEnv,
  );
  const unknownDomain = await cli(
    'ingest-cli',
    ['--source', 'movementEvents', '--domain', 'nope', '--region', REGION, join(dir, 'b.ndjson')],
    domainEnv,
  );
  expect([byUrl, byDomain].map((r) => [r.code, r.stdout.trim().split('\n').at(-1)])).toEqual([
    [0, `OpenSearch ${OPENSEARCH_URL} (prefix '${prefix}'): 4 documents written, 0 refused`],
    [0, `OpenSearch https://127.0.0.1:${new URL(tls.url).port} (prefix '${prefix}'): 2 documents written, 0 refused`],
  ]);
  expect([unknownDomain.code, unknownDomain.stderr.trim()]).toEqual([
    1,
    `ingest: no OpenSearch Service domain named 'nope' in ${REGION}`,
  ]);
  await client.indices.refresh({ index: `${prefix}*` });

  service = await startLocalService({}, [
    '--opensearch-url',
    OPENSEARCH_URL,
    '--index-prefix',
    prefix,
    '--dynamodb-endpoint',
    process.env.DYNAMODB_ENDPOINT as string,
    '--table',
    table.name,
  ]);
});

afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => controlPlane?.close(resolve));
  await tls?.close();
  await table?.drop();
  await deleteIndices(client, prefix);
  rmSync(dir, { recursive: true, force: true });
});

const call = async (path: string, init: RequestInit = {}, org = ORG_A) => {
  const token = await mintDevToken(await loadOrCreateDevKey(join(service.dataDir, 'dev-key.json')), {
    organizationId: org,
    claimName: 'custom:organizationId',
  });
  return fetch(service.url + path, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
};

const dailyByLabel = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    filters: [{ type: 'range', field: 'timestamp', from: '2024-03-01T00:00:00Z', to: '2024-03-03T00:00:00Z' }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
    ],
    ...extra,
  });

describe('npm start on a real OpenSearch and DynamoDB', () => {
  test('says where it serves from and seeds nothing there', () => {
    expect(service.output()).toContain(
      `reports: OpenSearch ${OPENSEARCH_URL} (index prefix '${prefix}'); locations: DynamoDB table ${table.name} at ${process.env.DYNAMODB_ENDPOINT}`,
    );
    expect(service.output()).not.toContain('First start: seeding');
  });

  test('lists the locations of the DynamoDB table', async () => {
    const response = await call('/locations');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string; type: string }[]).map((l) => [l.id, l.type])).toEqual([
      ['berlin-mall', 'shopping-mall'],
      ['nyc-store', 'store'],
    ]);
  });

  test('answers a report from the documents loaded by URL and by domain, for the token’s organization only', async () => {
    // Day 1: car (e1) and person (e2) at berlin-mall; org B's bus is not counted.
    // Day 2: car at nyc-store, truck and the 23:30 car at berlin-mall (the last two loaded through --domain).
    const response = await call('/reports:query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: dailyByLabel(),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      '[{"timestamp":"2024-03-01T00:00:00.000Z","car":1,"person":1},{"timestamp":"2024-03-02T00:00:00.000Z","car":2,"truck":1}]',
    );
  });

  test('answers the same report narrowed to one location as CSV', async () => {
    const response = await call('/reports:query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/csv' },
      body: dailyByLabel({ locationIds: ['berlin-mall'] }),
    });
    expect(await response.text()).toBe(
      'timestamp,car,person,truck\r\n2024-03-01T00:00:00.000Z,1,1,0\r\n2024-03-02T00:00:00.000Z,1,0,1\r\n',
    );
  });

  test('builds the rollups and reads them, as in AWS: Server-Timing says so, the same bytes', async () => {
    const report = () =>
      call('/reports:query', { method: 'POST', headers: { 'content-type': 'application/json' }, body: dailyByLabel() });
    const whole = 'source;desc="rollup", rollup-window;desc="2024-03-01T00:00:00.000Z/2024-03-03T00:00:00.000Z"';
    let timing = '';
    // The server's first rebuild marks the documents stored before it, then builds them (every 2 s).
    for (let tries = 0; tries < 60 && timing !== whole; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
      timing = (await report()).headers.get('server-timing') ?? '';
    }
    const response = await report();
    expect(response.headers.get('server-timing')).toBe(whole);
    expect(await response.text()).toBe(
      '[{"timestamp":"2024-03-01T00:00:00.000Z","car":1,"person":1},{"timestamp":"2024-03-02T00:00:00.000Z","car":2,"truck":1}]',
    );
  }, 90_000);

  test('with --no-rollups reads the documents only: no Server-Timing, the same bytes', async () => {
    const plain = await startLocalService({}, [
      '--opensearch-url',
      OPENSEARCH_URL,
      '--index-prefix',
      prefix,
      '--dynamodb-endpoint',
      process.env.DYNAMODB_ENDPOINT as string,
      '--table',
      table.name,
      '--no-rollups',
    ]);
    try {
      const token = await mintDevToken(await loadOrCreateDevKey(join(plain.dataDir, 'dev-key.json')), {
        organizationId: ORG_A,
        claimName: 'custom:organizationId',
      });
      const response = await fetch(`${plain.url}/reports:query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: dailyByLabel(),
      });
      expect([response.status, response.headers.get('server-timing')]).toEqual([200, null]);
      expect(await response.text()).toBe(
        '[{"timestamp":"2024-03-01T00:00:00.000Z","car":1,"person":1},{"timestamp":"2024-03-02T00:00:00.000Z","car":2,"truck":1}]',
      );
    } finally {
      await plain.stop();
    }
  }, 90_000);

  test('resolved the domain with one signed DescribeDomain call per CLI run', () => {
    expect(describeDomainCalls.map((c) => c.path)).toEqual([
      `/2021-01-01/opensearch/domain/${DOMAIN}`,
      '/2021-01-01/opensearch/domain/nope',
    ]);
    for (const c of describeDomainCalls)
      expect(c.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=test/\\d{8}/${REGION}/es/aws4_request`));
  });
});
