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

/**
 * Runs a CLI's `main` as this process: exits with its code; an unexpected error prints its message
 * (prefixed with the command's name) and exits 1.
 */
export function runAsProcess(name: string, main: (argv: readonly string[]) => Promise<number>): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  main(process.argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${name}: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
