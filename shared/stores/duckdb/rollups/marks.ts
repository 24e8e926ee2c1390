import { BIGINT, LIST, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { COLLECTIONS, type Collection } from '../../../documents/fields';
import { grainOf, ROLLUP_GRAIN_MS } from '../../../rollups/match';
import { ident, TABLES } from '../layout/schema';
import {
  DIRTY_TABLE,
  GRAIN_TABLE,
  grainOfSql,
  rollupLayout,
  rollupLevels,
  rollupSchemaStatements,
  rollupTables,
} from '../layout/rollup-tables';

// The rollups' bookkeeping in the file (docs/rollups.md): the grain they are built at, and one row
// per dirty grain (a write or a deletion records its grains in its own transaction); the watermark a
// report reads them up to. Their rebuild is ./rebuild.ts.
const GRAIN = `(SELECT grain FROM ${ident(GRAIN_TABLE)})`;
const MINUTE = 60_000;

/**
 * Creates the rollup tables where they are missing. A file without them (an earlier version), or
 * whose rollups were built with another grain or layout, has every grain of its documents marked dirty, so
 * that the next rebuild makes the rollups whole; until then reports read raw past the watermark.
 */
export async function prepareRollups(connection: DuckDBConnection, grainMs: number = ROLLUP_GRAIN_MS): Promise<void> {
  if (grainMs % MINUTE !== 0 || grainMs <= 0) throw new Error(`a rollup grain is whole minutes, not ${grainMs} ms`);
  for (const statement of rollupSchemaStatements(grainMs)) await connection.run(statement);
  const layout = rollupLayout(grainMs);
  const stored = (await connection.runAndReadAll(`SELECT layout FROM ${ident(GRAIN_TABLE)}`)).getRowsJS()[0]?.[0];
  if (stored === layout) return;
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`DELETE FROM ${ident(GRAIN_TABLE)}`);
    await connection.run(`INSERT INTO ${ident(GRAIN_TABLE)} VALUES (${grainMs}, $1)`, [layout]);
    await connection.run(`DELETE FROM ${ident(DIRTY_TABLE)}`);
    for (const table of rollupLevels(grainMs).flatMap(rollupTables))
      await connection.run(`DELETE FROM ${ident(table.name)}`);
    for (const c of COLLECTIONS) {
      const ts = ident('timestamp');
      await connection.run(
        `INSERT INTO ${ident(DIRTY_TABLE)} SELECT DISTINCT '${c}', ${grainOfSql(ts, GRAIN)} FROM ${ident(TABLES[c].root)}`,
      );
    }
    await connection.run('COMMIT');
  } catch (e) {
    await connection.run('ROLLBACK');
    throw e;
  }
}

/**
 * Records the grains of documents being written, in the write's transaction: the minutes of their
 * times, distinct (a batch of a day is 1,440 values at most), floored to the grain in SQL.
 */
export async function markWritten(
  connection: DuckDBConnection,
  collection: Collection,
  timestamps: Iterable<number>,
): Promise<void> {
  const minutes = new Set<number>();
  for (const t of timestamps) minutes.add(grainOf(t, MINUTE));
  if (minutes.size === 0) return;
  await connection.run(
    `INSERT INTO ${ident(DIRTY_TABLE)} SELECT DISTINCT '${collection}', ${grainOfSql('m', GRAIN)} FROM (SELECT unnest($1) AS m)`,
    [listValue([...minutes].map(BigInt))],
    [LIST(BIGINT)],
  );
}

/** Records the grains of the documents a deletion is about to delete (`where`: a condition on the root table). */
export async function markDeleting(
  connection: DuckDBConnection,
  collection: Collection,
  where: string,
  params: readonly DuckDBValue[],
): Promise<void> {
  const ts = ident('timestamp');
  await connection.run(
    `INSERT INTO ${ident(DIRTY_TABLE)} SELECT DISTINCT '${collection}', ${grainOfSql(ts, GRAIN)} FROM ${ident(TABLES[collection].root)} WHERE ${where}`,
    [...params],
  );
}

/** The start of the collection's earliest dirty grain (+Infinity: none), and the grain, as one consistent read. */
export async function readWatermark(
  connection: DuckDBConnection,
  collection: Collection,
): Promise<{ grainMs: number; watermark: number }> {
  const reader = await connection.runAndReadAll(
    `SELECT (SELECT grain FROM ${ident(GRAIN_TABLE)}), (SELECT min(grain) FROM ${ident(DIRTY_TABLE)} WHERE collection = '${collection}')`,
  );
  const [grain, dirty] = reader.getRowsJS()[0] ?? [];
  return {
    grainMs: Number(grain ?? ROLLUP_GRAIN_MS),
    watermark: dirty === null || dirty === undefined ? Infinity : Number(dirty),
  };
}
