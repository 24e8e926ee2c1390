import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

/** How Lambda reports a failed invocation. */
export interface LambdaError {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace?: readonly string[];
}

/** A failed invocation, as the caller of Lambda's Invoke sees it. */
export class FunctionError extends Error {
  constructor(
    readonly functionName: string,
    readonly error: LambdaError,
  ) {
    super(`${functionName}: ${error.errorType}: ${error.errorMessage}`);
    this.name = error.errorType;
  }
}

export interface LambdaFunctionOptions {
  /** Logical id of the function in the template (its name here). */
  readonly name: string;
  /** The asset folder (LAMBDA_TASK_ROOT). */
  readonly codeDir: string;
  /** `index.handler` */
  readonly handler: string;
  /** The function's own environment (template) plus what Lambda adds. */
  readonly environment: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  readonly arn: string;
  /** The Node.js executable of the Lambda runtime. */
  readonly nodePath: string;
}

interface Sandbox {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  busy: boolean;
}

const RUNTIME = join(__dirname, 'lambda-runtime.mjs');

/**
 * One function of the cloud assembly, run as Lambda runs it: its asset in processes of the Lambda
 * Node.js version (./lambda-runtime.mjs), one invocation at a time per process; a concurrent
 * invocation gets a new process (another sandbox, with its own cold start), an idle one is reused.
 * Everything the functions print (Powertools' JSON logs, EMF metrics) is kept in `logs`.
 */
export class LambdaFunction {
  readonly logs: string[] = [];
  private readonly sandboxes: Sandbox[] = [];

  constructor(readonly options: LambdaFunctionOptions) {}

  /** Invokes the function with `event` (RequestResponse); resolves to its result or rejects with a FunctionError. */
  async invoke<T = unknown>(event: unknown): Promise<T> {
    const sandbox = this.sandboxes.find((s) => !s.busy) ?? this.start();
    sandbox.busy = true;
    try {
      await sandbox.ready;
      return await this.run<T>(sandbox, event);
    } finally {
      sandbox.busy = false;
    }
  }

  /** Lines of the logs that are JSON, parsed (Powertools logs and EMF metrics). */
  jsonLogs(): Record<string, unknown>[] {
    return this.logs.flatMap((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return value && typeof value === 'object' ? [value as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.sandboxes.splice(0).map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            s.child.once('exit', () => resolve());
            s.child.kill('SIGKILL');
          }),
      ),
    );
  }

  private start(): Sandbox {
    const { codeDir, handler, environment, nodePath, name } = this.options;
    const child = fork(RUNTIME, [], {
      cwd: codeDir,
      execPath: nodePath,
      // Only the function's environment, as in Lambda: nothing of this test process leaks in.
      env: { ...environment, LAMBDA_TASK_ROOT: codeDir, _HANDLER: handler, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const collect = (chunk: Buffer) =>
      this.logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l.length > 0),
      );
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', (m: { type: string; error?: LambdaError }) =>
        m.type === 'ready'
          ? resolve()
          : reject(
              new FunctionError(name, m.error ?? { errorType: 'Runtime.Unknown', errorMessage: JSON.stringify(m) }),
            ),
      );
      child.once('exit', (code) =>
        reject(
          new FunctionError(name, {
            errorType: 'Runtime.ExitError',
            errorMessage: `exited with ${code} during init: ${this.logs.slice(-5).join('\n')}`,
          }),
        ),
      );
    });
    ready.catch(() => undefined); // observed by invoke()
    const sandbox: Sandbox = { child, ready, busy: false };
    this.sandboxes.push(sandbox);
    return sandbox;
  }

  private run<T>(sandbox: Sandbox, event: unknown): Promise<T> {
    const { name, timeoutSeconds, arn } = this.options;
    const id = randomUUID();
    const deadline = Date.now() + timeoutSeconds * 1000;
    const traceId = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=1`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        sandbox.child.off('message', onMessage);
        // Lambda ends a timed-out sandbox; the next invocation starts cold.
        sandbox.child.kill('SIGKILL');
        this.sandboxes.splice(this.sandboxes.indexOf(sandbox), 1);
        reject(
          new FunctionError(name, {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${timeoutSeconds}.00 seconds`,
          }),
        );
      }, timeoutSeconds * 1000);
      const onMessage = (m: { type: string; id?: string; result?: T; error?: LambdaError }) => {
        if (m.id !== id) return;
        clearTimeout(timer);
        sandbox.child.off('message', onMessage);
        if (m.type === 'result') resolve(m.result as T);
        else reject(new FunctionError(name, m.error!));
      };
      sandbox.child.on('message', onMessage);
      sandbox.child.send({ type: 'invoke', id, event, requestId: id, traceId, deadline, functionArn: arn });
    });
  }
}
