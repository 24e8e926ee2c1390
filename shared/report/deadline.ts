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
    parent?: AbortSignal,
  ) {
    // AbortSignal.timeout's timer does not keep the process alive.
    const timer = AbortSignal.timeout(Math.max(0, budgetMs));
    this.signal = parent ? AbortSignal.any([timer, parent]) : timer;
  }

  /** A deadline `ms` from now; `parent` (e.g. middy's own signal) makes it fire earlier. */
  static after(ms: number, parent?: AbortSignal): Deadline {
    const budget = Math.max(0, Math.floor(ms));
    return new Deadline(Date.now() + budget, budget, parent);
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
