import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleHandler, PROJECT_ROOT } from '../../../lib/bundling';

/** Every file of a folder with its content, by path relative to the folder. */
const filesOf = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => statSync(join(dir, f)).isFile())
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );

describe('bundleHandler (the code asset of a function)', () => {
  const dirs: string[] = [];
  const newDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `bundle-${name}-`));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const entry = resolve(PROJECT_ROOT, 'functions/list-locations.ts');
  let shallow: string;
  let deep: string;

  beforeAll(() => {
    // Prepare: the same handler bundled into folders at different depths (CDK bundles into cdk.out,
    // wherever the project and its output folder are).
    shallow = newDir('a');
    deep = join(newDir('b'), 'x', 'y', 'z');
    bundleHandler(entry, shallow);
    bundleHandler(entry, deep);
  });

  it('writes the same files, byte for byte, whatever the output folder (so the asset hash is the same on every machine)', () => {
    expect(filesOf(deep)).toEqual(filesOf(shallow));
  });

  it('names sources relative to the project in every map, with a sourceRoot back to the asset root', () => {
    const maps = Object.entries(filesOf(shallow)).filter(([f]) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(1); // index.mjs.map and chunk maps
    for (const [file, text] of maps) {
      const map = JSON.parse(text) as { sources: string[]; sourceRoot: string };
      expect({ file, sourceRoot: map.sourceRoot }).toEqual({
        file,
        sourceRoot: file.startsWith('chunks/') ? '../' : '',
      });
      for (const source of map.sources) expect(source).toMatch(/^(functions|shared|lib|node_modules)\//);
    }
    const index = JSON.parse(filesOf(shallow)['index.mjs.map']!) as { sources: string[] };
    expect(index.sources).toContain('functions/list-locations.ts');
  });
});
