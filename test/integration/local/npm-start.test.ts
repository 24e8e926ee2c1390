import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm start` as a new user runs it: a fresh data folder, first-start seeding, the banner, and the
 * printed curl commands run by a shell exactly as printed. Then Ctrl-C must stop it cleanly.
 */
const root = join(__dirname, '../../..');
let dataDir: string;
let child: ChildProcess;
let output = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'lrs-npm-start-'));
  child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'bin/local-server.ts'], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Ctrl-C stops the service.')) {
        clearInterval(timer);
        resolve();
      }
    }, 200);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited early (${code}):\n${output}`));
    });
  });
});

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** The banner's `curl` commands, joined across backslash line continuations. */
function printedCurls(): string[] {
  return output
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.startsWith('curl '));
}

describe('npm start', () => {
  test('seeds a fresh data folder and prints a token and three curl examples', () => {
    expect(output).toMatch(/First start: seeding 30 days of data for 3 locations… \d+ movement events/);
    expect(output).toMatch(/export TOKEN=[\w-]+\.[\w-]+\.[\w-]+/);
    expect(printedCurls()).toHaveLength(3);
  });

  test('answers each printed curl command as printed', () => {
    const token = /export TOKEN=(\S+)/.exec(output)?.[1] as string;
    const [locations, live, report] = printedCurls().map((cmd) =>
      execFileSync('bash', ['-c', `${cmd} -w '\\n%{http_code}'`], { env: { ...process.env, TOKEN: token } }).toString(),
    );
    const split = (r = '') => ({ status: r.slice(r.lastIndexOf('\n') + 1), body: r.slice(0, r.lastIndexOf('\n')) });

    expect(split(locations).status).toBe('200');
    expect(JSON.parse(split(locations).body).map((l: { id: string }) => l.id)).toEqual(['berlin-mall', 'nyc-garage', 'tokyo-station']);

    expect(split(live).status).toBe('200');
    expect(JSON.parse(split(live).body)).toEqual({ insights: { occupancy: expect.any(Array) } });

    expect(split(report).status).toBe('200');
    const csv = split(report).body.split('\r\n');
    expect(csv[0]).toBe('timestamp,bicycle,car,person,truck');
    // 30 days up to now, in Berlin days: 30 rows and the trailing empty line.
    expect(csv).toHaveLength(32);
  });

  test('stops cleanly on Ctrl-C (SIGINT) even while a long report runs, and keeps a whole data folder', async () => {
    // Prepare: a report that would run for minutes (every polygon summed in 27,000 overlapping buckets)
    const token = /export TOKEN=(\S+)/.exec(output)?.[1] as string;
    const url = /running at (\S+)/.exec(output)?.[1] as string;
    const buckets = (s: number) => ({ type: 'filters', filters: Object.fromEntries(Array.from({ length: 30 }, (_, j) => [`s${s}b${j}`, { type: 'range', field: 'polygons.value', from: j }])) });
    const report = fetch(`${url}/reports:query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ aggregations: [{ type: 'nested', path: 'polygons' }, buckets(0), buckets(1), buckets(2), { type: 'stats', field: 'polygons.value', sum: true }] }),
    }).then((r) => r.status, () => 'connection closed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Act
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    // Assess: the running query was interrupted (it would otherwise hold the checkpoint for minutes)
    expect(await exited).toBe(0);
    expect(output).toContain('stopped cleanly.');
    expect([503, 'connection closed']).toContain(await report);
  });
});
