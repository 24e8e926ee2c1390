import { execFileSync } from 'node:child_process';
import { type LocalService, startLocalService } from '../../../bin/dev/local-service';

/**
 * `npm start` as a new user runs it: a fresh data folder, first-start seeding, the banner, and the
 * printed curl commands run by a shell exactly as printed. Then Ctrl-C must stop it cleanly.
 */
let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
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
  test('seeds a fresh data folder and prints a token and three curl examples', () => {
    const output = service.output();
    expect(output).toMatch(/First start: seeding 30 days of data for 3 locations… \d+ movement events/);
    expect(output).toMatch(/export TOKEN=[\w-]+\.[\w-]+\.[\w-]+/);
    expect(printedCurls()).toHaveLength(3);
  });

  test('answers each printed curl command as printed', () => {
    const { token } = service;
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

  test('answers GET /health without a token: DuckDB and dynalite answer', async () => {
    const response = await fetch(`${service.url}/health`);
    expect([response.status, response.headers.get('x-request-id')?.length]).toEqual([200, 36]);
    expect(await response.json()).toEqual({ status: 'ok', checks: { engine: 'ok', table: 'ok' } });
  });

  test('stops cleanly on Ctrl-C (SIGINT) even while a long report runs, and keeps a whole data folder', async () => {
    // Prepare: a report that would run for minutes (every polygon summed in 27,000 overlapping buckets)
    const buckets = (s: number) => ({ type: 'filters', filters: Object.fromEntries(Array.from({ length: 30 }, (_, j) => [`s${s}b${j}`, { type: 'range', field: 'polygons.value', from: j }])) });
    const report = fetch(`${service.url}/reports:query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ aggregations: [{ type: 'nested', path: 'polygons' }, buckets(0), buckets(1), buckets(2), { type: 'stats', field: 'polygons.value', sum: true }] }),
    }).then((r) => r.status, () => 'connection closed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Act
    const exited = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGINT');
    // Assess: it exits at once, checkpointed, the running report interrupted or cut
    expect(await exited).toBe(0);
    expect(service.output()).toContain('stopped cleanly.');
    expect([503, 'connection closed']).toContain(await report);
  });
});
