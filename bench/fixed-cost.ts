import { loadavg } from 'node:os';
import { startLocalService } from '../bin/dev/local-service';
import { machine, median } from './stats';

/**
 * `npm run bench -- fixed-cost` (issue 35, goal 1): a report's fixed cost on `npm start`, measured
 * from outside with the report cache off (`--no-report-cache`), as ratios to `GET /locations` asked
 * of the same server in the same run: a 1-hour count by label and the 30-day daily × label ×
 * direction (the lines' `crossedPaths.end`: in or out) report, both answered from the rollups (checked on the
 * `Server-Timing` source). The requests are asked one after another, alternating, so that a change of load falls on all
 * alike. `BENCH_FIXED_COST_PROFILE=<dir>` runs the server with `--cpu-prof` into that folder.
 */
const ROUNDS = 21;

export async function benchFixedCost(): Promise<void> {
  console.log(`machine: ${await machine()}`);
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`load before: ${load()}`);
  const profile = process.env.BENCH_FIXED_COST_PROFILE;
  const service = await startLocalService({ LOG_REQUESTS: '' }, ['--no-report-cache'], {
    ...(profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {}),
  });
  try {
    const auth = { authorization: `Bearer ${service.token}` };
    const hour = 3_600_000;
    const day = 24 * hour;
    const now = Math.floor(Date.now() / hour) * hour;
    const range = (from: number, to: number) => ({
      type: 'range',
      field: 'timestamp',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
    });
    // Hours and days well before now: the rollups' rebuild has covered them when the seed is done.
    const reports = {
      'a 1-hour count by label': {
        filters: [range(now - 26 * hour, now - 25 * hour)],
        aggregations: [{ type: 'terms', field: 'label' }],
      },
      '30 days daily × label × direction': {
        filters: [range(Math.floor(now / day) * day - 31 * day, Math.floor(now / day) * day - day)],
        aggregations: [
          { type: 'dateHistogram', interval: '1d' },
          { type: 'terms', field: 'label' },
          { type: 'nested', path: 'crossedPaths' },
          { type: 'terms', field: 'crossedPaths.end' },
        ],
      },
    } as const;
    const timed = async (ask: () => Promise<Response>): Promise<{ ms: number; response: Response }> => {
      const started = performance.now();
      const response = await ask();
      const body = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`answered ${response.status}: ${body}`);
      return { ms, response };
    };
    const locations = () => timed(() => fetch(`${service.url}/locations`, { headers: auth }));
    const report = (body: object) =>
      timed(() =>
        fetch(`${service.url}/reports:query`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    // Until both reports come from the rollups (the first rebuild runs after the seed).
    for (let tries = 0; ; tries++) {
      const sources = await Promise.all(
        Object.values(reports).map(async (r) => (await report(r)).response.headers.get('server-timing') ?? ''),
      );
      if (sources.every((s) => s.startsWith('source;desc="rollup"'))) break;
      if (tries > 120) throw new Error(`the reports are not answered from rollups: ${sources.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const times: Record<string, number[]> = { 'GET /locations': [] };
    for (const name of Object.keys(reports)) times[name] = [];
    for (let i = 0; i < 5; i++) {
      await locations();
      for (const r of Object.values(reports)) await report(r);
    }
    for (let round = 0; round < ROUNDS; round++) {
      times['GET /locations']?.push((await locations()).ms);
      for (const [name, r] of Object.entries(reports)) times[name]?.push((await report(r)).ms);
    }
    const base = median(times['GET /locations'] ?? []);
    for (const [name, ms] of Object.entries(times)) {
      const m = median(ms);
      console.log(`${name}: median ${m.toFixed(2)} ms (${ms.length}), ${(m / base).toFixed(1)}× GET /locations`);
    }
  } finally {
    await service.stop();
    console.log(`load after: ${load()}`);
  }
}
