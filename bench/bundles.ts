import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, version as esbuildVersion } from 'esbuild';
import { esbuildOptions } from '../lib/bundling';
import { HANDLERS, handlerPath, PROJECT_ROOT } from '../lib/stack';
import { machine, median } from './stats';

/**
 * Lambda bundle bench: builds every handler exactly as the CDK app does (lib/bundling.ts), then
 * reports its minified size and its start cost, the median wall time of a fresh `node` process that
 * requires the bundle divided by the median of one that requires an empty module. Runs alternate
 * between the two so that machine noise hits both alike. Goals: ≤ 1 MB and ≤ 1.6× per handler.
 *
 * `npx tsx bench/bundles.ts [runs] [handler ...]` (default 21 runs, at least 15; default all handlers).
 */
const SIZE_GOAL_BYTES = 1_000_000;
const START_GOAL_RATIO = 1.6;

/** What Lambda would give the handlers at import time (nothing may connect before the first call). */
const LAMBDA_LIKE_ENV = {
  AWS_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  OPENSEARCH_URL: 'https://search-bench.eu-west-1.es.amazonaws.com',
  OPENSEARCH_AUTH: 'sigv4',
  TABLE_NAME: 'bench',
  SLICE_RESULTS_BUCKET: 'bench',
  SPLIT_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:bench',
  POWERTOOLS_SERVICE_NAME: 'location-reporting',
  POWERTOOLS_METRICS_NAMESPACE: 'LocationReporting',
};

interface Row {
  readonly handler: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly mapBytes: number;
  readonly startMs: number;
  readonly emptyMs: number;
  readonly ratio: number;
  readonly ratioWithMaps: number;
  readonly cpuRatio: number;
  readonly heaviest: string;
}

/** Requires `module`, then prints the CPU time the whole process used (µs). */
const CHILD = 'require(process.argv[1]); const u = process.cpuUsage(); process.stdout.write(String(u.user + u.system));';

/** Wall time (ms) and CPU time (ms) of one fresh process that requires `module`. */
function timeRequire(module: string, nodeOptions: string[] = []): { wall: number; cpu: number } {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [...nodeOptions, '-e', CHILD, module], {
    env: { PATH: process.env.PATH, ...LAMBDA_LIKE_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`requiring ${module} failed: ${run.stderr?.toString().slice(0, 500)}`);
  return { wall, cpu: Number(run.stdout.toString()) / 1000 };
}

/**
 * Median start of the bundle and of an empty module, alternating, and of the bundle with source maps
 * on. CPU time is reported beside wall time: it moves much less when other work shares the machine.
 */
function startCost(bundle: string, empty: string, runs: number) {
  const samples = { bundle: [] as { wall: number; cpu: number }[], empty: [] as { wall: number; cpu: number }[], maps: [] as { wall: number; cpu: number }[] };
  timeRequire(bundle); // warm the file cache once
  for (let i = 0; i < runs; i++) {
    samples.empty.push(timeRequire(empty));
    samples.bundle.push(timeRequire(bundle));
    samples.maps.push(timeRequire(bundle, ['--enable-source-maps']));
  }
  const wall = (k: keyof typeof samples) => median(samples[k].map((s) => s.wall));
  const cpu = (k: keyof typeof samples) => median(samples[k].map((s) => s.cpu));
  return { startMs: wall('bundle'), emptyMs: wall('empty'), mapsMs: wall('maps'), cpuRatio: cpu('bundle') / cpu('empty') };
}

/** The input package that contributes most bytes to the bundle, e.g. `@opensearch-project/opensearch 41%`. */
function heaviestPackage(metafile: Metafile, bundleBytes: number): string {
  const byPackage = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const name = match ? match[1]! : '(project code)';
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  const [name, bytes] = [...byPackage.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['-', 0];
  return `${name} ${Math.round((100 * bytes) / bundleBytes)}%`;
}

export async function benchBundles(runs = 21, only: readonly string[] = []): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bundles-'));
  const empty = join(dir, 'empty.js');
  writeFileSync(empty, '');
  const rows: Row[] = [];
  try {
    for (const name of HANDLERS.filter((h) => only.length === 0 || only.includes(h))) {
      const outfile = join(dir, name, 'index.js');
      const result = await build({ ...esbuildOptions(join(PROJECT_ROOT, handlerPath(name)), outfile), metafile: true, absWorkingDir: PROJECT_ROOT });
      const bytes = statSync(outfile).size;
      const { startMs, emptyMs, mapsMs, cpuRatio } = startCost(outfile, empty, runs);
      rows.push({
        handler: name,
        bytes,
        gzipBytes: gzipSync(readFileSync(outfile)).length,
        mapBytes: statSync(`${outfile}.map`).size,
        startMs,
        emptyMs,
        ratio: startMs / emptyMs,
        ratioWithMaps: mapsMs / emptyMs,
        cpuRatio,
        heaviest: heaviestPackage(result.metafile, bytes),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(0)} kB`;

export function renderTable(rows: readonly Row[], runs: number, host: string): string {
  const lines = [
    `Lambda bundles (esbuild ${esbuildVersion}, minified CJS, node22 target, AWS SDK bundled); start cost = median wall time of ${runs} fresh \`node\` processes requiring the bundle ÷ requiring an empty module (CPU cost: the same with the processes' CPU time; source maps: with \`--enable-source-maps\`, as deployed); ${host}.`,
    '',
    '| Handler | Minified | Gzip | Source map | Largest input | Start (ms) | Empty (ms) | Start cost | CPU cost | With `--enable-source-maps` | Goals (≤ 1 MB, ≤ 1.6×) |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) =>
      [
        '',
        `\`${r.handler}\``,
        kb(r.bytes),
        kb(r.gzipBytes),
        kb(r.mapBytes),
        r.heaviest,
        r.startMs.toFixed(0),
        r.emptyMs.toFixed(0),
        `${r.ratio.toFixed(2)}×`,
        `${r.cpuRatio.toFixed(2)}×`,
        `${r.ratioWithMaps.toFixed(2)}×`,
        r.bytes <= SIZE_GOAL_BYTES && r.ratio <= START_GOAL_RATIO ? 'met' : 'MISSED',
        '',
      ].join(' | ').trim(),
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const runs = Math.max(15, Number(process.argv[2] ?? 21));
  const rows = await benchBundles(runs, process.argv.slice(3));
  console.log(renderTable(rows, runs, await machine()));
  const missed = rows.filter((r) => r.bytes > SIZE_GOAL_BYTES || r.ratio > START_GOAL_RATIO).map((r) => r.handler);
  if (missed.length > 0) console.log(`\nGoals missed by: ${missed.join(', ')}`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
