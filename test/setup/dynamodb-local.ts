/**
 * Starts and stops a throw-away DynamoDB Local (in memory) for the integration tests. The jars and
 * the sqlite4java native libraries come from Maven Central (`com.amazonaws:DynamoDBLocal` and its
 * dependencies, fetched once with `mvn dependency:copy-dependencies`) and are cached outside the
 * clone in `$LRS_CACHE_DIR` (default `~/.cache/lrs/dynamodb-local-<version>/lib`).
 *
 * The Maven jar's manifest names a `DynamoDBLocal_lib/` folder of the zip distribution, so the server
 * is started with `-cp lib/*` and its main class rather than `-jar`; `-Djava.library.path=lib` finds
 * `libsqlite4java-linux-amd64-<version>.so`, a name sqlite4java tries. Telemetry is disabled
 * (`-disableTelemetry`): this machine reaches no network but the package registries.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The DynamoDB Local release used by the tests (Maven Central, November 2026: 2.6.1 is current). */
export const DYNAMODB_LOCAL_VERSION = '2.6.1';

const MAIN_CLASS = 'com.amazonaws.services.dynamodbv2.local.main.ServerRunner';

export interface DynamoDbLocal {
  /** e.g. `http://127.0.0.1:41234` */
  readonly endpoint: string;
  readonly startupMs: number;
  /** Stops the JVM (SIGTERM, then SIGKILL). Idempotent. */
  stop(): Promise<void>;
}

export interface StartDynamoDbLocalOptions {
  /** @default a free port */
  readonly port?: number;
  /** @default 60 s */
  readonly startTimeoutMs?: number;
}

/** Downloads (once) and returns the folder holding DynamoDB Local's jars and native libraries. */
export function ensureDynamoDbLocal(version = DYNAMODB_LOCAL_VERSION): string {
  const home = join(process.env.LRS_CACHE_DIR ?? join(homedir(), '.cache', 'lrs'), `dynamodb-local-${version}`);
  const lib = join(home, 'lib');
  if (existsSync(join(lib, `DynamoDBLocal-${version}.jar`))) return lib;
  mkdirSync(home, { recursive: true });
  const work = mkdtempSync(join(home, '.download-'));
  try {
    writeFileSync(join(work, 'pom.xml'), pom(version));
    execFileSync(
      'mvn',
      [
        '-q',
        '-B',
        '-Dstyle.color=never',
        '-f',
        join(work, 'pom.xml'),
        'dependency:copy-dependencies',
        `-DoutputDirectory=${join(work, 'lib')}`,
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    try {
      renameSync(join(work, 'lib'), lib); // atomic; a concurrent download that won keeps its copy
    } catch (e) {
      if (!existsSync(join(lib, `DynamoDBLocal-${version}.jar`))) throw e;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return lib;
}

function pom(version: string): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>lrs.test</groupId><artifactId>dynamodb-local-fetch</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies><dependency><groupId>com.amazonaws</groupId><artifactId>DynamoDBLocal</artifactId><version>${version}</version></dependency></dependencies>
</project>\n`;
}

/**
 * Starts DynamoDB Local in memory on 127.0.0.1 and resolves when it answers. One database for every
 * caller (`-sharedDb`), as a table in AWS is one table whatever credentials and region a client signs
 * with: the deployed functions sign with their role, the tests and CLIs with their own keys.
 */
export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const lib = ensureDynamoDbLocal();
  const port = options.port ?? (await freePort());
  const started = Date.now();
  const java = [
    'java',
    `-Djava.library.path=${lib}`,
    '-Xmx256m',
    '-cp',
    `${lib}/*`,
    MAIN_CLASS,
    '-inMemory',
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  // The watchdog ends the JVM when this process disappears without calling stop() (e.g. SIGKILL).
  const wrapper =
    'parent=$1; shift; ( while kill -0 "$parent" 2>/dev/null; do sleep 1; done; kill -TERM 0 ) </dev/null >/dev/null 2>&1 & exec "$@"';
  const child = spawn('/bin/sh', ['-c', wrapper, 'dynamodb-local', String(process.pid), ...java], {
    // It writes dynamodb-local-metadata.json into its working directory: keep that out of the clone.
    cwd: join(lib, '..'),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  child.unref();
  const endpoint = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= terminate(child));
  const onExit = (): void => killGroup(child, 'SIGKILL');
  process.once('exit', onExit);
  try {
    await waitUntilAnswering(endpoint, child, options.startTimeoutMs ?? 60_000);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    startupMs: Date.now() - started,
    stop: async () => {
      process.off('exit', onExit);
      await stop();
    },
  };
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`DynamoDB Local exited early (${child.exitCode ?? child.signalCode})`);
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-amz-json-1.0',
          'X-Amz-Target': 'DynamoDB_20120810.ListTables',
          Authorization:
            'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
        body: '{}',
        signal: AbortSignal.timeout(2_000),
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`DynamoDB Local did not answer at ${endpoint} within ${timeoutMs} ms`);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  killGroup(child, 'SIGKILL'); // the watchdog, if still there
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => res(port));
    });
  });
}

// --- Jest global setup / teardown of the integration project ------------------------------------

const SLOT = Symbol.for('lrs.test.dynamoDbLocal');
type Slot = Record<typeof SLOT, DynamoDbLocal | undefined>;

/** Starts DynamoDB Local unless DYNAMODB_ENDPOINT is set, and publishes its endpoint in DYNAMODB_ENDPOINT. */
export async function setUpDynamoDbLocal(): Promise<void> {
  if (process.env.DYNAMODB_ENDPOINT) return;
  const local = await startDynamoDbLocal();
  (globalThis as unknown as Slot)[SLOT] = local;
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  console.log(`DynamoDB Local started at ${local.endpoint} in ${(local.startupMs / 1000).toFixed(1)} s`);
}

/** Stops what setUpDynamoDbLocal started, if anything. */
export async function tearDownDynamoDbLocal(): Promise<void> {
  const local = (globalThis as unknown as Slot)[SLOT];
  if (!local) return;
  await local.stop();
  delete (globalThis as unknown as Partial<Slot>)[SLOT];
  delete process.env.DYNAMODB_ENDPOINT;
}
