import { spawnSync } from 'node:child_process';
import type { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import * as web from 'node:stream/web';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_ENTRY_FILE, esbuildOptions, LAZY_BUILTINS } from '../../../lib/bundling';
import { lazyExport } from '../../../lib/lazy-builtins/lazy-export';
import { HANDLERS, handlerPath, PROJECT_ROOT } from '../../../lib/stack';

/**
 * lib/bundling.ts aliases node:crypto and node:stream/web to lazy stand-ins in the Lambda bundles. Here: the stand-ins
 * behave as the real exports; every handler bundle starts without loading those built-ins; and the bundled SDK and
 * logger still reach them when they call them.
 */
describe('lazyExport', () => {
  afterEach(() => jest.restoreAllMocks());

  test('loads the module on the first use only, then calls the real function', () => {
    const load = jest.spyOn(process, 'getBuiltinModule');
    const lazyHash = lazyExport<typeof createHash>('node:crypto', 'createHash');
    expect(load).not.toHaveBeenCalled();
    // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
    expect(lazyHash('sha256').update('abc').digest('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(lazyHash('sha256').update('').digest('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(load).toHaveBeenCalledTimes(1);
  });

  test('stands in for a class: new, instanceof both ways, statics and extends', () => {
    const Lazy = lazyExport<typeof web.ReadableStream>('node:stream/web', 'ReadableStream');
    const made = new Lazy();
    expect(made).toBeInstanceOf(web.ReadableStream);
    expect(made instanceof Lazy).toBe(true);
    expect(new web.ReadableStream() instanceof Lazy).toBe(true);
    expect({} instanceof Lazy).toBe(false);
    expect(Lazy.prototype).toBe(web.ReadableStream.prototype);
    class Counted extends Lazy<number> {}
    const sub = new Counted();
    expect(sub).toBeInstanceOf(web.ReadableStream);
    expect(sub).toBeInstanceOf(Counted);
  });

  test('names the module and export when the export is missing', () => {
    const missing = lazyExport<() => void>('node:crypto', 'noSuchFunction');
    expect(() => missing()).toThrow(new TypeError('node:crypto has no function or class named noSuchFunction'));
  });
});

describe('Lambda bundles with lazy built-ins', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-builtins-'));
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-west-1',
    OPENSEARCH_URL: 'https://search-test.eu-west-1.es.amazonaws.com',
    OPENSEARCH_AUTH: 'sigv4',
    TABLE_NAME: 'test',
    SLICE_RESULTS_BUCKET: 'test',
    SPLIT_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:test',
    POWERTOOLS_DEV: 'false',
  };
  const shims = new Set(Object.values(LAZY_BUILTINS).map((file) => relative(PROJECT_ROOT, file)));
  const importsOfShims: { importer: string; kind: string }[] = [];

  beforeAll(async () => {
    for (const name of HANDLERS) {
      const result = await build({
        ...esbuildOptions(resolve(PROJECT_ROOT, handlerPath(name)), join(dir, name)),
        absWorkingDir: PROJECT_ROOT,
        metafile: true,
        logLevel: 'error',
      });
      for (const [importer, input] of Object.entries(result.metafile.inputs)) {
        for (const imported of input.imports)
          if (shims.has(imported.path)) importsOfShims.push({ importer, kind: imported.kind });
      }
    }
    await build({
      ...esbuildOptions(resolve(__dirname, 'fixtures/lazy-builtins-entry.ts'), join(dir, 'fixture')),
      absWorkingDir: PROJECT_ROOT,
      logLevel: 'error',
    });
    // One bundle per handler: a few seconds each on a quiet machine, past two minutes on one loaded far past its cores.
  }, 300_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Runs `script` (an async function body) in a fresh node process after importing the bundle
   * `entry` as `m`, as Lambda's runtime does: from a module file (`node -e` loads other built-ins).
   * Returns what the script returns, through JSON.
   */
  function inFreshNode(entry: string, script: string): unknown {
    const runner = join(dir, 'run.mjs');
    writeFileSync(
      runner,
      'const m = await import(process.argv[2]); const body = Object.getPrototypeOf(async () => {}).constructor("m", process.argv[3]); process.stdout.write("\\n" + JSON.stringify(await body(m)));',
    );
    const url = pathToFileURL(join(dir, entry, BUNDLE_ENTRY_FILE)).href;
    const child = spawnSync(process.execPath, [runner, url, script], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (child.status !== 0) throw new Error(`node exited ${child.status}: ${child.stderr}`);
    // The last line: what the code under test logged comes before.
    return JSON.parse(child.stdout.slice(child.stdout.lastIndexOf('\n') + 1));
  }

  test('reach the stand-ins only through import statements, which esbuild checks name by name', () => {
    expect(importsOfShims.length).toBeGreaterThan(0);
    expect(importsOfShims.filter((i) => i.kind !== 'import-statement')).toEqual([]);
    expect(importsOfShims.map((i) => i.importer)).toEqual(
      expect.arrayContaining([
        'node_modules/@aws-lambda-powertools/logger/lib/esm/Logger.js',
        'node_modules/@middy/core/index.js',
      ]),
    );
  });

  test('import none of the deferred built-ins directly', () => {
    const files = HANDLERS.flatMap((name) => {
      const chunks = join(dir, name, 'chunks');
      return [
        join(dir, name, BUNDLE_ENTRY_FILE),
        ...readdirSync(chunks)
          .filter((f) => f.endsWith('.mjs'))
          .map((f) => join(chunks, f)),
      ];
    });
    // An ESM import of one (`from"node:crypto"`, `import("node:crypto")`); the CommonJS OpenSearch client's
    // `require("crypto")` runs only when its chunk loads.
    const direct = files.filter((file) =>
      /\b(?:from|import)\s*\(?\s*["']node:(?:crypto|stream\/web)["']/.test(readFileSync(file, 'utf8')),
    );
    expect(direct.map((file) => relative(dir, file))).toEqual([]);
  });

  test.each(HANDLERS)('%s starts without loading node:crypto or node:stream/web', (name) => {
    const loaded = inFreshNode(
      name,
      `return ['crypto', 'stream/web'].filter((id) => process.moduleLoadList.includes('NativeModule ' + id));`,
    );
    expect(loaded).toEqual([]);
  });

  test('the bundled SDK still signs requests (SigV4 over node:crypto), loading it on first use', () => {
    const out = inFreshNode(
      'fixture',
      'const before = m.deferredBuiltinsLoaded(); const headers = await m.signedHeaders(); return { before, after: m.deferredBuiltinsLoaded(), headers };',
    ) as {
      before: string[];
      after: string[];
      headers: Record<string, string>;
    };
    expect(out.before).toEqual([]);
    expect(out.after).toEqual(['crypto']);
    // An HMAC-SHA256 signature (64 hex digits) over a SHA-256 of the canonical request, for the fixture's key.
    expect(out.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/states\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/,
    );
  });

  test('the bundled logger still samples debug logs (randomInt from node:crypto)', () => {
    expect(inFreshNode('fixture', 'return m.sampledLoggerLevel();')).toBe('DEBUG');
  });
});
