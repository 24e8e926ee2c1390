import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken } from '../../../bin/local/auth/tokens';
import { startLocalServer, type LocalServer } from '../../../bin/local/server';
import { provideStore } from '#commons/clients/store';
import { openApiDocument } from '#shared/openapi/document';
import { parseDocument } from '#shared/documents/documents';
import { duckDbStore, openDuckDb } from '#shared/stores/duckdb/store';
import { ingestDocuments } from '#shared/stores/duckdb/write';
import { COLLECTIONS } from '#shared/documents/fields';
import { FIXTURE_DOCUMENTS, ORG_A } from '../../fixtures/documents';

/**
 * A client generated from the OpenAPI document, as a customer would make one: openapi-typescript
 * writes the types (its CLI, offline), openapi-fetch calls the API, and tsc compiles the program.
 * The programs live in a folder under node_modules/.cache, so that `openapi-fetch` resolves from
 * the project's node_modules, for tsc and for node alike.
 */
const ROOT = join(__dirname, '../../..');
/** Node on `args`, asynchronously: the program calls the server this process runs. */
const run = (args: readonly string[], cwd: string, env: Record<string, string> = {}) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 240_000 },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

/** Builds a report request with the generated types and runs it; prints the answer, or the problem's type. */
const REPORT_PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

type ReportRequest = components['schemas']['ReportRequest'];

const dailyByLabel: ReportRequest = {
  source: 'movementEvents',
  locationIds: ['loc-berlin'],
  filters: [{ type: 'range', field: 'timestamp', from: '2024-03-29T00:00:00Z', to: '2024-04-01T00:00:00Z' }],
  aggregations: [{ type: 'dateHistogram', interval: '1d' }, { type: 'terms', field: 'label' }],
};

const client = createClient<paths>({ baseUrl: process.env.LRS_URL, headers: { Authorization: 'Bearer ' + process.env.LRS_TOKEN } });
const { data, error } = await client.POST('/reports:query', { body: dailyByLabel });
// An error is a problem (the service's), or API Gateway's own { message } when deployed.
if (error) throw new Error('type' in error ? error.detail : error.message);
const { error: refused } = await client.POST('/reports:query', { body: { aggregations: [{ type: 'stats', field: 'label' }] } });
if (!refused || !('type' in refused)) throw new Error('expected a problem');
// The problem type is an enum: comparing it with a type the document does not list would not compile.
const invalid: boolean = refused.type === '/problems#validation';
console.log(JSON.stringify({ data, invalid, type: refused.type, at: refused.errors?.map((e) => e.path) }));
`;

/** The same request with a field name misspelled: must not compile. */
const MISSPELLED_PROGRAM = `
import type { components } from './api';

export const byLabel: components['schemas']['ReportRequest'] = {
  aggregations: [{ type: 'terms', field: 'lable' }],
};
`;

let dir: string;
let db: DuckDBInstance;
let server: LocalServer;
let token: string;

beforeAll(async () => {
  // Prepare: the types, the two programs, and the local server over the fixtures on the embedded engine.
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  dir = mkdtempSync(join(ROOT, 'node_modules/.cache/lrs-openapi-client-'));
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(openApiDocument()));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'report.ts'), REPORT_PROGRAM);
  writeFileSync(join(dir, 'misspelled.ts'), MISSPELLED_PROGRAM);
  const compilerOptions = {
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'out',
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['report.ts'] }));
  writeFileSync(
    join(dir, 'tsconfig.misspelled.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ['misspelled.ts'] }),
  );
  const generated = await run(
    [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '--output', 'api.d.ts'],
    dir,
  );
  if (generated.status !== 0) throw new Error(`openapi-typescript failed: ${generated.stderr}`);

  db = await openDuckDb(':memory:');
  for (const c of COLLECTIONS)
    await ingestDocuments(db, c, FIXTURE_DOCUMENTS[c].map((d) => parseDocument(c, d)) as never);
  provideStore(duckDbStore(db));
  const key = await ephemeralDevKey();
  token = await mintDevToken(key, { organizationId: ORG_A, claimName: 'custom:organizationId' });
  server = await startLocalServer({ port: 0, devKey: key, openApi: openApiDocument() });
});

afterAll(async () => {
  await server?.close();
  db?.closeSync();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a TypeScript client generated from the OpenAPI document', () => {
  test('compiles a program that builds a report request, and runs it against the local server', async () => {
    // Act
    const compiled = await run([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
    expect(compiled.stdout + compiled.stderr).toBe('');
    const ran = await run(['out/report.js'], dir, { LRS_URL: server.url, LRS_TOKEN: token });
    // Assess: Berlin, org A, Mar 29 to 31 (UTC days): me-01 car (29th); me-02 car and me-03 person
    // (00:30+01:00 is 23:30Z on the 30th); me-04 truck, me-05 car (03:00+02:00 is 01:00Z),
    // me-06 person (31st), and me-07 without a label. org B's car of the 30th is not the caller's.
    // The second request asks stats of a keyword field: a 400 at its field.
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({
      data: [
        { timestamp: '2024-03-29T00:00:00.000Z', car: 1 },
        { timestamp: '2024-03-30T00:00:00.000Z', car: 1, person: 1 },
        { timestamp: '2024-03-31T00:00:00.000Z', car: 1, person: 1, truck: 1 },
      ],
      invalid: true,
      type: '/problems#validation',
      at: ['/aggregations/0/field'],
    });
    // Two runs of tsc and one of the client: past the default 120 s only on a machine loaded far past its cores.
  }, 300_000);

  test('gets problem types that resolve, against the address of the API, to their section of the problems page', async () => {
    // Act: RFC 9457 resolves a relative type against the request's URL.
    const url = new URL('/problems#validation', `${server.url}/reports:query`);
    const page = await fetch(url);
    // Assess
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await page.text()).toContain(`<section id="${url.hash.slice(1)}">`);
  });

  test('refuses to compile a request whose field name is misspelled, naming it', async () => {
    // Act
    const compiled = await run([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.misspelled.json'], dir);
    // Assess: one error, at the misspelled field, that names it (and tsc even suggests the right one).
    expect(compiled.status).not.toBe(0);
    const errors = compiled.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^misspelled\.ts\(5,35\): error TS\d+: Type '"lable"' is not assignable to type '[^']*"label"[^']*'\. Did you mean '"label"'\?$/,
    );
  });
});
