import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_ENTRY_FILE, esbuildOptions } from '../../../lib/bundling';
import { PROJECT_ROOT } from '../../../lib/stack';

/**
 * lib/bundling.ts leaves the credential providers after `fromEnv` out of the Lambda bundles. This
 * builds an entry with the same options and checks, in a fresh node process, that the bundled SDK
 * client and default chain resolve the credentials Lambda puts in the environment.
 */
const dir = mkdtempSync(join(tmpdir(), 'bundle-credentials-'));
let entry = '';

beforeAll(async () => {
  await build({
    ...esbuildOptions(resolve(__dirname, 'fixtures/credentials-entry.ts'), dir),
    absWorkingDir: PROJECT_ROOT,
  });
  entry = pathToFileURL(join(dir, BUNDLE_ENTRY_FILE)).href;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(env: Record<string, string>): { status: number | null; out: string } {
  const script = `import(${JSON.stringify(entry)}).then((m) => m.resolveCredentials()).then((ids) => console.log(ids.join(' ')), (e) => { console.log(String(e.message)); process.exit(3); })`;
  // Run from the temporary directory: nothing left out of the bundle can be found in a node_modules there.
  const child = spawnSync(process.execPath, ['-e', script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, out: child.stdout.trim() };
}

describe('Lambda bundles and the SDK credential chain', () => {
  test('resolve the function role credentials Lambda puts in the environment', () => {
    const env = {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDLAMBDAROLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
    };
    expect(run(env)).toEqual({ status: 0, out: 'AKIDLAMBDAROLE AKIDLAMBDAROLE' });
  });

  test('fail, rather than find other credentials, where the environment has none (the providers after fromEnv are not bundled)', () => {
    const result = run({ AWS_REGION: 'eu-west-1' });
    expect(result.status).toBe(3);
    expect(result.out).toMatch(/Cannot find (package|module) '@aws-sdk\/credential-provider-(sso|ini)'/);
  });
});
