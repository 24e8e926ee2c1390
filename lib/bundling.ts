import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type BuildOptions, buildSync } from 'esbuild';

/** The project root (this file lives in `lib/`): source paths in bundles are written relative to it. */
export const PROJECT_ROOT = resolve(__dirname, '..');

/**
 * The esbuild settings of every Lambda bundle, in one place: the CDK functions (`ServiceFunction`,
 * which runs esbuild through this module) and the bundle bench (`bench/bundles.ts`) build exactly
 * the same thing.
 *
 * - ESM output with code splitting: code reached only through `import()` (the AWS SDK and OpenSearch
 *   clients in functions/commons, the X-Ray SDK of the tracer) goes to chunks under `chunks/` that
 *   Node neither parses nor evaluates until first use. esbuild splits only ESM output, into a
 *   directory (https://esbuild.github.io/api/#splitting), which NodejsFunction's own bundling (one
 *   `--outfile`) cannot express; hence ServiceFunction bundles with this module.
 * - `.mjs` files: Lambda's Node.js runtime loads `index.mjs` for handler `index.handler` as ESM, with
 *   no package.json type hint needed.
 * - A `require` made with `createRequire` (banner): CommonJS dependencies (opensearch-js, parts of the
 *   Powertools and smithy trees) still `require` Node built-ins, which ESM has no `require` for.
 * - `module` before `main`: prefer the ESM entry points of dual packages (the AWS SDK v3, smithy),
 *   which tree-shake far better than their CJS builds.
 * - The AWS SDK is bundled, not taken from the runtime: the bundled copy is the version we tested,
 *   and a tree-shaken bundle loads faster than the runtime's full SDK.
 * - Source maps are written next to each file (no inline map: the bundle stays small) without
 *   `sourcesContent`; Lambda resolves stack traces with `NODE_OPTIONS=--enable-source-maps`.
 */
export const BUNDLE_TARGET = 'node22';

export const BUNDLE_MAIN_FIELDS: readonly string[] = ['module', 'main'];

/**
 * Packages left out of the bundle because no Lambda invocation can reach them; everything else, the
 * AWS SDK included, goes in. Each is reached only through an `import()` that never runs in Lambda:
 *
 * - `bowser`, a browser user-agent parser: imported only by the SDK's browser user-agent
 *   provider (`@aws-sdk/core` client/util-user-agent-browser), which Node clients never call.
 * - The credential providers after `fromEnv` in the SDK's default chain
 *   (`@aws-sdk/credential-provider-node` defaultProvider.js, remoteProvider.js: SSO, INI files,
 *   credential processes, web identity token files, the ECS and EC2 metadata endpoints; with the
 *   SSO, STS and sign-in clients they pull in). Lambda always puts the function role's
 *   credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN),
 *   and the chain stops at `fromEnv`, its first link. Only the bundles leave them out: the CLIs and
 *   tests run from node_modules with the whole chain.
 */
export const BUNDLE_EXTERNALS: readonly string[] = [
  'bowser',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@smithy/credential-provider-imds',
];

/**
 * Node built-ins that bundled libraries import at the top but that requests seldom or never call,
 * each aliased to a module of lazy stand-ins (lib/lazy-builtins) that loads the built-in on first
 * use (what each costs at start is in the bundle benchmark, bench/README.md):
 *
 * - `node:crypto`: at start only the Powertools logger
 *   imports it, for `randomInt` when debug logs are sampled. The AWS SDK's chunks import it too and
 *   load it as they load (they hash at the top), which is when the first client is built.
 * - `node:stream/web`: middy imports it for response streaming, which no function here
 *   uses.
 *
 * Every other built-in stays as it is: `node:stream` (and `node:stream/promises` with it) is loaded
 * anyway by the first write to stdout, and the SDK extends its classes at load. Only `import`
 * statements reach the stand-ins, and esbuild fails the build on a name a stand-in module lacks
 * (test/unit/infra/lazy-builtins.test.ts).
 */
export const LAZY_BUILTINS: Readonly<Record<string, string>> = {
  'node:crypto': join(__dirname, 'lazy-builtins', 'node-crypto.ts'),
  'node:stream/web': join(__dirname, 'lazy-builtins', 'node-stream-web.ts'),
};

/** The file Lambda loads (handler `index.handler`); chunks go to `chunks/` beside it. */
export const BUNDLE_ENTRY_FILE = 'index.mjs';

/** Gives the ESM bundle the `require` its CommonJS dependencies call. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** The esbuild options of the bundle of one handler module, written to `outdir`. */
export function esbuildOptions(entry: string, outdir: string) {
  return {
    entryPoints: { index: entry },
    outdir,
    bundle: true,
    platform: 'node',
    target: BUNDLE_TARGET,
    format: 'esm',
    splitting: true,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: [...BUNDLE_MAIN_FIELDS],
    external: [...BUNDLE_EXTERNALS],
    alias: { ...LAZY_BUILTINS },
    logLevel: 'warning',
  } satisfies BuildOptions;
}

/**
 * Bundles one handler into `outdir` (the asset folder: `index.mjs`, `chunks/`, their maps) with
 * {@link esbuildOptions}, so that the output depends on the sources only, not on where the project
 * or the output folder is: CDK hashes the output (the asset hash), and a deploy from another machine
 * or checkout must not see a changed function. esbuild writes source map paths relative to its
 * output folder and hashes chunk names over content that includes them, so it builds for a fixed
 * folder inside the project (in memory: `write: false`, nothing lands there), and the maps are then
 * written with sources relative to the project root and a `sourceRoot` that leads from each map back
 * to the asset root, so that a Lambda stack trace reads `/var/task/functions/x.ts`.
 */
export function bundleHandler(entry: string, outdir: string): void {
  const virtualOutdir = join(PROJECT_ROOT, '.bundle');
  const { outputFiles } = buildSync({
    ...esbuildOptions(entry, virtualOutdir),
    absWorkingDir: PROJECT_ROOT,
    write: false,
  });
  for (const file of outputFiles) {
    const rel = relative(virtualOutdir, file.path);
    const target = join(outdir, rel);
    mkdirSync(dirname(target), { recursive: true });
    if (!rel.endsWith('.map')) {
      writeFileSync(target, file.contents);
      continue;
    }
    const map = JSON.parse(file.text) as { sources: string[]; sourceRoot?: string };
    map.sources = map.sources.map((source) => sourceName(resolve(dirname(file.path), source)));
    const depth = dirname(rel);
    map.sourceRoot =
      depth === '.'
        ? ''
        : `${depth
            .split(sep)
            .map(() => '..')
            .join('/')}/`;
    writeFileSync(target, JSON.stringify(map));
  }
}

/**
 * How a bundled source is named in the maps: relative to the project root, or from its
 * `node_modules/` folder on for packages installed above the project (a workspace's hoisted ones).
 */
function sourceName(path: string): string {
  const rel = relative(PROJECT_ROOT, path);
  if (!rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  const parts = path.split(sep);
  const modules = parts.indexOf('node_modules');
  if (modules < 0)
    throw new Error(`bundled source ${path} is neither in the project (${PROJECT_ROOT}) nor in a node_modules folder`);
  return parts.slice(modules).join('/');
}

/** A path relative to the project root with `/` separators; fails for a file outside the project. */
export function projectRelative(path: string): string {
  const rel = relative(PROJECT_ROOT, path);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${path} is outside the project (${PROJECT_ROOT})`);
  return rel.split(sep).join('/');
}

/** Static imports of chunks in a minified ESM file (`from"./chunk-X.mjs"`, `import"./x.mjs"`), not `import("…")`. */
const STATIC_CHUNK_IMPORT = /(?:\bfrom|\bimport)\s*"(\.{1,2}\/[^"]+\.mjs)"/g;

/**
 * The files Node loads at start for a bundle's entry: the entry and, transitively, every chunk it
 * imports statically. Chunks reached only through `import()` are left out: they load on first use.
 */
export function filesLoadedAtStart(entryFile: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_CHUNK_IMPORT))
      visit(resolve(dirname(file), spec!));
  };
  visit(entryFile);
  return [...seen];
}
