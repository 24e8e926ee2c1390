import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalService {
  readonly url: string;
  /** The development token the banner prints. */
  readonly token: string;
  stop(): Promise<void>;
}

const ROOT = join(__dirname, '../../..');

/**
 * `npm start` as a user runs it, in a fresh data folder (so it seeds 30 days for 3 locations) on a free
 * port: the real local server, the real handlers, DuckDB and dynalite. `env` adds to the environment.
 */
export async function startLocalService(env: Record<string, string> = {}): Promise<LocalService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lrs-explorer-'));
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'bin/local-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Ctrl-C stops the service.')) {
        clearInterval(timer);
        resolve();
      }
    }, 200);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`the local service exited early (${code}):\n${output}`));
    });
  });
  const url = /running at (http:\/\/\S+)/.exec(output)?.[1] as string;
  const token = /export TOKEN=(\S+)/.exec(output)?.[1] as string;
  return {
    url,
    token,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
