import type { LineChecker } from '#shared/ingest/answer';

let provided: LineChecker | undefined;

/**
 * Puts a line checker in place of reading an ingest body's lines on the handler's own thread: the
 * local server provides its worker threads this way (bin/local/line-checkers.ts), so that they
 * parse, validate and hash a batch while its one thread writes another. Lambda runs one request at
 * a time per instance, so there is nothing to overlap there.
 */
export function provideLineChecker(checker: LineChecker): void {
  provided = checker;
}

/** The provided line checker, if any. */
export function lineChecker(): LineChecker | undefined {
  return provided;
}
