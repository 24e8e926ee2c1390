import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalService {
  readonly url: string;
  /** Its data folder (fresh, removed by stop()). */
  readonly dataDir: string;
  /** The development token the banner prints. */
  readonly token: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Stops it if it still runs (SIGINT, as Ctrl-C; SIGKILL if that takes over 15 s), and removes its data folder. */
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '../..');

/**
 * `npm start` as a user runs it, in a fresh data folder (so it seeds 30 days for 3 locations) on a free
 * port: the real local server, the real handlers, DuckDB and the embedded location table. `env` adds
 * to the environment (a variable given as undefined is removed from it), `args` are npm start's flags (`npm start --
 * ...args`). Resolves once the banner is printed. With `options.dataDir`, it runs on that (kept) folder, as a restart
 * does; `options.nodeArgs` go to node itself (`--cpu-prof`, which NODE_OPTIONS may not carry).
 */
export async function startLocalService(
  env: Record<string, string | undefined> = {},
  args: readonly string[] = [],
  options: { readonly dataDir?: string; readonly nodeArgs?: readonly string[] } = {},
): Promise<LocalService> {
  // A data folder given is another run's: kept when this one stops.
  const own = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'lrs-local-'));
  // As package.json's `start` runs it: node itself, with tsx's loader (no tsx CLI, which relays a signal
  // to its child and kills it outright when the child's event loop does not acknowledge within 30 ms).
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', 'bin/local-server.ts', ...args],
    {
      cwd: ROOT,
      // A variable given as undefined is left out (the tests' own POWERTOOLS_LOG_LEVEL, say).
      env: Object.fromEntries(
        Object.entries({ ...process.env, DATA_DIR: dataDir, PORT: '0', ...env }).filter(([, v]) => v !== undefined),
      ),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('Ctrl-C stops the service.')) {
          clearInterval(timer);
          resolve();
        }
      }, 200);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited early (${code}):\n${output}`));
      });
    });
  } catch (e) {
    if (own) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: /running at (http:\/\/\S+)/.exec(output)?.[1] as string,
    dataDir,
    token: /export TOKEN=(\S+)/.exec(output)?.[1] as string,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (own) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
