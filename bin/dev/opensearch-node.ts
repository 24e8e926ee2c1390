/**
 * Starts and stops a real, throw-away OpenSearch node (no Docker) for the integration tests and the
 * benchmark. The distribution comes from scripts/opensearch-dist.sh (Maven Central's JDK-less
 * integ-test-zip, cached in ~/.cache/lrs); the JVM is the machine's Java 17.
 *
 * Every start gets its own run directory under the OS temp dir: a hard-linked copy of the
 * distribution (OpenSearch writes next to its home: keystore in config/, gc log in logs/), with
 * config/ copied for real and data/, logs/ and tmp/ of its own. That keeps the shared cache pristine
 * and lets an unprivileged user run it even though the cache lives under root's 0700 home.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  cpSync,
  lchownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The OpenSearch version the service targets (Amazon OpenSearch Service 2.19); tests assert it. */
export const OPENSEARCH_VERSION = '2.19.3';

/**
 * `search.max_buckets` of the test node. Deliberately far below the default (65,535) so that
 * integration tests can provoke a real `too_many_buckets_exception` with a few thousand documents.
 */
export const TEST_MAX_BUCKETS = 2000;

/** Unprivileged account the node runs as when we are root (OpenSearch refuses to run as root). */
export const OPENSEARCH_USER = 'lrs-opensearch';

/** Options of {@link startOpenSearch}; all optional. */
export interface StartOpenSearchOptions {
  /** HTTP port on 127.0.0.1. Default: a free port (start is retried if another process grabs it). */
  port?: number;
  /** JVM heap, used for both -Xms and -Xmx. Default `512m`. */
  heap?: string;
  /** `search.max_buckets` cluster setting. Default: OpenSearch's own (65,535). */
  maxBuckets?: number;
  /**
   * `path.data`. Default: `data/` in the run's temp directory. A directory given here is never
   * deleted (so a benchmark can reuse an index across runs); it is chowned to the node's user.
   */
  dataDir?: string;
  /** Keep the run's temp directory (logs, default data dir) after stop() for inspection. */
  keepData?: boolean;
  /** How long to wait for the node to answer before giving up. Default 120 s. */
  startTimeoutMs?: number;
  /** Further `-E` settings, e.g. `{ 'indices.query.bool.max_clause_count': 4096 }`. */
  settings?: Record<string, string | number | boolean>;
  /**
   * A folder of unpacked plugins (one subfolder each, as in a distribution's plugins/) to add to the
   * node, e.g. job-scheduler and index-management for the ISM test: the integ-test distribution has
   * none, and Maven Central does not serve the index-management plugin. Versions must fit the node's.
   */
  pluginsDir?: string;
}

/** A running node, as returned by {@link startOpenSearch}. */
export interface OpenSearchNode {
  /** Base URL, e.g. `http://127.0.0.1:39211` (plain HTTP: the integ-test-zip has no security plugin). */
  url: string;
  /** Milliseconds from spawning the JVM until the cluster health answered yellow or green. */
  startupMs: number;
  /** The node's console output (stdout + stderr); gone after stop() unless keepData. */
  logFile: string;
  /** Stops the node (SIGTERM, then SIGKILL after 30 s) and removes the run directory. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 30_000;
const PORT_ATTEMPTS = 3;

/**
 * Starts a single-node OpenSearch cluster bound to 127.0.0.1 and resolves once its cluster health is
 * yellow or green. Binding to loopback keeps OpenSearch in development mode (no bootstrap checks).
 * Fails with the tail of the node's log if it exits early or does not answer within the timeout.
 * The node is killed if this process exits without calling stop() (exit handler, signal handlers,
 * and a watchdog that notices when this process disappears, e.g. after SIGKILL).
 */
export async function startOpenSearch(opts: StartOpenSearchOptions = {}): Promise<OpenSearchNode> {
  const attempts = opts.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt >= attempts) throw error;
    }
  }
}

/**
 * Polls `GET /_cluster/health?wait_for_status=yellow` until it succeeds. Exported for callers that
 * are handed an already running node (e.g. `OPENSEARCH_URL`) and must wait until it is usable.
 * `failure`, if given, is consulted between polls and aborts the wait with its message.
 */
export async function waitForOpenSearch(
  url: string,
  { timeoutMs = DEFAULT_START_TIMEOUT_MS, failure }: { timeoutMs?: number; failure?: () => string | undefined } = {},
): Promise<void> {
  const lastProblem = await pollHealth(
    `${url}/_cluster/health?wait_for_status=yellow&timeout=1s`,
    async (res) => (res.ok ? undefined : `HTTP ${res.status}: ${await res.text()}`),
    { timeoutMs, failure, fetchTimeoutMs: 5_000, everyMs: 250 },
  );
  if (lastProblem !== undefined)
    throw new Error(`OpenSearch at ${url} did not become ready within ${timeoutMs} ms (${lastProblem})`);
}

/**
 * Asks `healthUrl` (a `_cluster/health` with its conditions) every `everyMs` until `problemOf` finds
 * nothing wrong with the answer (undefined) or `timeoutMs` has passed (the last problem: no answer,
 * or what `problemOf` said). `failure`, if given, is consulted between polls and aborts the wait.
 */
export async function pollHealth(
  healthUrl: string,
  problemOf: (res: Response) => Promise<string | undefined>,
  options: {
    timeoutMs: number;
    failure?: (() => string | undefined) | undefined;
    fetchTimeoutMs: number;
    everyMs: number;
  },
): Promise<string | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    const failed = options.failure?.();
    if (failed !== undefined) throw new Error(failed);
    try {
      const problem = await problemOf(await fetch(healthUrl, { signal: AbortSignal.timeout(options.fetchTimeoutMs) }));
      if (problem === undefined) return undefined;
      lastProblem = problem;
    } catch (error) {
      lastProblem = String(error instanceof Error && error.cause ? error.cause : error);
    }
    await sleep(options.everyMs);
  }
  return lastProblem;
}

/** Thrown when the node died because one of its (auto-picked) ports was taken meanwhile. */
class PortInUseError extends Error {}

async function startOnce(opts: StartOpenSearchOptions): Promise<OpenSearchNode> {
  const [httpPort, transportPort] = await pickPorts(opts.port);
  const home = prepareNodeHome({ ...opts, httpPort, transportPort });
  const node = new NodeProcess(home, {
    'cluster.name': 'lrs-test',
    'discovery.type': 'single-node',
    ...opts.settings,
  });
  const startupMs = await node.launch(opts.startTimeoutMs).catch(async (error: unknown) => {
    await node.stop();
    throw /Address already in use|BindException/.test((error as Error).message) && opts.port === undefined
      ? new PortInUseError((error as Error).message)
      : error;
  });
  return { url: home.url, startupMs, logFile: home.logFile, stop: () => node.stop() };
}

/** Where one node runs: its own home (see the file's comment), ports, data folder and JVM. */
export interface NodeHome {
  readonly url: string;
  readonly runDir: string;
  readonly logFile: string;
  readonly javaHome: string;
  readonly runAs: RunAs | undefined;
  readonly heap: string;
  /** Settings every launch passes (ports, paths, bucket limit); a launch adds its own. */
  readonly settings: Readonly<Record<string, string | number | boolean>>;
  /** The run directory (and default data) is removed on stop. */
  readonly disposable: boolean;
  /** Data given by the caller (never deleted): stopped with SIGTERM on an emergency, not SIGKILL. */
  readonly ownData: boolean;
}

/** Options of one node's home: {@link StartOpenSearchOptions} with its two ports decided. */
export interface NodeHomeOptions
  extends Pick<StartOpenSearchOptions, 'heap' | 'maxBuckets' | 'dataDir' | 'keepData' | 'pluginsDir'> {
  readonly httpPort: number;
  readonly transportPort: number;
}

/** Makes one node's home (distribution downloaded once, run directory, data and snapshot folders). */
export function prepareNodeHome(opts: NodeHomeOptions): NodeHome {
  const distHome = ensureDistribution();
  const javaHome = resolveJavaHome();
  const runAs = resolveRunAs();
  const runDir = createRunDir(distHome, runAs, opts.pluginsDir);
  const dataDir = prepareDataDir(opts.dataDir ?? join(runDir, 'data'), runAs);
  // File-system snapshot repositories must live under path.repo (the restore runbook's test uses one).
  const snapshotDir = prepareDataDir(join(runDir, 'snapshots'), runAs);
  return {
    url: `http://127.0.0.1:${opts.httpPort}`,
    runDir,
    logFile: join(runDir, 'logs', 'console.log'),
    javaHome,
    runAs,
    heap: opts.heap ?? '512m',
    settings: {
      'network.host': '127.0.0.1',
      'http.port': opts.httpPort,
      'transport.port': opts.transportPort,
      'path.data': dataDir,
      'path.logs': join(runDir, 'logs'),
      'path.repo': snapshotDir,
      'cluster.routing.allocation.disk.threshold_enabled': false,
      ...(opts.maxBuckets === undefined ? {} : { 'search.max_buckets': opts.maxBuckets }),
    },
    disposable: !opts.keepData,
    ownData: opts.dataDir !== undefined,
  };
}

/**
 * One node's JVM on its home: launched, killed (SIGKILL, as a crash) and launched again on the same
 * data and ports as often as a test wants, stopped for good once (run directory removed).
 */
export class NodeProcess {
  private child: ChildProcess | undefined;
  private unregister: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly home: NodeHome,
    private readonly settings: Readonly<Record<string, string | number | boolean>>,
  ) {}

  /** Whether the JVM runs (launched and not exited). */
  get running(): boolean {
    return this.child !== undefined && !hasExited(this.child);
  }

  /**
   * Spawns the JVM and resolves with the milliseconds until it answered (`ready`, default: cluster
   * health yellow or green through this node); fails with the tail of its log if it exits early
   * or does not answer in time (the JVM is killed then).
   */
  async launch(
    timeoutMs = DEFAULT_START_TIMEOUT_MS,
    ready: (url: string, failure: () => string | undefined) => Promise<void> = defaultReady(timeoutMs),
  ): Promise<number> {
    if (this.running) throw new Error(`the node at ${this.home.url} is running already`);
    const { home } = this;
    const started = Date.now();
    const child = spawnNode({ ...home, args: settingsArgs({ ...home.settings, ...this.settings }) });
    this.child = child;
    const pid = child.pid!;
    this.unregister?.();
    // Disposable data: kill hard and clean up; otherwise let OpenSearch shut down cleanly.
    this.unregister = registerEmergencyCleanup(() => {
      killGroup(pid, home.disposable && !home.ownData ? 'SIGKILL' : 'SIGTERM');
      if (home.disposable) this.removeRunDir();
    });
    try {
      await ready(home.url, () =>
        hasExited(child) ? `OpenSearch exited early (${exitDescription(child)})` : undefined,
      );
    } catch (error) {
      await this.kill('SIGKILL');
      const where = home.disposable ? '' : ` (${home.logFile})`;
      throw new Error(
        `${(error as Error).message}\n--- end of the node's console output${where} ---\n${tailFile(home.logFile)}`,
      );
    }
    return Date.now() - started;
  }

  /** Sends the signal to the node's process group (the JVM and its watchdog) and waits for the JVM to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || hasExited(child)) return;
    if (signal === 'SIGKILL') {
      killGroup(child.pid!, 'SIGKILL');
      await waitForExit(child, 10_000);
    } else await terminate(child);
  }

  /** Stops the node (SIGTERM, then SIGKILL after 30 s) and removes the run directory. Idempotent. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      if (this.child) await terminate(this.child);
      this.unregister?.();
      if (this.home.disposable) this.removeRunDir();
    })());
  }

  private removeRunDir(): void {
    rmSync(this.home.runDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

const defaultReady =
  (timeoutMs: number) =>
  (url: string, failure: () => string | undefined): Promise<void> =>
    waitForOpenSearch(url, { timeoutMs, failure });

/** Runs scripts/opensearch-dist.sh (download + unpack once) and returns the distribution's home. */
function ensureDistribution(): string {
  const script = resolve(__dirname, '../../scripts/opensearch-dist.sh');
  const home = execFileSync('bash', [script], {
    encoding: 'utf8',
    env: { ...process.env, OPENSEARCH_VERSION },
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  if (!home) throw new Error(`${script} printed no distribution path`);
  return home;
}

/** OPENSEARCH_JAVA_HOME if set, else the JDK behind the `java` on PATH (the dist bundles none). */
function resolveJavaHome(): string {
  const fromEnv = process.env.OPENSEARCH_JAVA_HOME;
  if (fromEnv) return fromEnv;
  let java: string;
  try {
    java = execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('No `java` on PATH and OPENSEARCH_JAVA_HOME is unset: OpenSearch needs Java 17+');
  }
  return dirname(dirname(realpathSync(java)));
}

export interface RunAs {
  uid: number;
  gid: number;
}

/** As root: the unprivileged {@link OPENSEARCH_USER}, created on first use. Otherwise: ourselves. */
function resolveRunAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (lookupUser(OPENSEARCH_USER) === undefined) {
    try {
      execFileSync('useradd', ['--system', '--no-create-home', OPENSEARCH_USER], { stdio: 'pipe' });
    } catch (error) {
      // A concurrent start may have created it in the meantime; only fail if it is still missing.
      if (lookupUser(OPENSEARCH_USER) === undefined) throw error;
    }
  }
  return lookupUser(OPENSEARCH_USER);
}

function lookupUser(name: string): RunAs | undefined {
  try {
    const id = (flag: string): number => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: 'pipe' }));
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** The HTTP port (given or free) and a free transport port, distinct from each other. */
async function pickPorts(httpPort: number | undefined): Promise<[number, number]> {
  const [first, second] = (await freePorts(2)) as [number, number];
  return httpPort === undefined ? [first, second] : [httpPort, first === httpPort ? second : first];
}

/** `count` distinct ports free on 127.0.0.1 right now (held at once, so never the same twice). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => 0).map(
      () =>
        new Promise<ReturnType<typeof createServer>>((res, rej) => {
          const server = createServer();
          server.once('error', rej).listen(0, '127.0.0.1', () => res(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((res) => s.close(res))));
  return ports;
}

/** Creates the per-run home: hard links to the distribution and the extra plugins, a private config/, logs/, tmp/. */
function createRunDir(distHome: string, runAs: RunAs | undefined, pluginsDir: string | undefined): string {
  const runDir = mkdtempSync(join(tmpdir(), 'lrs-opensearch-'));
  chmodSync(runDir, 0o755);
  for (const entry of readdirSync(distHome)) {
    if (entry === 'config' || entry === 'logs') continue;
    linkTree(join(distHome, entry), join(runDir, entry));
  }
  for (const plugin of pluginsDir ? readdirSync(pluginsDir) : [])
    linkTree(join(pluginsDir!, plugin), join(runDir, 'plugins', plugin));
  cpSync(join(distHome, 'config'), join(runDir, 'config'), { recursive: true });
  mkdirSync(join(runDir, 'logs'));
  mkdirSync(join(runDir, 'tmp'));
  if (runAs) {
    for (const writable of ['config', 'logs', 'tmp']) chownTree(join(runDir, writable), runAs);
    chownSync(runDir, runAs.uid, runAs.gid);
  }
  return runDir;
}

/** Mirrors `src` at `dst` with hard links (copies across file systems); directories are new, 0755. */
function linkTree(src: string, dst: string): void {
  const stat = statSync(src);
  if (stat.isDirectory()) {
    mkdirSync(dst);
    chmodSync(dst, 0o755);
    for (const entry of readdirSync(src)) linkTree(join(src, entry), join(dst, entry));
    return;
  }
  try {
    linkSync(src, dst);
  } catch {
    copyFileSync(src, dst);
    chmodSync(dst, stat.mode & 0o777);
  }
}

function prepareDataDir(dataDir: string, runAs: RunAs | undefined): string {
  mkdirSync(dataDir, { recursive: true });
  if (runAs) chownTree(dataDir, runAs);
  return resolve(dataDir);
}

function chownTree(path: string, { uid, gid }: RunAs): void {
  lchownSync(path, uid, gid);
  if (!statSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), { uid, gid });
}

function settingsArgs(settings: Record<string, string | number | boolean>): string[] {
  return Object.entries(settings).map(([key, value]) => `-E${key}=${value}`);
}

/**
 * Shell wrapper that execs OpenSearch after forking a watchdog into the same process group: when
 * the starting process ($1) is gone (even after SIGKILL, when no exit handler runs) the watchdog
 * terminates the whole group, so no orphaned JVM survives an interrupted jest run.
 */
const WATCHDOG_WRAPPER = [
  'parent=$1; shift',
  'alive() { if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else kill -0 "$1" 2>/dev/null; fi; }',
  // Unwatchable parent (e.g. /proc mounted hidepid): no watchdog rather than an instant kill.
  // $$ is the pid `exec` hands to the JVM: once that is gone too, the watchdog just ends.
  '( alive "$parent" || exit 0; while alive "$parent" && alive $$; do sleep 1; done; alive $$ && kill -TERM 0 ) </dev/null >/dev/null 2>&1 &',
  'exec "$@"',
].join('\n');

interface SpawnSpec {
  runDir: string;
  logFile: string;
  javaHome: string;
  runAs: RunAs | undefined;
  heap: string;
  args: string[];
}

/** Spawns OpenSearch detached (own process group, so stop() can kill the group) with output to logFile. */
function spawnNode({ runDir, logFile, javaHome, runAs, heap, args }: SpawnSpec): ChildProcess {
  const out = openSync(logFile, 'a');
  if (runAs) chownSync(logFile, runAs.uid, runAs.gid);
  try {
    const child = spawn(
      '/bin/sh',
      ['-c', WATCHDOG_WRAPPER, 'opensearch-watchdog', String(process.pid), join(runDir, 'bin', 'opensearch'), ...args],
      {
        cwd: runDir,
        detached: true,
        stdio: ['ignore', out, out],
        ...(runAs ?? {}),
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: runDir,
          LANG: 'C.UTF-8',
          OPENSEARCH_JAVA_HOME: javaHome,
          OPENSEARCH_JAVA_OPTS: `-Xms${heap} -Xmx${heap}`,
          OPENSEARCH_PATH_CONF: join(runDir, 'config'),
          // Preset so the start script skips one JVM launch (its TempDirectory helper).
          OPENSEARCH_TMPDIR: join(runDir, 'tmp'),
        },
      },
    );
    if (child.pid === undefined) throw new Error('could not spawn OpenSearch (no pid)');
    // Do not keep this process alive just for the node; the exit handler stops it if we exit.
    child.unref();
    return child;
  } finally {
    closeSync(out);
  }
}

/** SIGTERM the process group, SIGKILL it after a grace period, and wait for the JVM to exit. */
async function terminate(child: ChildProcess): Promise<void> {
  const pid = child.pid!;
  killGroup(pid, 'SIGTERM');
  if (!(await waitForExit(child, STOP_GRACE_MS))) {
    killGroup(pid, 'SIGKILL');
    await waitForExit(child, 5_000);
  }
  killGroup(pid, 'SIGKILL'); // stragglers of the group (the watchdog), if any
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function exitDescription(child: ChildProcess): string {
  return child.signalCode !== null ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((res) => {
    const timer = setTimeout(() => res(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      res(true);
    });
  });
}

/** The last `lines` lines of a (possibly large) text file; empty if unreadable. */
function tailFile(path: string, lines = 40, maxBytes = 16_384): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = statSync(path).size;
      const length = Math.min(size, maxBytes);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8').split('\n').slice(-lines).join('\n');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '(no log)';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

// --- Best-effort cleanup when this process ends without stop() -----------------------------------

const emergencyCleanups = new Set<() => void>();
const TERMINATING_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runEmergencyCleanups(): void {
  for (const cleanup of emergencyCleanups) {
    try {
      cleanup();
    } catch {
      // best effort: keep going with the other nodes
    }
  }
  emergencyCleanups.clear();
}

/** Cleans up, then lets the signal do what it would have done had we not been listening. */
function onTerminatingSignal(signal: NodeJS.Signals): void {
  runEmergencyCleanups();
  uninstallHandlers();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function installHandlers(): void {
  process.on('exit', runEmergencyCleanups);
  for (const signal of TERMINATING_SIGNALS) process.on(signal, onTerminatingSignal);
}

function uninstallHandlers(): void {
  process.off('exit', runEmergencyCleanups);
  for (const signal of TERMINATING_SIGNALS) process.off(signal, onTerminatingSignal);
}

/** Registers a synchronous cleanup; handlers are only installed while a node is running. */
function registerEmergencyCleanup(cleanup: () => void): () => void {
  if (emergencyCleanups.size === 0) installHandlers();
  emergencyCleanups.add(cleanup);
  return () => {
    emergencyCleanups.delete(cleanup);
    if (emergencyCleanups.size === 0) uninstallHandlers();
  };
}
