import { setImmediate } from 'node:timers/promises';
import type { Deadline } from './deadline';

/**
 * How long shaping and rendering may hold the event loop before they let it run: the local server
 * answers every request of the process on it (`/health` too), and a report's deadline is only seen
 * between turns.
 */
export const PACE_TURN_MS = 20;
/** Items handled between two looks at the clock. */
const CHECK_EVERY = 256;

/**
 * Long synchronous work (shaping the rows of a report, rendering its body) in short turns: between
 * items the pacer checks the deadline (a ReportTimeoutError, 503, once it has passed) and, once it
 * has held the event loop PACE_TURN_MS, yields it with setImmediate (I/O and timers run first).
 * @default no deadline: only the yielding
 */
export class Pacer {
  private since = performance.now();

  constructor(private readonly deadline?: Deadline) {}

  /** Between two pieces of work: throws past the deadline, yields when the turn is over. */
  async turn(): Promise<void> {
    this.deadline?.throwIfExpired();
    if (performance.now() - this.since < PACE_TURN_MS) return;
    await setImmediate();
    this.since = performance.now();
    this.deadline?.throwIfExpired();
  }

  /** `fn` over every item, in order, in turns. */
  async map<T, R>(items: readonly T[], fn: (item: T) => R): Promise<R[]> {
    const out = new Array<R>(items.length);
    for (let i = 0; i < items.length; i++) {
      if (i % CHECK_EVERY === 0) await this.turn();
      out[i] = fn(items[i] as T);
    }
    return out;
  }

  /** `fn` over consecutive chunks of at most CHECK_EVERY items, in order, in turns. */
  async chunks<T, R>(items: readonly T[], fn: (chunk: readonly T[]) => R): Promise<R[]> {
    const out: R[] = [];
    for (let i = 0; i < items.length; i += CHECK_EVERY) {
      await this.turn();
      out.push(fn(items.slice(i, i + CHECK_EVERY)));
    }
    return out;
  }
}
