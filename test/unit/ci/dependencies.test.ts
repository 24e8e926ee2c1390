import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../../../lib/stack';

/**
 * docs/dependencies.md gives each dependency its reason. A package added to package.json without a
 * line there fails here, so the list cannot fall behind. A name counts when it stands in backticks,
 * whole (`@middy/core`) or, in a row that groups a scope's packages, by its last part (`metrics`).
 */
const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<
  'dependencies' | 'devDependencies',
  Record<string, string>
>;
const doc = readFileSync(join(PROJECT_ROOT, 'docs/dependencies.md'), 'utf8');
const rows = doc.split('\n').filter((line) => line.startsWith('| `'));

function explained(name: string): boolean {
  if (doc.includes(`\`${name}\``)) return true;
  const slash = name.lastIndexOf('/');
  if (slash < 0) return false;
  const [scope, last] = [name.slice(0, slash), name.slice(slash + 1)];
  return rows.some((row) => row.includes(`\`${scope}/`) && row.includes(`\`${last}\``));
}

describe('docs/dependencies.md', () => {
  it.each(['dependencies', 'devDependencies'] as const)(
    'gives every one of package.json’s %s its reason',
    (section) => {
      expect(Object.keys(pkg[section]).filter((name) => !explained(name))).toEqual([]);
    },
  );
});

/**
 * `npm install --omit=dev` is enough to try the service (`npm start`): every package its code
 * imports is a dependency (the server, the worker threads piscina loads by path, the explorer page
 * it builds at start), and so are tsx and esbuild, which run it; the CDK app's packages (161 MB of
 * aws-cdk-lib) are development ones, installed where stacks are synthesized and deployed (`npm ci`
 * in CI, docs/deploy.md).
 */
describe('what npm start needs', () => {
  /** The packages a program's code imports, found by esbuild (every import followed, packages left out). */
  async function packagesImportedBy(entryPoints: string[]): Promise<string[]> {
    const result = await build({
      entryPoints: entryPoints.map((e) => join(PROJECT_ROOT, e)),
      bundle: true,
      platform: 'node',
      packages: 'external',
      metafile: true,
      write: false,
      outdir: 'out',
      logLevel: 'silent',
    });
    const names = Object.values(result.metafile.inputs)
      .flatMap((input) => input.imports)
      .filter((i) => i.external && !i.path.startsWith('node:'))
      .map((i) =>
        i.path
          .split('/')
          .slice(0, i.path.startsWith('@') ? 2 : 1)
          .join('/'),
      );
    return [...new Set(names)].sort();
  }

  it('is in dependencies, all of it: the packages its code imports, tsx and esbuild', async () => {
    const imported = await packagesImportedBy([
      'bin/local-server.ts',
      'bin/local/check-lines-worker.ts',
      'web/src/main.ts',
    ]);
    expect(imported.length).toBeGreaterThan(10);
    expect([...imported, 'tsx', 'esbuild'].filter((name) => !(name in pkg.dependencies))).toEqual([]);
  });

  it('leaves the CDK app’s packages to devDependencies', () => {
    expect(
      ['aws-cdk-lib', 'constructs', 'cdk-nag'].map((name) => [
        name,
        name in pkg.devDependencies && !(name in pkg.dependencies),
      ]),
    ).toEqual([
      ['aws-cdk-lib', true],
      ['constructs', true],
      ['cdk-nag', true],
    ]);
  });
});
