import { AppError, EngineUnavailableError, InternalError, ReportTooExpensiveError } from '../../errors';

/**
 * DuckDB failures → our errors. DuckDB reports its error class as the message prefix
 * (`IO Error: Could not set lock on file ...`, `Binder Error: ...`; see duckdb's ExceptionType).
 * I/O and lock problems, which a retry may outlive (another process holds the database file, a full
 * disk), are 503; so is work that needs more memory (and spill space) than the instance may use
 * (`Out of Memory Error`): for a report, its own problem type (report-too-expensive), as an
 * OpenSearch circuit breaker is; elsewhere (a write), the engine is busy. Anything else is SQL we
 * built wrong or a broken invariant: a 500.
 */
const UNAVAILABLE = /^(IO Error|Connection Error)\b|Could not set lock|Conflicting lock/i;
const OUT_OF_MEMORY = /^Out of Memory Error\b/i;

/** What the failure was part of: a report's out-of-memory is the report's own cost. @default 'other' */
export type DuckDbWork = 'report' | 'other';

export function mapDuckDbError(e: unknown, work: DuckDbWork = 'other'): AppError {
  if (e instanceof AppError) return e;
  const message = messageOf(e);
  if (OUT_OF_MEMORY.test(message)) {
    if (work === 'report') return new ReportTooExpensiveError({ cause: e });
    return new EngineUnavailableError('The local report database has no memory to spare; try again shortly.', 5, {
      cause: e,
    });
  }
  if (UNAVAILABLE.test(message)) {
    return new EngineUnavailableError('The local report database is busy or unavailable; try again shortly.', 5, {
      cause: e,
    });
  }
  return new InternalError({ cause: e });
}

/**
 * The message of a failure, read as a property: the native binding's errors are not `instanceof
 * Error` where its realm is not the caller's (jest's VM context), and `String(e)` prefixes "Error: ".
 */
function messageOf(e: unknown): string {
  const message = typeof e === 'object' && e !== null ? (e as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : String(e);
}
