/**
 * Positional SQL parameters. Every value that comes from a request (terms, range bounds, location
 * ids, the organization) and every number derived from one (offsets, bucket widths) is bound as a
 * parameter; the SQL text only ever holds catalog identifiers, fixed keywords and `$n::TYPE`.
 * The explicit cast keeps DuckDB from inferring a wider type (a JS bigint binds as HUGEINT, which
 * makes every arithmetic on the column 40× slower).
 */
export type SqlType = 'VARCHAR' | 'DOUBLE' | 'BIGINT';

export interface SqlParam {
  readonly type: SqlType;
  readonly value: string | number | bigint;
}

/** A compiled statement: SQL text plus its parameters ($1 is params[0]). */
export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

export class SqlParams {
  private readonly list: SqlParam[] = [];

  /** Binds a value and returns its placeholder, e.g. `$3::BIGINT`. */
  add(value: string | number | bigint, type: SqlType): string {
    const bound = type === 'BIGINT' ? toBigInt(value) : type === 'DOUBLE' ? Number(value) : String(value);
    this.list.push({ type, value: bound });
    return `$${this.list.length}::${type}`;
  }

  /** A BIGINT parameter from a whole number of milliseconds. */
  ms(value: number): string {
    return this.add(value, 'BIGINT');
  }

  get values(): readonly SqlParam[] {
    return this.list;
  }
}

function toBigInt(value: string | number | bigint): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`not a whole number: ${value}`);
  return BigInt(value);
}
