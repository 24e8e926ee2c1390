import { AppError } from './errors';

/**
 * `task` over every item, at most `concurrency` at once, results in item order. After the first
 * failure no new task starts; once the running ones have settled, the first AppError is thrown
 * (else the first error), so a failure never leaves work running behind the caller's back.
 * Used by split reports (slices, stored results) and the occupancy refresh (locations).
 */
export async function runPool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (errors.length === 0 && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (errors.length > 0) throw errors.find((e) => e instanceof AppError) ?? errors[0];
  return results;
}

/**
 * Work shared by identical askers (single flight): while the work of a key runs, everyone asking
 * with that key gets its promise, the same value or the same error, and nothing is kept once it
 * has settled. For answers that many ask at once (a dashboard opened by many, a client retrying):
 * one computation, one copy held.
 */
export class SingleFlight<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    const joined = this.running.get(key);
    if (joined) return joined;
    const started = work().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }

  /** Keys being worked on now. */
  get size(): number {
    return this.running.size;
  }
}

/**
 * At most `limit` tasks at once; the others wait their turn in order. A waiter whose `signal` fires
 * leaves the queue with the signal's reason, never having started.
 */
export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.active >= this.limit) await this.turn(signal);
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  /** Resolves when a running task hands its place over (the count stays, passed on). */
  private turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      signal?.throwIfAborted();
      const go = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      this.waiting.push(go);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }
}
