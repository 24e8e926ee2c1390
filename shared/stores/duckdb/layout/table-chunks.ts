import duckdb from '@duckdb/node-bindings';
import {
  BIGINT,
  DOUBLE,
  DuckDBDataChunk,
  INTEGER,
  VARCHAR,
  type DuckDBAppender,
  type DuckDBType,
} from '@duckdb/node-api';
import type { ColumnDef } from './schema';

/**
 * Rows of one table, buffered column by column in typed arrays and handed to DuckDB's Appender a
 * data chunk (2,048 rows) at a time: one native call per numeric column and chunk instead of one per
 * value, and no BigInt per BIGINT value (an int64 is written as two 32-bit halves).
 *
 * Strings still cross one at a time (`duckdb_vector_assign_string_element`: DuckDB owns the bytes),
 * except strings of at most 12 UTF-8 bytes, which a `duckdb_string_t` holds inline (duckdb.h: 4-byte
 * length, then the bytes, zero-padded): those are encoded once per distinct value and copied with
 * the rest of the column.
 *
 * Usage: `set*` the columns of row `row`, each at most once (a column not set is NULL), then `endRow()`; `close()`
 * sends the last partial chunk. Values are written as given: validation happened before (documents.ts).
 */
export class TableChunks {
  readonly #appender: DuckDBAppender;
  readonly #chunk: DuckDBDataChunk;
  readonly #columns: readonly ColumnBuffer[];
  readonly #capacity: number;
  /** The row being written, within the current chunk. */
  row = 0;

  constructor(appender: DuckDBAppender, columns: readonly ColumnDef[]) {
    this.#appender = appender;
    this.#capacity = duckdb.vector_size();
    this.#chunk = DuckDBDataChunk.create(columns.map((c) => TYPES[c.type]));
    this.#columns = columns.map((c) => newColumn(c.type, this.#capacity));
  }

  setNumber(column: number, value: number): void {
    (this.#columns[column] as NumericColumn).set(this.row, value);
  }

  setBigInt(column: number, value: number | bigint): void {
    (this.#columns[column] as BigIntColumn).set(this.row, value);
  }

  setString(column: number, value: string): void {
    (this.#columns[column] as VarcharColumn).set(this.row, value);
  }

  /** Writes `value` by the column's type; `null`/`undefined` is NULL. */
  set(column: number, value: unknown): void {
    if (value === undefined || value === null) return;
    const c = this.#columns[column] as ColumnBuffer;
    // A tag, not instanceof: this runs for every value of every row.
    if (c.kind === 'varchar') c.set(this.row, typeof value === 'string' ? value : String(value));
    else if (c.kind === 'bigint') c.set(this.row, value as number | bigint);
    else c.set(this.row, Number(value));
  }

  endRow(): void {
    if (++this.row === this.#capacity) this.flush();
  }

  /** Sends the buffered rows; the Appender itself is closed (and checked) by the caller. */
  flush(): void {
    if (this.row === 0) return;
    const chunk = this.#chunk.chunk;
    this.#chunk.reset();
    this.#columns.forEach((c, i) => c.write(duckdb.data_chunk_get_vector(chunk, i), this.row));
    duckdb.data_chunk_set_size(chunk, this.row);
    this.#appender.appendDataChunk(this.#chunk);
    for (const c of this.#columns) c.clear(this.row);
    this.row = 0;
  }
}

const TYPES: Readonly<Record<ColumnDef['type'], DuckDBType>> = { BIGINT, DOUBLE, INTEGER, VARCHAR };

type ColumnBuffer = NumericColumn | BigIntColumn | VarcharColumn;

function newColumn(type: ColumnDef['type'], capacity: number): ColumnBuffer {
  switch (type) {
    case 'BIGINT':
      return new BigIntColumn(capacity);
    case 'DOUBLE':
      return new NumericColumn(new Float64Array(capacity), capacity);
    case 'INTEGER':
      return new NumericColumn(new Int32Array(capacity), capacity);
    case 'VARCHAR':
      return new VarcharColumn(capacity);
  }
}

/**
 * Validity as DuckDB keeps it (duckdb.h: uint64 words, bit i of the row set when valid), written
 * through 32-bit words: the same bytes on a little-endian machine, which is every platform DuckDB's
 * Node package ships for. Every row starts NULL; `set` (at most once per row and column) marks it
 * valid, so that a row nobody set costs nothing, and a chunk whose rows were all set sends no
 * validity. The data of a NULL row is whatever is there: DuckDB does not read it.
 */
abstract class Column {
  protected readonly valid: Uint32Array<ArrayBuffer>;
  /** Rows set in this chunk. */
  protected sets = 0;

  constructor(capacity: number) {
    this.valid = new Uint32Array(Math.ceil(capacity / 64) * 2);
  }

  protected mark(row: number): void {
    this.valid[row >>> 5] = (this.valid[row >>> 5] as number) | (1 << (row & 31));
    this.sets++;
  }

  write(vector: duckdb.Vector, rows: number): void {
    this.writeData(vector, rows);
    if (this.sets < rows) {
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, this.valid.buffer, 0, Math.ceil(rows / 64) * 8);
    }
  }

  protected abstract writeData(vector: duckdb.Vector, rows: number): void;

  clear(rows: number): void {
    this.valid.fill(0, 0, Math.ceil(rows / 32));
    this.sets = 0;
  }
}

class NumericColumn extends Column {
  readonly kind = 'number';
  constructor(
    private readonly data: Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer>,
    capacity: number,
  ) {
    super(capacity);
  }

  set(row: number, value: number): void {
    this.data[row] = value;
    this.mark(row);
  }

  protected writeData(vector: duckdb.Vector, rows: number): void {
    duckdb.copy_data_to_vector(vector, 0, this.data.buffer, 0, rows * this.data.BYTES_PER_ELEMENT);
  }
}

const TWO_32 = 4_294_967_296;

class BigIntColumn extends Column {
  readonly kind = 'bigint';
  private readonly halves: Int32Array;
  private readonly big: BigInt64Array<ArrayBuffer>;

  constructor(capacity: number) {
    super(capacity);
    this.big = new BigInt64Array(capacity);
    this.halves = new Int32Array(this.big.buffer);
  }

  /** An integer number (epoch ms, a row id) without a BigInt: low and high 32 bits, two's complement. */
  set(row: number, value: number | bigint): void {
    if (typeof value === 'bigint') {
      if (BigInt.asIntN(64, value) !== value) throw new RangeError(`${value} is out of the BIGINT range`);
      this.big[row] = value;
    } else {
      if (!Number.isSafeInteger(value))
        throw new RangeError(`${value} is not an integer DuckDB can store exactly as BIGINT`);
      const high = Math.floor(value / TWO_32);
      this.halves[2 * row] = value - high * TWO_32; // 0 ≤ low < 2³², stored modulo 2³²
      this.halves[2 * row + 1] = high;
    }
    this.mark(row);
  }

  protected writeData(vector: duckdb.Vector, rows: number): void {
    duckdb.copy_data_to_vector(vector, 0, this.big.buffer, 0, rows * 8);
  }
}

/** `duckdb_string_t` images of short strings (≤ 12 UTF-8 bytes), by value; bounded. */
const inlineImages = new Map<string, Uint8Array | null>();
const MAX_IMAGES = 4096;
const encoder = new TextEncoder();

/** The 16-byte inline image of `s`, or null when its UTF-8 form is longer than 12 bytes. */
function inlineImage(s: string): Uint8Array | null {
  // Over 12 UTF-16 units is over 12 UTF-8 bytes: no look-up, and the cache keeps short strings only
  // (a batch's long ones, its documents' ids, are mostly distinct).
  if (s.length > 12) return null;
  let image = inlineImages.get(s);
  if (image !== undefined) return image;
  image = null;
  const bytes = new Uint8Array(16);
  const { read, written } = encoder.encodeInto(s, bytes.subarray(4));
  if (read === s.length && written <= 12) {
    new DataView(bytes.buffer).setUint32(0, written, true);
    image = bytes;
  }
  if (inlineImages.size >= MAX_IMAGES) inlineImages.clear();
  inlineImages.set(s, image);
  return image;
}

class VarcharColumn extends Column {
  readonly kind = 'varchar';
  /**
   * The string_t array: inline strings in place, zeros elsewhere (padding must be zero: DuckDB compares all 16 bytes).
   */
  private readonly images: Uint8Array<ArrayBuffer>;
  /** Rows of each distinct long string (> 12 bytes) in this chunk. */
  private long = new Map<string, number[]>();
  /** The last value set and its inline image (null: long), as neighbouring rows often repeat a value. */
  private last: string | undefined;
  private lastImage: Uint8Array | null = null;
  private lastRows: number[] | undefined;

  constructor(capacity: number) {
    super(capacity);
    this.images = new Uint8Array(capacity * 16);
  }

  set(row: number, value: string): void {
    if (value !== this.last) {
      this.last = value;
      this.lastImage = inlineImage(value);
      this.lastRows = undefined;
    }
    const image = this.lastImage;
    if (image) this.images.set(image, row * 16);
    else {
      let rows = this.lastRows ?? this.long.get(value);
      if (!rows) this.long.set(value, (rows = []));
      this.lastRows = rows;
      rows.push(row);
    }
    this.mark(row);
  }

  /**
   * Inline strings go over with the array. A long string is given to DuckDB once per chunk (it
   * copies the bytes into the vector's string heap); the other rows with the same value get a copy
   * of that row's string_t, which points into the same heap, alive as long as the chunk's vector.
   */
  protected writeData(vector: duckdb.Vector, rows: number): void {
    if (this.long.size > 0) {
      for (const [value, at] of this.long) duckdb.vector_assign_string_element(vector, at[0] as number, value);
      const assigned = duckdb.vector_get_data(vector, rows * 16);
      for (const at of this.long.values()) {
        const first = (at[0] as number) * 16;
        const image = assigned.subarray(first, first + 16);
        for (const row of at) this.images.set(image, row * 16);
      }
    }
    duckdb.copy_data_to_vector(vector, 0, this.images.buffer, 0, rows * 16);
  }

  override clear(rows: number): void {
    super.clear(rows);
    this.images.fill(0, 0, rows * 16);
    this.long = new Map();
    this.lastRows = undefined;
  }
}
