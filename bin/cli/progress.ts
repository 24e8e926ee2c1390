import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` of `total` (total may be an estimate until the end). */
  update(done: number, total: number, payload?: Record<string, unknown>): void;
  /** Shows the final state (100% when done equals total) and ends the bar's line. */
  stop(): void;
}

/**
 * A progress bar on stderr for a long run (seeding, ingesting), so that stdout keeps only results.
 * On a terminal only (cli-progress draws nothing when stderr is not a TTY, e.g. in CI or a pipe).
 * `format` is cli-progress's: {bar}, {percentage}, {value}, {total}, {eta}, and payload names.
 */
export function progressBar(format: string): Progress {
  const bar = new SingleBar({ format, stream: process.stderr, hideCursor: true }, Presets.shades_classic);
  let started = false;
  return {
    update(done, total, payload = {}) {
      if (!started) {
        bar.start(total, done, payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
