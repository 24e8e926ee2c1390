/**
 * The esbuild settings of every Lambda bundle, in one place so that the CDK functions
 * (`ServiceFunction`) and the bundle bench (`bench/bundles.ts`) build exactly the same thing.
 *
 * - CommonJS output: the dependencies (opensearch-js, middy's CJS consumers, the AWS SDK) mix
 *   module systems; CJS output needs no `createRequire` banner and tree-shakes ESM inputs just as well.
 * - `module` before `main`: prefer the ESM entry points of dual packages (the AWS SDK v3, smithy),
 *   which tree-shake far better than their CJS builds.
 * - The AWS SDK is bundled, not taken from the runtime: the bundled copy is the version we tested,
 *   and a tree-shaken bundle loads faster than the runtime's full SDK.
 * - Source maps are written next to the bundle (no inline map: the bundle stays small) without
 *   `sourcesContent`; Lambda resolves stack traces with `NODE_OPTIONS=--enable-source-maps`.
 */
export const BUNDLE_TARGET = 'node22';

export const BUNDLE_MAIN_FIELDS: readonly string[] = ['module', 'main'];

/** Packages never to bundle (none: everything, the AWS SDK included, goes into the bundle). */
export const BUNDLE_EXTERNALS: readonly string[] = [];

/** The esbuild JS-API options equivalent to the CLI arguments that CDK passes for `ServiceFunction`. */
export function esbuildOptions(entry: string, outfile: string) {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node' as const,
    target: BUNDLE_TARGET,
    format: 'cjs' as const,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: [...BUNDLE_MAIN_FIELDS],
    external: [...BUNDLE_EXTERNALS],
    logLevel: 'warning' as const,
  };
}
