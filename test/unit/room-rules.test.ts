import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The rules of the rooms (docs/architecture.md), checked on the source text: `shared/` is the
 * domain library (no Lambda types, no edge imports, no environment), `bench/` and `bin/` do not
 * reach into `test/`, imports point one way (no circle, type-only imports included, as
 * `madge --circular` counts them), and no file of `shared/report` is over 300 lines.
 */
const ROOT = resolve(__dirname, '../..');

function filesUnder(folder: string): string[] {
  const dir = join(ROOT, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'node_modules' || name.startsWith('.') ? [] : filesUnder(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Every module a file names: static imports and exports (type-only too), `import()` and `require`. */
const specifiersOf = (file: string): string[] => ts.preProcessFile(text(file), true, true).importedFiles.map((f) => f.fileName);

/** The repository file a specifier names, or undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const aliases: Record<string, string> = { '#shared/': 'shared/', '#commons/': 'functions/commons/' };
  const alias = Object.keys(aliases).find((a) => specifier.startsWith(a));
  let base: string;
  if (alias) base = aliases[alias] + specifier.slice(alias.length);
  else if (specifier.startsWith('.')) base = relative(ROOT, resolve(ROOT, dirname(from), specifier));
  else return undefined;
  return [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => candidate.endsWith('.ts') && existsSync(join(ROOT, candidate)));
}

const importsOf = (file: string): string[] => specifiersOf(file).flatMap((s) => resolveSpecifier(file, s) ?? []);

/** The import graph of `files`: each file and the files it imports. */
const graphOf = (files: readonly string[]): Map<string, string[]> => new Map(files.map((f) => [f, importsOf(f).filter((to) => to !== f)]));

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

describe('the rooms keep their rules', () => {
  test('shared/ imports no aws-lambda types and nothing of the edge (#commons, functions/)', () => {
    const offending = SHARED.flatMap((file) =>
      specifiersOf(file)
        .filter((s) => s === 'aws-lambda' || s.startsWith('#commons/') || (resolveSpecifier(file, s) ?? '').startsWith('functions/'))
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

  test('no file in shared/report is over 300 lines', () => {
    const long = filesUnder('shared/report')
      .map((file) => ({ file, lines: text(file).split('\n').length - (text(file).endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  test('the checks themselves: a circle is found, aliases and relative paths resolve', () => {
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', []]]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
    expect(resolveSpecifier('shared/report/query-report.ts', './plan/plan')).toBe('shared/report/plan/plan.ts');
    expect(resolveSpecifier('functions/query-report.ts', '#shared/report/query-report')).toBe('shared/report/query-report.ts');
    expect(specifiersOf('shared/stores/duckdb/report/reduce/read.ts')).toContain('../result-row');
  });
});
