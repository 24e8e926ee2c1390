import { readFileSync, writeFileSync } from 'node:fs';
import { RESPONSE_MARGIN_MS } from '../functions/commons/http/answer-deadline';
import { startLocalService } from '../bin/dev/local-service';
import { FINE_HISTOGRAM_CASES } from './hostile-cases';
import { median } from './stats';

/**
 * Issue 20's fine-histogram split reports (bench/hostile-cases.ts: 1 s × label over 7, 14 and 30 days,
 * `splitInterval: "2h"`) against `npm start` as a user runs it (bin/dev/local-service.ts: a fresh data
 * folder seeded with 30 days for 3 locations, the default 29 s function timeout, so a 27 s report
 * deadline; without the result cache), each with and without `Accept-Encoding`, over real HTTP, while
 * - `/health` is asked every 100 ms (its slowest answer is the longest the event loop was held);
 * - the server's peak RSS is read from /proc (VmHWM reset before each request) against its RSS just before.
 * Goal: 422 or 200 within the deadline plus the response margin, peak RSS at most 1 GB over idle,
 * every `/health` answered 200 within a second.
 */
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const FUNCTION_TIMEOUT_MS = 29_000;
const GOAL_MS = FUNCTION_TIMEOUT_MS;
const GOAL_BYTES = 2 ** 30;
const HEALTH_GOAL_MS = 1_000;

/**
 * The process that runs the server: bin/dev/local-service.ts starts tsx's CLI, which runs the server in
 * a node process of its own (its child), and that one's memory is what counts.
 */
function serverPid(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return children.length === 1 ? serverPid(children[0] as number) : pid;
}

const kib = (field: string, pid: number): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

interface Measure {
  readonly status: number;
  readonly ms: number;
  /** Decoded: fetch undoes the content coding. */
  readonly bodyBytes: number;
  readonly coding: string | null;
  readonly peakOverIdle: number;
  readonly healthMaxMs: number;
  readonly healthFailures: number;
}

/**
 * `/health` every 100 ms until `until` settles: the slowest answer and how many were not 200 (or not answered in 10 s).
 */
async function healthDuring(url: string, until: Promise<unknown>): Promise<{ maxMs: number; failures: number }> {
  let done = false;
  void until.finally(() => (done = true));
  let maxMs = 0;
  let failures = 0;
  do {
    const t = performance.now();
    const ok = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) }).then(
      async (r) => (await r.arrayBuffer(), r.status === 200),
      () => false,
    );
    maxMs = Math.max(maxMs, performance.now() - t);
    if (!ok) failures++;
    await new Promise((r) => setTimeout(r, 100));
  } while (!done);
  return { maxMs, failures };
}

async function measure(url: string, pid: number, token: string, body: unknown, encoding: boolean): Promise<Measure> {
  const before = kib('VmRSS', pid);
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  const t = performance.now();
  const answer = fetch(`${url}/reports:query`, {
    method: 'POST',
    // Node's fetch asks for gzip and deflate unless told otherwise: `identity` is "without".
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'accept-encoding': encoding ? 'gzip, deflate, br' : 'identity',
    },
    body: JSON.stringify(body),
  }).then(async (r) => ({
    status: r.status,
    coding: r.headers.get('content-encoding'),
    bytes: (await r.arrayBuffer()).byteLength,
    ms: performance.now() - t,
  }));
  const health = await healthDuring(url, answer);
  const { status, coding, bytes, ms } = await answer;
  return {
    status,
    ms,
    bodyBytes: bytes,
    coding,
    peakOverIdle: kib('VmHWM', pid) - before,
    healthMaxMs: health.maxMs,
    healthFailures: health.failures,
  };
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** The fine-histogram rows of `npm run bench -- hostile`, as markdown lines. */
export async function benchFineHistograms(lines: string[]): Promise<void> {
  // --no-report-cache: every run must query DuckDB, not the result cache of the run before.
  const service = await startLocalService({ POWERTOOLS_METRICS_DISABLED: 'true' }, ['--no-report-cache']);
  try {
    await new Promise((r) => setTimeout(r, 2_000)); // the first occupancy refresh and lazy imports
    const pid = serverPid(service.child.pid as number);
    const idle = kib('VmRSS', pid);
    // One report first, not measured: tsx compiles the split code when a split report first needs it.
    const [control] = FINE_HISTOGRAM_CASES;
    const warmUp = control
      ? await measure(service.url, pid, service.token, control.body(Date.now()), false)
      : undefined;
    const rows: string[] = [];
    for (const c of FINE_HISTOGRAM_CASES) {
      for (const encoding of [false, true]) {
        const ms: Measure[] = [];
        for (let i = 0; i < RUNS; i++)
          ms.push(await measure(service.url, pid, service.token, c.body(Date.now()), encoding));
        const statuses = [...new Set(ms.map((m) => m.status))].join(', ');
        const maxMs = Math.max(...ms.map((m) => m.ms));
        const peak = Math.max(...ms.map((m) => m.peakOverIdle));
        const healthMax = Math.max(...ms.map((m) => m.healthMaxMs));
        const healthFailures = ms.reduce((n, m) => n + m.healthFailures, 0);
        const met =
          /^(200|422)(, (200|422))*$/.test(statuses) &&
          maxMs <= GOAL_MS &&
          peak <= GOAL_BYTES &&
          healthMax <= HEALTH_GOAL_MS &&
          healthFailures === 0;
        rows.push(
          `| ${c.name} | ${encoding ? 'gzip, deflate, br' : 'none'} | ${statuses} | ${median(ms.map((m) => m.ms)).toFixed(0)} ms (${maxMs.toFixed(0)}) | ` +
            `${Math.max(...ms.map((m) => m.bodyBytes)).toLocaleString('en')} B${ms[0]?.coding ? ` (sent ${ms[0].coding})` : ' (sent plain)'} | ${mib(peak)} | ${healthMax.toFixed(0)} ms, ${healthFailures} failed | ${met ? 'met' : '**not met**'} |`,
        );
        console.error(`fine: ${rows.at(-1)}`);
      }
    }
    lines.push(
      '',
      `Fine-histogram split reports (issue 20) through \`npm start\` on its freshly seeded data (30 days, 3 locations), ` +
        `function timeout ${FUNCTION_TIMEOUT_MS / 1000} s (report deadline ${(FUNCTION_TIMEOUT_MS - RESPONSE_MARGIN_MS) / 1000} s); server RSS when idle ${mib(idle)}; ` +
        `the first report after the start (not in the table): ${warmUp?.status} in ${warmUp?.ms.toFixed(0)} ms, slowest \`/health\` meanwhile ${warmUp?.healthMaxMs.toFixed(0)} ms:`,
      '',
      `| report | Accept-Encoding | status | wall time, median (max) | body, decoded | peak RSS over idle (max) | slowest \`/health\` meanwhile | goal: 422 or 200 ≤ ${GOAL_MS / 1000} s, ≤ 1 GB, \`/health\` ≤ 1 s |`,
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    );
  } finally {
    await service.stop();
  }
}
