import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalService, startLocalService } from '../../../bin/dev/local-service';
import { loadOrCreateDevKey } from '../../../bin/local/auth/dev-key';
import { mintDevToken } from '../../../bin/local/auth/tokens';
import { dataPaths, LOCAL_ORGANIZATION_ID } from '../../../bin/local/config';
import { INGEST_SCOPE, organizationClaim } from '#commons/http/identity';

/**
 * `npm start` as a new user runs it: a fresh data folder, first-start seeding, the banner, and the
 * printed curl commands run by a shell exactly as printed. Then Ctrl-C must stop it cleanly.
 */
let service: LocalService;

beforeAll(async () => {
  // The onboarding walk (docs/onboarding.md) waits for a refresh: every 5 seconds, as it says.
  service = await startLocalService({}, ['--refresh-seconds', '5']);
});

afterAll(() => service?.stop());

/** The banner's `curl` commands, joined across backslash line continuations. */
function printedCurls(): string[] {
  return service
    .output()
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.startsWith('curl '));
}

describe('npm start', () => {
  test('seeds a fresh data folder and prints an admin token and five curl examples', () => {
    const output = service.output();
    expect(output).toMatch(/First start: seeding 30 days of data for 3 locations… \d+ movement events/);
    expect(output).toMatch(/export TOKEN=[\w-]+\.[\w-]+\.[\w-]+/);
    expect(printedCurls()).toHaveLength(5);
  });

  test('answers each printed curl command as printed', () => {
    const { token } = service;
    const [locations, location, live, history, report] = printedCurls().map((cmd) =>
      execFileSync('bash', ['-c', `${cmd} -w '\\n%{http_code}'`], { env: { ...process.env, TOKEN: token } }).toString(),
    );
    const split = (r = '') => ({ status: r.slice(r.lastIndexOf('\n') + 1), body: r.slice(0, r.lastIndexOf('\n')) });

    expect(split(locations).status).toBe('200');
    expect(JSON.parse(split(locations).body).map((l: { id: string; name: string }) => [l.id, l.name])).toEqual([
      ['berlin-mall', 'Berlin Mall'],
      ['nyc-garage', 'NYC Garage'],
      ['tokyo-station', 'Tokyo Station'],
    ]);

    expect(split(location).status).toBe('200');
    expect(
      JSON.parse(split(location).body).sensorGroups.map((g: { name: string; capacity: number }) => [
        g.name,
        g.capacity,
      ]),
    ).toEqual([
      ['Main entrance', 120],
      ['Parking deck', 40],
    ]);

    expect(split(live).status).toBe('200');
    expect(JSON.parse(split(live).body)).toEqual({ insights: { occupancy: expect.any(Array) } });

    // The last 24 whole hours, hourly: 24 buckets for each of berlin-mall's two sensor groups.
    expect(split(history).status).toBe('200');
    const groups = (JSON.parse(split(history).body) as { insights: { occupancy: { buckets: unknown[] }[] } }).insights
      .occupancy;
    expect(groups.map((g) => g.buckets.length)).toEqual([24, 24]);

    expect(split(report).status).toBe('200');
    const csv = split(report).body.split('\r\n');
    expect(csv[0]).toBe('timestamp,localTime,bicycle,car,person,truck');
    // 30 days up to now, in Berlin days: 30 rows and the trailing empty line; each day starts at Berlin's midnight.
    expect(csv).toHaveLength(32);
    expect(csv.slice(1, -1).every((row) => /^[^,]+Z,\d{4}-\d\d-\d\dT00:00:00\+0[12]:00,/.test(row))).toBe(true);
  });

  test('answers the examples the README and docs/local.md mark as runnable on it, with data', () => {
    const root = join(__dirname, '../../..');
    const blocks = ['README.md', 'docs/local.md', 'docs/onboarding.md'].flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/<!-- runs on npm start -->\n```sh\n([\s\S]*?)\n```/g)].map(
        (m) => ({ file, script: m[1]! }),
      ),
    );
    expect(blocks.map((b) => b.file)).toEqual(['README.md', 'docs/local.md', 'docs/onboarding.md']);
    for (const { file, script } of blocks) {
      // As a user runs it: the token the banner printed, this server's port; curl fails on an HTTP error.
      const runnable = script
        .split('\n')
        .filter((line) => !line.startsWith('export TOKEN='))
        .join('\n')
        .replaceAll('http://localhost:3000', service.url)
        .replaceAll('curl -s ', 'curl -sS --fail-with-body ');
      const out = execFileSync('bash', ['-euo', 'pipefail', '-c', runnable], {
        env: { ...process.env, TOKEN: service.token },
      }).toString();
      // Every answer has data: no empty JSON array or object, and the report of days has rows.
      expect({ file, empty: /^\s*(\[\]|\{\})\s*$/m.test(out), length: out.length > 0 }).toEqual({
        file,
        empty: false,
        length: true,
      });
      // The onboarding walk ends with the new site's utilization: 5 in, 1 out, of 20.
      if (file === 'docs/onboarding.md')
        expect(out).toContain(
          '{"insights":{"occupancy":[{"sensorGroup":{"id":1,"name":"Shop floor"},"occupancy":4,"capacity":20,"utilization":0.2}]}}',
        );
    }
    const [readme] = blocks;
    const rows = JSON.parse(
      execFileSync(
        'bash',
        ['-euo', 'pipefail', '-c', readme!.script.replaceAll('http://localhost:3000', service.url)],
        { env: { ...process.env, TOKEN: service.token } },
      ).toString(),
    ) as Record<string, unknown>[];
    // From 00:00 UTC three days ago to now: three whole days, and today unless it has just begun.
    const day = (d: number) =>
      new Date(
        Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() - d),
      ).toISOString();
    expect(rows.map((r) => r.timestamp).slice(0, 3)).toEqual([day(3), day(2), day(1)]);
    expect(rows.slice(3).map((r) => r.timestamp)).toEqual(rows.length > 3 ? [day(0)] : []);
    expect(rows.every((r) => Object.keys(r).length > 1)).toBe(true);
  });

  test('answers GET /health without a token: DuckDB and dynalite answer', async () => {
    const response = await fetch(`${service.url}/health`);
    expect([response.status, response.headers.get('x-request-id')?.length]).toEqual([200, 36]);
    expect(await response.json()).toEqual({ status: 'ok', checks: { engine: 'ok', table: 'ok' } });
  });

  test('a second npm start, or a seed, on its port or its data folder says so in one line and exits 1', () => {
    const run = (script: string, env: Record<string, string>, args: string[] = []) => {
      const r = spawnSync(
        process.execPath,
        [join(__dirname, '../../../node_modules/tsx/dist/cli.mjs'), script, ...args],
        {
          cwd: join(__dirname, '../../..'),
          env: { ...process.env, ...env },
          encoding: 'utf8',
          timeout: 90_000,
        },
      );
      return { status: r.status, stderr: r.stderr.trim() };
    };
    const port = new URL(service.url).port;
    const other = mkdtempSync(join(tmpdir(), 'lrs-other-'));
    try {
      const samePort = run('bin/local-server.ts', { DATA_DIR: other, PORT: port }, ['--no-seed']);
      const sameFolder = run('bin/local-server.ts', { DATA_DIR: service.dataDir, PORT: '0' });
      const seed = run('bin/seed-cli.ts', {}, ['--data-dir', service.dataDir, '--days', '1', '--locations', '1']);
      expect(samePort).toEqual({
        status: 1,
        stderr: `npm start: port ${port} is in use (another npm start?): stop what holds it, or choose another with --port <n> or PORT=<n>`,
      });
      const held = (command: string) =>
        new RegExp(
          `^${command}: the data folder ${service.dataDir} is in use by another process \\(process \\d+\\), a running npm start perhaps: stop it, or use another folder with --data-dir <dir>$`,
        );
      expect(sameFolder).toEqual({ status: 1, stderr: expect.stringMatching(held('npm start')) });
      expect(seed).toEqual({ status: 1, stderr: expect.stringMatching(held('seed')) });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('with its port taken, says so in one line and exits 1 before it seeds a fresh data folder', () => {
    // Prepare: the running service holds its port; a fresh folder, seeding allowed.
    const fresh = mkdtempSync(join(tmpdir(), 'lrs-fresh-'));
    try {
      // Act
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], {
        cwd: join(__dirname, '../../..'),
        env: { ...process.env, DATA_DIR: fresh, PORT: new URL(service.url).port },
        encoding: 'utf8',
        timeout: 90_000,
      });
      // Assess: the one line, and nothing seeded (no database, nothing said of seeding).
      expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({
        status: 1,
        stderr: `npm start: port ${new URL(service.url).port} is in use (another npm start?): stop what holds it, or choose another with --port <n> or PORT=<n>`,
      });
      expect(r.stdout).not.toContain('seeding');
      expect(existsSync(join(fresh, 'reports.duckdb'))).toBe(false);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  /**
   * A report that runs until its 27 s deadline on the seeded data without running out of memory: every
   * polygon summed in 900 overlapping buckets. (Three levels, 27,000 buckets, exhaust DuckDB's 512 MB
   * within a second or two and answer report-too-expensive before any signal is sent.)
   */
  const longReport = (url: string, token: string) => {
    const buckets = (s: number) => ({
      type: 'filters',
      filters: Object.fromEntries(
        Array.from({ length: 30 }, (_, j) => [`s${s}b${j}`, { type: 'range', field: 'polygons.value', from: j }]),
      ),
    });
    return fetch(`${url}/reports:query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        aggregations: [
          { type: 'nested', path: 'polygons' },
          buckets(0),
          buckets(1),
          { type: 'stats', field: 'polygons.value', sum: true },
        ],
      }),
    }).then(
      async (r) => ({
        status: r.status,
        type: r.headers.get('content-type'),
        slug: ((await r.json()) as { type?: string }).type,
      }),
      (e: unknown) => ({ error: String(e) }),
    );
  };
  const interrupted = { status: 503, type: 'application/problem+json', slug: '/problems#engine-unavailable' };
  /** Whether the report is still running: the signal must reach a running report, or the test proves nothing. */
  const running = async (report: Promise<unknown>) => {
    const pending = Symbol('pending');
    return (await Promise.race([report, Promise.resolve(pending)])) === pending;
  };

  test('stops cleanly on Ctrl-C (SIGINT) even while a long report runs, which answers 503, and keeps a whole data folder', async () => {
    // Prepare
    const report = longReport(service.url, service.token);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await running(report)).toBe(true);
    // Act
    const exited = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGINT');
    // Assess: it exits at once, checkpointed, the running report interrupted and answered
    expect(await exited).toBe(0);
    expect(service.output()).toContain('stopped cleanly.');
    expect(await report).toEqual(interrupted);
  });

  test('on SIGTERM, a running report is answered 503 problem+json before the connection closes', async () => {
    // Prepare: npm start again on the data folder the previous test left whole (nothing to seed)
    const again = await startLocalService({}, [], { dataDir: service.dataDir });
    try {
      const report = longReport(again.url, again.token);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await running(report)).toBe(true);
      // Act
      const exited = new Promise<number | null>((resolve) => again.child.once('exit', resolve));
      again.child.kill('SIGTERM');
      // Assess
      expect(await exited).toBe(0);
      expect(await report).toEqual(interrupted);
    } finally {
      await again.stop();
    }
  });

  test('on SIGTERM, every ingest batch in flight is answered, 200 or 503 with Retry-After, none dropped with its connection', async () => {
    // Prepare: npm start again on the same folder; eight batches of 10,000 events at once.
    const again = await startLocalService({}, [], { dataDir: service.dataDir });
    try {
      const key = await loadOrCreateDevKey(dataPaths(again.dataDir).devKey);
      const token = await mintDevToken(key, {
        organizationId: LOCAL_ORGANIZATION_ID,
        claimName: organizationClaim(),
        scopes: [INGEST_SCOPE],
      });
      const batch = (k: number) =>
        Array.from({ length: 10_000 }, (_, i) =>
          JSON.stringify({
            id: `sigterm-${k}-${i}`,
            locationId: 'berlin-mall',
            label: 'person',
            timestamp: new Date(Date.now() - i * 1000).toISOString(),
            crossedPaths: [{ id: 'entrance', end: 'A' }],
          }),
        ).join('\n');
      const answers = Array.from({ length: 8 }, (_, k) =>
        fetch(`${again.url}/ingest/movementEvents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body: batch(k),
        }).then(
          async (r) => ({
            status: r.status,
            retryAfter: r.headers.get('retry-after'),
            whole: (await r.text()).length > 0,
          }),
          (e: { cause?: { code?: string } }) => ({ dropped: e.cause?.code ?? String(e) }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Act
      const exited = new Promise<number | null>((resolve) => again.child.once('exit', resolve));
      again.child.kill('SIGTERM');
      // Assess
      expect(await exited).toBe(0);
      const written = { status: 200, retryAfter: null, whole: true };
      const refused = { status: 503, retryAfter: '5', whole: true };
      for (const answer of await Promise.all(answers)) expect([written, refused]).toContainEqual(answer);
    } finally {
      await again.stop();
    }
  });
});
