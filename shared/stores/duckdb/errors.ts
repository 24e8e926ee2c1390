import { AppError, EngineUnavailableError, InternalError } from '../../errors';

/**
 * DuckDB failures → our errors. DuckDB reports its error class as the message prefix
 * (`IO Error: Could not set lock on file ...`, `Binder Error: ...`; see duckdb's ExceptionType).
 * I/O and lock problems, which a retry may outlive (another process holds the database file, a full
 * disk), are 503; so is a report that needs more memory (and spill space) than the instance may use
 * (`Out of Memory Error`), as OpenSearch's circuit breakers answer 429, which the OpenSearch engine
 * maps to 503 too. Anything else is SQL we built wrong or a broken invariant: a 500.
 */
const UNAVAILABLE = /^(IO Error|Connection Error)\b|Could not set lock|Conflicting lock/i;
const OUT_OF_MEMORY = /^Out of Memory Error\b/i;

export function mapDuckDbError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (OUT_OF_MEMORY.test(message)) {
    return new EngineUnavailableError(
      'This report needs more memory than the report engine may use; try again when fewer reports run, or make it cheaper (a shorter time range, fewer buckets).',
      5,
      { cause: e },
    );
  }
  if (UNAVAILABLE.test(message)) {
    return new EngineUnavailableError('The local report database is busy or unavailable; try again shortly.', 5, { cause: e });
  }
  return new InternalError({ cause: e });
}
