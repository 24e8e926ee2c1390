import { AppError, EngineUnavailableError, InternalError } from '../../../errors';

/**
 * DuckDB failures → our errors. DuckDB reports its error class as the message prefix
 * (`IO Error: Could not set lock on file ...`, `Binder Error: ...`; see duckdb's ExceptionType).
 * Only I/O and lock problems, which a retry may outlive (another process holds the database file,
 * a full disk), are 503; anything else is SQL we built wrong or a broken invariant: a 500.
 */
const UNAVAILABLE = /^(IO Error|Connection Error)\b|Could not set lock|Conflicting lock/i;

export function mapDuckDbError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (UNAVAILABLE.test(message)) {
    return new EngineUnavailableError('The local report database is busy or unavailable; try again shortly.', 5, { cause: e });
  }
  return new InternalError({ cause: e });
}
