import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/stack';

/**
 * `npm ci` installs exactly the lockfile and refuses one that lacks a package it needs. A lockfile
 * written on one machine by an npm that leaves out other platforms' optional packages (DuckDB's
 * bindings, esbuild's binaries) would install here and fail on a Mac or on arm64 CI. Every optional
 * dependency a locked package declares must therefore be locked too, whatever its platform.
 */
type Locked = { version?: string; optionalDependencies?: Record<string, string>; os?: string[]; cpu?: string[] };
const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, Locked>;
};

/** Where node would find `name` from the package at `path` (node_modules up the tree). */
function resolveLocked(path: string, name: string): string | undefined {
  let dir = path;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (candidate in lock.packages) return candidate;
    if (!dir) return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

describe('the committed lockfile', () => {
  it('is a version 3 lockfile (what npm 9+ writes and `npm ci` reads)', () => {
    expect(lock.lockfileVersion).toBe(3);
  });

  it('locks every optional dependency of every locked package, for every platform', () => {
    const missing: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
        if (!resolveLocked(path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('holds the native bindings the service runs on for Linux, macOS and Windows', () => {
    const platforms = (prefix: string) =>
      Object.keys(lock.packages)
        .filter((p) => p.startsWith(`node_modules/${prefix}`))
        .map((p) => `${lock.packages[p]!.os?.join()}-${lock.packages[p]!.cpu?.join()}`);
    for (const prefix of ['@duckdb/node-bindings-', '@esbuild/']) {
      expect(platforms(prefix)).toEqual(
        expect.arrayContaining(['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64']),
      );
    }
  });
});
