import { dirname } from 'node:path';
import { CommanderError, type Command } from 'commander';

/**
 * Parses `argv` (as process.argv) into `program`. Commander's own outcomes, help shown (0) or a bad
 * flag reported (1), come back as an exit code instead of ending the process, so a CLI returns
 * before doing anything and a test can call it in-process; undefined means: go on.
 */
export function parseCommand(program: Command, argv: readonly string[]): number | undefined {
  program.exitOverride();
  try {
    program.parse([...argv]);
    return undefined;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    throw e;
  }
}

const HELD = /Could not set lock on file "([^"]+)"(?:[^(]*\(PID (\d+)\))?/;

/**
 * One line a person can act on for what stops a command before it starts: a port in use, a data
 * folder another process holds (DuckDB allows one writer process per file: a running `npm start`
 * holds its folder), else the error's first line. Never a stack trace: these are the user's
 * situations, not the program's faults.
 */
export function describeFailure(e: unknown): string {
  const error = e as Partial<NodeJS.ErrnoException & { port: number }> | undefined;
  if (error?.code === 'EADDRINUSE') {
    const port = error.port === undefined ? 'the port' : `port ${error.port}`;
    return `${port} is in use (another npm start?): stop what holds it, or choose another with --port <n> or PORT=<n>`;
  }
  const message = e instanceof Error ? e.message : String(e);
  // The engine wraps DuckDB's error in its own 503 (the cause): read the whole chain.
  const messages: string[] = [];
  for (let at: unknown = e; at !== undefined && messages.length < 5; at = (at as { cause?: unknown }).cause)
    messages.push(at instanceof Error ? at.message : String(at));
  const held = messages.map((m) => HELD.exec(m)).find(Boolean);
  if (held) {
    const by = held[2] ? ` (process ${held[2]})` : '';
    return `the data folder ${dirname(held[1]!)} is in use by another process${by}, a running npm start perhaps: stop it, or use another folder with --data-dir <dir>`;
  }
  return message.split('\n')[0]!;
}

/**
 * Runs a CLI's `main` as this process: exits with its code; an error prints one line (prefixed
 * with the command's name, see describeFailure) and exits 1.
 */
export function runAsProcess(name: string, main: (argv: readonly string[]) => Promise<number>): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  main(process.argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${name}: ${describeFailure(e)}\n`);
      process.exit(1);
    },
  );
}
