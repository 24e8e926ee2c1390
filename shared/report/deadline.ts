import { ReportTimeoutError } from '../errors';

/**
 * When a report must be answered by, as an instant and as an AbortSignal that fires then. The edge
 * makes one per request (functions/query-report.ts: the Lambda's remaining time less what the answer
 * still needs); it flows through answerReport into the engines and the split pool, which stop their
 * work when it fires (DuckDB: `connection.interrupt()`; OpenSearch: the `_search` is aborted and also
 * carries a `timeout`) and answer {@link ReportTimeoutError}, a 503, never a 500.
 */
export class Deadline {
  readonly signal: AbortSignal;

  private constructor(
    /** Epoch ms at which the work is stopped. */
    readonly at: number,
    /** The whole budget in ms, for the error message. */
    readonly budgetMs: number,
  ) {
    // A timer of our own rather than AbortSignal.timeout: combined with AbortSignal.any, a timeout
    // signal nobody else refers to can be garbage collected, and its timer with it, so that the
    // deadline never fires (seen under the local server: a 4.5 s deadline answered by middy at 6.5 s).
    const controller = new AbortController();
    // unref (Node): the timer does not keep a process alive (the explorer's browser build has no unref).
    const timer: { unref?: () => unknown } = setTimeout(() => controller.abort(), Math.max(0, budgetMs)) as never;
    timer.unref?.();
    this.signal = controller.signal;
  }

  /** A deadline `ms` from now. */
  static after(ms: number): Deadline {
    const budget = Math.max(0, Math.floor(ms));
    return new Deadline(Date.now() + budget, budget);
  }

  get expired(): boolean {
    return this.signal.aborted || Date.now() >= this.at;
  }

  /** Milliseconds left, never below 0. */
  remainingMs(now = Date.now()): number {
    return Math.max(0, this.at - now);
  }

  /** The 503 to answer once the deadline has passed. */
  error(cause?: unknown): ReportTimeoutError {
    return new ReportTimeoutError(this.budgetMs, cause === undefined ? undefined : { cause });
  }

  throwIfExpired(): void {
    if (this.expired) throw this.error();
  }
}
