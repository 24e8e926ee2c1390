import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import autocannon, { type Result } from 'autocannon';
import { startLocalService, type LocalService } from '../bin/dev/local-service';
import { machine, median } from './stats';

/**
 * `npm run bench -- local-throughput` (issue 13): requests a second that `npm start` answers at 10
 * connections, side by side with a bare Node HTTP server answering a constant body (the same
 * `GET /locations` body), each target measured in alternation so that the ratio comes from one run.
 * Goals: ≥ 3,000 req/s for GET /locations and live insights, ≥ 300 req/s for a 30-day daily × label
 * report on the seeded data. Also measured: the same report with the report cache off (every request
 * runs on DuckDB), so the cache's share is visible.
 */
const CONNECTIONS = 10;
const WARM_UP_S = 2;
const DURATION_S = 8;
const ROUNDS = 2;

interface Target {
  readonly name: string;
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly goal?: number;
}

export async function benchLocalThroughput(): Promise<void> {
  console.log(`machine: ${await machine()}`);
  console.log(`load before: ${load()}`);
  let service = await startLocalService({ LOG_REQUESTS: '' });
  let bare: ChildProcess | undefined;
  try {
    const auth = { authorization: `Bearer ${service.token}` };
    const locationsBody = await (await fetch(`${service.url}/locations`, { headers: auth })).text();
    const bareServer = await startBareServer(locationsBody);
    bare = bareServer.child;
    const report = reportTarget(service, 'report 30 d daily × label', 300);
    const targets: Target[] = [
      { name: 'bare Node server (constant body)', url: bareServer.url },
      { name: 'GET /locations', url: `${service.url}/locations`, headers: auth, goal: 3000 },
      {
        name: 'GET live insights',
        url: `${service.url}/locations/berlin-mall/insights/live?filter=occupancy`,
        headers: auth,
        goal: 3000,
      },
      report,
    ];
    const results = await measure(targets);
    await service.stop();

    // The same report with every request run on DuckDB.
    service = await startLocalService({ LOG_REQUESTS: '' }, ['--no-report-cache']);
    const uncached = reportTarget(service, 'report, cache off (DuckDB every time)');
    const second = await measure([targets[0] as Target, uncached]);
    print([...results, ...second.slice(1)], results[0]?.rps ?? NaN, second[0]?.rps ?? NaN);
  } finally {
    bare?.kill();
    await service.stop();
    console.log(`load after: ${load()}`);
  }
}

function reportTarget(service: LocalService, name: string, goal?: number): Target {
  const day = 86_400_000;
  const today = Math.floor(Date.now() / day) * day;
  return {
    name,
    url: `${service.url}/reports:query`,
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      filters: [
        {
          type: 'range',
          field: 'timestamp',
          from: new Date(today - 30 * day).toISOString(),
          to: new Date(today).toISOString(),
        },
      ],
      aggregations: [
        { type: 'dateHistogram', interval: '1d' },
        { type: 'terms', field: 'label' },
      ],
    }),
    ...(goal ? { goal } : {}),
  };
}

interface Measured {
  readonly target: Target;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

/** Each target in turn, ROUNDS times (after a warm-up each time); the median of its rounds. */
async function measure(targets: readonly Target[]): Promise<Measured[]> {
  const runs = new Map<Target, Result[]>(targets.map((t) => [t, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) {
      const options = {
        url: target.url,
        connections: CONNECTIONS,
        method: target.method ?? 'GET',
        headers: target.headers ?? {},
        ...(target.body ? { body: target.body } : {}),
      };
      await autocannon({ ...options, duration: WARM_UP_S });
      const result = await autocannon({ ...options, duration: DURATION_S });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      runs.get(target)?.push(result);
    }
  }
  return targets.map((target) => {
    const r = runs.get(target) as Result[];
    return {
      target,
      rps: median(r.map((x) => x.requests.average)),
      p50: median(r.map((x) => x.latency.p50)),
      p99: median(r.map((x) => x.latency.p99)),
    };
  });
}

function print(rows: readonly Measured[], bare: number, bareSecond: number): void {
  console.log(
    `\n${CONNECTIONS} connections, ${ROUNDS} × ${DURATION_S} s per target (after ${WARM_UP_S} s of warm-up), medians`,
  );
  console.log('| target | req/s | ÷ bare server | p50 | p99 | goal |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [i, { target, rps, p50, p99 }] of rows.entries()) {
    // The last row was measured beside the second bare run.
    const against = i === rows.length - 1 ? bareSecond : bare;
    const goal = target.goal
      ? `≥ ${target.goal.toLocaleString('en-US')}: ${rps >= target.goal ? 'met' : 'not met'}`
      : '';
    console.log(
      `| ${target.name} | ${Math.round(rps).toLocaleString('en-US')} | ${(rps / against).toFixed(3)} | ${p50} ms | ${p99} ms | ${goal} |`,
    );
  }
  console.log(`(bare server in the second run: ${Math.round(bareSecond).toLocaleString('en-US')} req/s)`);
}

/** A Node HTTP server in a process of its own (as npm start is), answering `body` to every request. */
async function startBareServer(body: string): Promise<{ url: string; child: ChildProcess }> {
  const code = `const body = Buffer.from(process.env.BODY);
require('node:http').createServer((req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body); })
  .listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], {
    env: { ...process.env, BODY: body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (c) => reject(new Error(`the bare server exited (${c})`)));
  });
  return { url: `http://127.0.0.1:${port}/`, child };
}

const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
