import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/stack';

/**
 * docs/dependencies.md gives each dependency its reason. A package added to package.json without a
 * line there fails here, so the list cannot fall behind. A name counts when it stands in backticks,
 * whole (`@middy/core`) or, in a row that groups a scope's packages, by its last part (`metrics`).
 */
const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<'dependencies' | 'devDependencies', Record<string, string>>;
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
  it.each(['dependencies', 'devDependencies'] as const)('gives every one of package.json’s %s its reason', (section) => {
    expect(Object.keys(pkg[section]).filter((name) => !explained(name))).toEqual([]);
  });
});
