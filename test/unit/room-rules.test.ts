import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The rules of the rooms (docs/architecture.md), checked on the source text: `shared/` is the
 * domain library (no Lambda types, no edge imports, no environment), `bench/` and `bin/` do not
 * reach into `test/`, imports point one way (no circle, type-only imports included, as
 * `madge --circular` counts them), the stores keep to their faces (shared/stores/README.md), and
 * no file of `shared/` is over 400 lines (300 before the formatter spread them; the OpenAPI document,
 * data, aside).
 */
const ROOT = resolve(__dirname, '../..');

function filesUnder(folder: string): string[] {
  const dir = join(ROOT, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory())
      return name === 'node_modules' || name.startsWith('.') ? [] : filesUnder(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Every module a file names: static imports and exports (type-only too), `import()` and `require`. */
const specifiersOf = (file: string): string[] =>
  ts.preProcessFile(text(file), true, true).importedFiles.map((f) => f.fileName);

/** The repository file a specifier names, or undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const aliases: Record<string, string> = { '#shared/': 'shared/', '#commons/': 'functions/commons/' };
  const alias = Object.keys(aliases).find((a) => specifier.startsWith(a));
  let base: string;
  if (alias) base = aliases[alias] + specifier.slice(alias.length);
  else if (specifier.startsWith('.')) base = relative(ROOT, resolve(ROOT, dirname(from), specifier));
  else return undefined;
  return [`${base}.ts`, join(base, 'index.ts'), base].find(
    (candidate) => candidate.endsWith('.ts') && existsSync(join(ROOT, candidate)),
  );
}

const importsOf = (file: string): string[] => specifiersOf(file).flatMap((s) => resolveSpecifier(file, s) ?? []);

/** The import graph of `files`: each file and the files it imports. */
const graphOf = (files: readonly string[]): Map<string, string[]> =>
  new Map(files.map((f) => [f, importsOf(f).filter((to) => to !== f)]));

/** The import circles of a graph, each as the files on it (Tarjan's strongly connected components). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return found;
}

const SHARED = filesUnder('shared');

/** An import from one repository file to another. */
type Arrow = readonly [from: string, to: string];

const arrowsOf = (files: readonly string[]): Arrow[] => files.flatMap((f) => importsOf(f).map((to): Arrow => [f, to]));

const STORES = 'shared/stores/';
const BACKENDS = ['duckdb', 'opensearch'] as const;
/** The faces: the one Store face and each backend's public entry. */
const FACES = new Set(['shared/stores/store.ts', ...BACKENDS.map((b) => `${STORES}${b}/store.ts`)]);
const backendOf = (file: string): string | undefined => BACKENDS.find((b) => file.startsWith(`${STORES}${b}/`));

/**
 * The stores' rules, as arrows that break them:
 * - a backend never imports the other;
 * - `shared/report/` imports no backend (the face `shared/stores/store.ts` only);
 * - outside `shared/` (`functions/`, `lib/`, `bin/`, `bench/`, `web/`), only the faces are imported
 *   (within `shared/`, a room that serves one backend only may reach into it: `backups/`, OpenSearch
 *   snapshots, imports the index names alone, so that its function loads no more);
 * - within a backend, its layout (`layout/`) and its compiler (DuckDB's `report/sql/`, OpenSearch's
 *   `report/compile.ts`) import nothing of its rollup upkeep (`rollups/`).
 */
function storeRuleBreaks(arrows: readonly Arrow[]): string[] {
  return arrows.flatMap(([from, to]) => {
    if (!to.startsWith(STORES)) return [];
    const [source, target] = [backendOf(from), backendOf(to)];
    const broken: string[] = [];
    if (source && target && source !== target) broken.push('a backend imports the other');
    if (from.startsWith('shared/report/') && target) broken.push('report/ imports a backend');
    if (!from.startsWith('shared/') && !FACES.has(to)) broken.push('outside shared/, a store module that is no face');
    const upkeep = source && target === source && to.startsWith(`${STORES}${source}/rollups/`);
    const compiler = [`${STORES}duckdb/report/sql/`, `${STORES}opensearch/report/compile.ts`].some((p) =>
      from.startsWith(p),
    );
    if (upkeep && (from.startsWith(`${STORES}${source}/layout/`) || compiler))
      broken.push('the layout or the compiler imports rollup upkeep');
    return broken.map((rule) => `${rule}: ${from} → ${to}`);
  });
}

/** The files and folders at the top of a backend, but its notes (README.md). */
const topOf = (backend: string): string[] =>
  readdirSync(join(ROOT, STORES, backend))
    .filter((name) => !name.endsWith('.md'))
    .sort();

describe('the rooms keep their rules', () => {
  test('shared/ imports no aws-lambda types and nothing of the edge (#commons, functions/)', () => {
    const offending = SHARED.flatMap((file) =>
      specifiersOf(file)
        .filter(
          (s) =>
            s === 'aws-lambda' ||
            s.startsWith('#commons/') ||
            (resolveSpecifier(file, s) ?? '').startsWith('functions/'),
        )
        .map((s) => `${file}: ${s}`),
    );
    expect(offending).toEqual([]);
  });

  test('shared/ never reads process.env (configuration comes in through parameters)', () => {
    expect(SHARED.filter((file) => /\bprocess\.env\b/.test(text(file)))).toEqual([]);
  });

  test('bench/ and bin/ import nothing from test/', () => {
    const offending = [...filesUnder('bench'), ...filesUnder('bin')].flatMap((file) =>
      importsOf(file)
        .filter((to) => to.startsWith('test/'))
        .map((to) => `${file} → ${to}`),
    );
    expect(offending).toEqual([]);
  });

  test('no import circle in shared/, functions/, lib/, bin/ or bench/', () => {
    const files = ['shared', 'functions', 'lib', 'bin', 'bench'].flatMap(filesUnder);
    expect(circles(graphOf(files))).toEqual([]);
  });

  test('the stores keep to their faces: no backend imports the other, report/ no backend, outside shared/ only the faces, layout and compiler no rollup upkeep', () => {
    const files = ['shared', 'functions', 'lib', 'bin', 'bench', 'web'].flatMap(filesUnder);
    expect(storeRuleBreaks(arrowsOf(files))).toEqual([]);
  });

  test('the two backends have the same top-level file names for the same roles', () => {
    expect(topOf('duckdb')).toEqual(topOf('opensearch'));
    expect(topOf('duckdb')).toEqual([
      'erase.ts',
      'errors.ts',
      'layout',
      'report',
      'retention.ts',
      'rollups',
      'store.ts',
      'write.ts',
    ]);
  });

  test('no file in shared/ is over 400 lines (the OpenAPI document, data, aside)', () => {
    const long = filesUnder('shared')
      .filter((file) => !file.startsWith('shared/openapi/'))
      .map((file) => ({ file, lines: text(file).split('\n').length - (text(file).endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
  });

  test('the checks themselves: a circle is found, aliases and relative paths resolve', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', []],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
    expect(resolveSpecifier('shared/report/query-report.ts', './plan/plan')).toBe('shared/report/plan/plan.ts');
    expect(resolveSpecifier('functions/query-report.ts', '#shared/report/query-report')).toBe(
      'shared/report/query-report.ts',
    );
    expect(specifiersOf('shared/stores/duckdb/report/reduce/read.ts')).toContain('../result-row');
  });

  test('the checks themselves: each store rule finds the arrow that breaks it', () => {
    const d = (path: string) => `${STORES}duckdb/${path}`;
    const o = (path: string) => `${STORES}opensearch/${path}`;
    const breaks = (from: string, to: string) => storeRuleBreaks([[from, to]]).map((b) => b.slice(0, b.indexOf(':')));
    expect(breaks(d('write.ts'), o('layout/indices.ts'))).toEqual(['a backend imports the other']);
    expect(breaks('shared/report/query-report.ts', d('store.ts'))).toEqual(['report/ imports a backend']);
    expect(breaks('functions/ingest.ts', o('write.ts'))).toEqual(['outside shared/, a store module that is no face']);
    expect(breaks('bench/rollups.ts', d('rollups/rebuild.ts'))).toEqual([
      'outside shared/, a store module that is no face',
    ]);
    expect(breaks(d('report/sql/grouped.ts'), d('rollups/marks.ts'))).toEqual([
      'the layout or the compiler imports rollup upkeep',
    ]);
    expect(breaks(d('layout/migrate.ts'), d('rollups/marks.ts'))).toEqual([
      'the layout or the compiler imports rollup upkeep',
    ]);
    expect(breaks(o('report/compile.ts'), o('rollups/marks.ts'))).toEqual([
      'the layout or the compiler imports rollup upkeep',
    ]);
    // What the rules allow: the faces from anywhere, a backend's own parts, the runner reading the watermark.
    expect(
      storeRuleBreaks([
        ['functions/ingest.ts', 'shared/stores/store.ts'],
        ['bin/local-server.ts', d('store.ts')],
        ['shared/report/query-report.ts', 'shared/stores/store.ts'],
        [d('report/execute.ts'), d('rollups/marks.ts')],
        [d('write.ts'), d('rollups/marks.ts')],
      ]),
    ).toEqual([]);
  });
});
