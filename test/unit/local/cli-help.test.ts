import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `--help` on every command in bin/ prints its help and exits 0 without doing anything: nothing
 * written in the working folder, the data folder, the temporary folder (where a CDK app would put
 * its cloud assembly), nor openapi.json; no server left listening (the run must end by itself).
 * Each runs as a user runs it: a process of its own, through tsx.
 */
const ROOT = join(__dirname, '../../..');
/** Every npm script that runs a command of bin/ (so a new one cannot be forgotten), and the two CDK apps. */
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
  .scripts;
const CLIS = [
  ...Object.values(SCRIPTS).flatMap((line) => /^(?:tsx|node --import tsx) bin\/([\w-]+)\.ts$/.exec(line)?.[1] ?? []),
  'ci-access',
  'app',
];

let sandbox: string;
beforeAll(() => {
  sandbox = mkdtempSync(join(tmpdir(), 'lrs-help-'));
});
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

function run(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // A command that starts instead of answering is killed at the timeout and fails on its exit code.
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bin', `${script}.ts`), '--help'],
      { cwd, env, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

test('covers every command of package.json', () => {
  expect(CLIS).toEqual(
    expect.arrayContaining([
      'local-server',
      'seed-cli',
      'ingest-cli',
      'ingest-client',
      'retention-cli',
      'erase-organization',
      'smoke',
    ]),
  );
});

describe.each(CLIS)('bin/%s.ts --help', (script) => {
  test('prints its usage and exits 0, writing nothing', async () => {
    // Prepare
    const cwd = join(sandbox, script, 'cwd');
    const temp = join(sandbox, script, 'tmp');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(temp, { recursive: true });
    const openApiWritten = statSync(join(ROOT, 'openapi.json')).mtimeMs;
    const { CDK_OUTDIR: _, ...inherited } = process.env;
    // Act
    const result = await run(script, cwd, {
      ...inherited,
      TMPDIR: temp,
      DATA_DIR: join(cwd, '.data'),
      DEV_KEY_FILE: join(cwd, 'dev-key.json'),
    });
    // Assess: tsx keeps its compile cache in the temporary folder (tsx-<uid>); nothing else may appear.
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: \S+ \[options\]/);
    expect(result.stdout).toContain('-h, --help');
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(temp).filter((name) => !name.startsWith('tsx-'))).toEqual([]);
    expect(statSync(join(ROOT, 'openapi.json')).mtimeMs).toBe(openApiWritten);
  });
});
