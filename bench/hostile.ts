import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@opensearch-project/opensearch';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { loadOrCreateDevKey } from '../bin/local/auth/dev-key';
import { mintDevToken } from '../bin/local/auth/tokens';
import { OpenSearchEngine } from '#shared/stores/opensearch/store';
import { RESPONSE_MARGIN_MS } from '../functions/commons/http/answer-deadline';
import { createQueryReportHandler } from '../functions/query-report';
import { httpEvent } from '../bin/dev/lambda-events';
import { startOpenSearch } from '../bin/dev/opensearch-node';
import { dbPath as duckDbBenchFile, ingest as ensureDuckDbBenchFile, seedOptions } from './duckdb';
import { HOSTILE_CASES, HOSTILE_ORG, type HostileCase } from './hostile-cases';
import { benchFineHistograms } from './hostile-fine';
import { ensureBenchEvents } from './opensearch-data';
import { machine, median } from './stats';

/**
 * Issue 12 benchmark: the hostile reports (bench/hostile-cases.ts) and one ordinary report for
 * comparison, against
 *
 * - the local server (`bin/local-server.ts`, the very process `npm start` runs) over the 10M-event
 *   DuckDB set of bench/duckdb.ts (copied into its own data folder), each report over real HTTP,
 *   while the server's memory is read from /proc: its peak RSS is reset before each request
 *   (`/proc/<pid>/clear_refs` 5) and read after (VmHWM), against its RSS just before (idle);
 * - OpenSearch: the same documents in one-shard monthly indices (kept in
 *   /var/tmp/lrs-bench-hostile-opensearch), each report through the query Lambda handler.
 *
 * Goal: every report answered 200, 422 or 503 within 5 s, the server's peak RSS at most 1 GB over
 * idle. Both run with a 6.5 s function timeout (FUNCTION_TIMEOUT_SECONDS, 29 s by default), hence a
 * 4.5 s report deadline, so that a report that reaches it is answered within the goal.
 * BENCH_RUNS (default 3) runs per case; BENCH_HOSTILE_OPENSEARCH_EVENTS (default: all of the DuckDB
 * set's) documents on OpenSearch; BENCH_HOSTILE_SKIP, a comma-separated list of opensearch, duckdb and
 * fine (issue 20's fine-histogram split reports on `npm start`: ./hostile-fine.ts), skips those.
 */
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const FUNCTION_TIMEOUT_SECONDS = 6.5;
const DATA_DIR = '/var/tmp/lrs-bench-hostile/data';
const OPENSEARCH_DIR = '/var/tmp/lrs-bench-hostile-opensearch';
const PREFIX = 'bench-hostile-';
const ROOT = resolve(__dirname, '..');
const GOAL_MS = 5_000;
const GOAL_BYTES = 2 ** 30;

const NOW = seedOptions.now;
const ordinary: HostileCase = {
  name: 'control: daily × label × direction over the 30 days (an ordinary report)',
  body: {
    source: 'movementEvents',
    filters: [
      {
        type: 'range',
        field: 'timestamp',
        from: new Date(NOW - 30 * 86_400_000).toISOString(),
        to: new Date(NOW).toISOString(),
      },
    ],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  },
};
const CASES = [ordinary, ...HOSTILE_CASES];

interface Measure {
  readonly status: number;
  readonly ms: number;
  /** OpenSearch: how long the node still ran the report's search after the answer, ms. */
  readonly afterMs?: number;
  /** Peak RSS over the RSS just before the request, bytes (DuckDB only). */
  readonly peakOverIdle?: number;
  readonly problem?: string;
}

interface Row {
  readonly name: string;
  readonly statuses: string;
  readonly medianMs: number;
  readonly maxMs: number;
  readonly peakOverIdle?: number;
  readonly maxAfterMs?: number;
  readonly problem?: string;
}

const kib = (field: string, pid: number): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

/** The local server on the benchmark's copy of the 10M-event file; resolves with its URL once it listens. */
async function startServer(): Promise<{ child: ChildProcess; url: string; idleBytes: number }> {
  mkdirSync(DATA_DIR, { recursive: true });
  const copy = join(DATA_DIR, 'reports.duckdb');
  const marker = join(DATA_DIR, 'copied-from.json');
  const source = { path: duckDbBenchFile, mtimeMs: statSync(duckDbBenchFile).mtimeMs };
  if (!existsSync(copy) || !existsSync(marker) || readFileSync(marker, 'utf8') !== JSON.stringify(source)) {
    copyFileSync(duckDbBenchFile, copy);
    writeFileSync(marker, JSON.stringify(source));
  }
  // --no-report-cache: the runs of a case must each query DuckDB, not the local server's result cache.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local-server.ts', '--no-report-cache'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR,
      PORT: '0',
      FUNCTION_TIMEOUT_SECONDS: String(FUNCTION_TIMEOUT_SECONDS),
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setInterval(() => {
      const match = /running at (\S+)/.exec(output);
      if (match && output.includes('Ctrl-C stops the service.')) {
        clearInterval(timer);
        resolveUrl(match[1] as string);
      }
    }, 200);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`the local server exited (${code}):\n${output}`));
    });
  });
  // Let the start settle (first occupancy refresh, lazy imports) before reading its idle size.
  await new Promise((r) => setTimeout(r, 2_000));
  return { child, url, idleBytes: kib('VmRSS', child.pid as number) };
}

async function stopServer(child: ChildProcess): Promise<number> {
  const t = performance.now();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return performance.now() - t;
}

/** One report over HTTP, with the server's peak RSS over its RSS just before. */
async function viaServer(url: string, pid: number, token: string, body: unknown): Promise<Measure> {
  const before = kib('VmRSS', pid);
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  const t = performance.now();
  const response = await fetch(`${url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - t;
  const peak = kib('VmHWM', pid);
  return { status: response.status, ms, peakOverIdle: peak - before, ...problemOf(response.status, text) };
}

function problemOf(status: number, text: string): { problem?: string } {
  if (status === 200) return {};
  try {
    return {
      problem: (JSON.parse(text) as { type?: string }).type?.replace(/^.*\/problems\//, '') ?? text.slice(0, 60),
    };
  } catch {
    return { problem: text.slice(0, 60) };
  }
}

function summarize(name: string, measures: readonly Measure[]): Row {
  const peaks = measures.map((m) => m.peakOverIdle).filter((p): p is number => p !== undefined);
  const after = measures.map((m) => m.afterMs).filter((p): p is number => p !== undefined);
  const problems = [...new Set(measures.map((m) => m.problem).filter(Boolean))];
  return {
    name,
    statuses: [...new Set(measures.map((m) => m.status))].join(', '),
    medianMs: median(measures.map((m) => m.ms)),
    maxMs: Math.max(...measures.map((m) => m.ms)),
    ...(peaks.length > 0 ? { peakOverIdle: Math.max(...peaks) } : {}),
    ...(after.length > 0 ? { maxAfterMs: Math.max(...after) } : {}),
    ...(problems.length > 0 ? { problem: problems.join(', ') } : {}),
  };
}

async function benchDuckDbServer(lines: string[], events: number): Promise<void> {
  const { child, url, idleBytes } = await startServer();
  const pid = child.pid as number;
  try {
    const key = await loadOrCreateDevKey(join(DATA_DIR, 'dev-key.json'));
    const token = await mintDevToken(key, {
      organizationId: HOSTILE_ORG,
      claimName: process.env.ORGANIZATION_CLAIM ?? 'custom:organizationId',
    });
    const rows: Row[] = [];
    for (const c of CASES) {
      const measures: Measure[] = [];
      for (let i = 0; i < RUNS; i++) measures.push(await viaServer(url, pid, token, c.body));
      rows.push(summarize(c.name, measures));
      console.error(`duckdb: ${c.name}: ${JSON.stringify(rows.at(-1))}`);
    }
    // Shutdown while a report runs: how long SIGTERM takes to stop the server.
    const running = fetch(`${url}/reports:query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify((HOSTILE_CASES.at(-1) as HostileCase).body),
    }).then(
      (r) => String(r.status),
      () => 'connection closed',
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const stopMs = await stopServer(child);
    lines.push(
      `DuckDB through the local server (\`npm start\`'s process, DuckDB memory_limit 512MB, 2 threads), ${events.toLocaleString('en')} movement events, ` +
        `function timeout ${FUNCTION_TIMEOUT_SECONDS} s (report deadline ${FUNCTION_TIMEOUT_SECONDS - RESPONSE_MARGIN_MS / 1000} s); server RSS when idle ${(idleBytes / 2 ** 20).toFixed(0)} MiB:`,
      '',
      '| report | status | wall time, median (max) | peak RSS over idle (max) | goal: ≤ 5 s, ≤ 1 GB |',
      '|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.statuses}${r.problem ? ` (${r.problem})` : ''} | ${r.medianMs.toFixed(0)} ms (${r.maxMs.toFixed(0)}) | ${((r.peakOverIdle ?? 0) / 2 ** 20).toFixed(0)} MiB | ${
            r.maxMs <= GOAL_MS &&
            (r.peakOverIdle ?? 0) <= GOAL_BYTES &&
            /^(200|422|503)(, (200|422|503))*$/.test(r.statuses)
              ? 'met'
              : '**not met**'
          } |`,
      ),
      '',
      `- SIGTERM while the last report ran: the server exited ${stopMs.toFixed(0)} ms later; that report's answer: ${await running}.`,
    );
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

async function benchOpenSearch(lines: string[], events: number): Promise<void> {
  mkdirSync(OPENSEARCH_DIR, { recursive: true });
  const node = await startOpenSearch({ heap: '2g', dataDir: OPENSEARCH_DIR });
  try {
    const client = new Client({ node: node.url, requestTimeout: 300_000 });
    const { seedMovementEvents } = await import('../bin/seed/generate');
    // The seed is deterministic: the first `indexed` of the very events the DuckDB file holds.
    const indexed = Math.min(events, Number(process.env.BENCH_HOSTILE_OPENSEARCH_EVENTS ?? events));
    const documents = function* () {
      let n = 0;
      for (const doc of seedMovementEvents(seedOptions)) {
        if (n++ >= indexed) return;
        yield doc as unknown as Record<string, unknown>;
      }
    };
    await ensureBenchEvents(client, PREFIX, indexed, documents);
    const handler = createQueryReportHandler({
      engine: () => new OpenSearchEngine(client, { indexPrefix: PREFIX, requestCache: false }),
    });
    const context = (): Context => {
      const deadline = Date.now() + FUNCTION_TIMEOUT_SECONDS * 1000;
      return {
        awsRequestId: 'bench',
        functionName: 'query-report',
        getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      } as Context;
    };
    /** Time until the node runs no search any more (the report's, cancelled or done), at most 30 s. */
    const searchesEnd = async (): Promise<number> => {
      const t = performance.now();
      for (;;) {
        const tasks = await client.tasks.list({ actions: 'indices:data/read/search*' });
        const running = Object.values((tasks.body as { nodes?: Record<string, { tasks: object }> }).nodes ?? {}).reduce(
          (n, x) => n + Object.keys(x.tasks).length,
          0,
        );
        if (running === 0 || performance.now() - t > 30_000) return performance.now() - t;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const rows: Row[] = [];
    for (const c of CASES) {
      const measures: Measure[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        const response = (await handler(
          httpEvent({ body: c.body, org: HOSTILE_ORG }),
          context(),
        )) as APIGatewayProxyStructuredResultV2;
        const ms = performance.now() - t;
        const status = response.statusCode ?? 200;
        measures.push({ status, ms, afterMs: await searchesEnd(), ...problemOf(status, String(response.body ?? '')) });
      }
      rows.push(summarize(c.name, measures));
      console.error(`opensearch: ${c.name}: ${JSON.stringify(rows.at(-1))}`);
    }
    lines.push(
      '',
      `OpenSearch 2.19.3 (2 GB heap, default search.max_buckets 65,535), ${indexed.toLocaleString('en')} of the same events in one-shard monthly indices, through the query handler with a ${FUNCTION_TIMEOUT_SECONDS} s function timeout:`,
      '',
      '| report | status | wall time, median (max) | the node still searching after the answer (max) | goal: ≤ 5 s |',
      '|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.statuses}${r.problem ? ` (${r.problem})` : ''} | ${r.medianMs.toFixed(0)} ms (${r.maxMs.toFixed(0)}) | ${(r.maxAfterMs ?? 0).toFixed(0)} ms | ${
            r.maxMs <= GOAL_MS && /^(200|422|503)(, (200|422|503))*$/.test(r.statuses) ? 'met' : '**not met**'
          } |`,
      ),
    );
    await client.close();
  } finally {
    await node.stop();
  }
}

/** `npm run bench -- hostile`. */
export async function benchHostile(): Promise<void> {
  const lines: string[] = [];
  const skip = new Set((process.env.BENCH_HOSTILE_SKIP ?? '').split(','));
  const before = loadavg()[0]?.toFixed(1);
  if (!skip.has('fine')) await benchFineHistograms(lines);
  if (!skip.has('duckdb') || !skip.has('opensearch')) {
    // The 10M-event file of bench/duckdb.ts, written there if it is not yet.
    const { instance, figures } = await ensureDuckDbBenchFile();
    instance.closeSync();
    if (!skip.has('duckdb')) await benchDuckDbServer(lines, figures.events);
    if (!skip.has('opensearch')) await benchOpenSearch(lines, figures.events);
  }
  console.log(
    `\nHostile reports (issues 12 and 20), ${RUNS} runs each, ${await machine()}, load average ${before} before and ${loadavg()[0]?.toFixed(1)} after\n`,
  );
  console.log(lines.join('\n'));
}
