import { BIGINT, LIST, listValue, type DuckDBConnection, type DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { COLLECTIONS, type Collection } from '../../../documents/fields';
import type { RebuildOutcome } from '../../store';
import { ROLLUP_GRAIN_MS } from '../../../rollups/match';
import { serialized } from '../layout/write-lock';
import { ident, TABLES } from '../layout/schema';
import { coarserColumns, DIRTY_TABLE, GRAIN_TABLE, grainOf, rollupLayout, rollupLevels, rollupSchemaStatements, rollupTables, type RollupTable } from '../layout/rollup-tables';

const GRAIN = `(SELECT grain FROM ${ident(GRAIN_TABLE)})`;
const MINUTE = 60_000;
/** Dirty grains closer than this are rebuilt as one range (rebuilding a clean grain changes nothing). */
const MERGE_GAP_MS = 86_400_000;

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
    for (const table of rollupLevels(grainMs).flatMap(rollupTables)) await connection.run(`DELETE FROM ${ident(table.name)}`);
    for (const c of COLLECTIONS) {
      const ts = ident('timestamp');
      await connection.run(`INSERT INTO ${ident(DIRTY_TABLE)} SELECT DISTINCT '${c}', ${grainOf(ts, GRAIN)} FROM ${ident(TABLES[c].root)}`);
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
export async function markWritten(connection: DuckDBConnection, collection: Collection, timestamps: Iterable<number>): Promise<void> {
  const minutes = new Set<number>();
  for (const t of timestamps) minutes.add(t - (((t % MINUTE) + MINUTE) % MINUTE));
  if (minutes.size === 0) return;
  await connection.run(
    `INSERT INTO ${ident(DIRTY_TABLE)} SELECT DISTINCT '${collection}', ${grainOf('m', GRAIN)} FROM (SELECT unnest($1) AS m)`,
    [listValue([...minutes].map(BigInt))],
    [LIST(BIGINT)],
  );
}

/** Records the grains of the documents a deletion is about to delete (`where`: a condition on the root table). */
export async function markDeleting(connection: DuckDBConnection, collection: Collection, where: string, params: readonly DuckDBValue[]): Promise<void> {
  const ts = ident('timestamp');
  await connection.run(
    `INSERT INTO ${ident(DIRTY_TABLE)} SELECT DISTINCT '${collection}', ${grainOf(ts, GRAIN)} FROM ${ident(TABLES[collection].root)} WHERE ${where}`,
    [...params],
  );
}

/**
 * Recomputes every dirty grain from the documents and clears the marks, in one transaction taken in
 * turn with the writes (so no write falls between reading the marks and clearing them): each range
 * of dirty grains has its rollup rows deleted and grouped again from the raw rows, whole, never
 * incremented. Returns the grains rebuilt per collection (none backfilled: a file marks every grain
 * itself when its rollups are made, prepareRollups; never more: one pass takes every dirty grain).
 */
export function rebuildRollups(instance: DuckDBInstance): Promise<RebuildOutcome> {
  return serialized(instance, async () => {
    const connection = await instance.connect();
    try {
      await connection.run('BEGIN TRANSACTION');
      try {
        const grain = Number((await connection.runAndReadAll(`SELECT grain FROM ${ident(GRAIN_TABLE)}`)).getRowsJS()[0]?.[0] ?? ROLLUP_GRAIN_MS);
        const levels = rollupLevels(grain).map((level) => ({ level, tables: rollupTables(level) }));
        const coarsest = levels.at(-1)?.level ?? grain;
        const rebuilt = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;
        for (const c of COLLECTIONS) {
          const reader = await connection.runAndReadAll(`SELECT DISTINCT grain FROM ${ident(DIRTY_TABLE)} WHERE collection = '${c}' ORDER BY 1`);
          const grains = reader.getRowsJS().map((row) => Number(row[0]));
          if (grains.length === 0) continue;
          for (const [from, to] of ranges(grains, grain, coarsest)) {
            let finer: readonly RollupTable[] | undefined;
            for (const { level, tables } of levels) {
              const own = tables.filter((table) => table.collection === c);
              for (const [i, t] of own.entries()) await rebuildRange(connection, t, from, to, finer?.[i] && { table: finer[i] as RollupTable, level });
              finer = own;
            }
          }
          await connection.run(`DELETE FROM ${ident(DIRTY_TABLE)} WHERE collection = '${c}'`);
          rebuilt[c] = grains.length;
        }
        await connection.run('COMMIT');
        return { rebuilt, backfilled: Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>, more: false };
      } catch (e) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    } finally {
      connection.closeSync();
    }
  });
}

/**
 * One level's rows of [from, to) deleted and grouped again: the finest from the documents, a coarser
 * one from the rows of the level below (`finer`, rebuilt just before), whole, never incremented.
 */
async function rebuildRange(connection: DuckDBConnection, t: RollupTable, from: number, to: number, finer?: { table: RollupTable; level: number }): Promise<void> {
  const ts = ident('timestamp');
  await connection.run(`DELETE FROM ${ident(t.name)} WHERE ${ts} >= ${from} AND ${ts} < ${to}`);
  if (finer) {
    const columns = coarserColumns(finer.table, finer.level);
    await connection.run(`INSERT INTO ${ident(t.name)} SELECT ${columns.join(', ')} FROM ${ident(finer.table.name)} f WHERE f.${ts} >= ${from} AND f.${ts} < ${to} GROUP BY ALL`);
    return;
  }
  const columns = [...t.dimensions, ...t.measures].map((col) => `${col.build} AS ${ident(col.name)}`);
  const times = [t.time, ...(t.path ? [`d.${ts}`] : [])].map((time) => `${time} >= ${from} AND ${time} < ${to}`).join(' AND ');
  await connection.run(`INSERT INTO ${ident(t.name)} SELECT ${columns.join(', ')} FROM ${t.from} WHERE ${times} GROUP BY ALL`);
}

/**
 * Sorted grain starts → [from, to) ranges, widened to the coarsest level's grains (a coarser row is
 * whole or not at all), joining those less than MERGE_GAP_MS apart.
 */
function ranges(grains: readonly number[], grain: number, coarsest: number): [number, number][] {
  const out: [number, number][] = [];
  const floor = (t: number) => t - (((t % coarsest) + coarsest) % coarsest);
  for (const g of grains) {
    const [from, to] = [floor(g), floor(g + grain - 1) + coarsest];
    const last = out.at(-1);
    if (last && from - last[1] < MERGE_GAP_MS) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** The start of the collection's earliest dirty grain (+Infinity: none), and the grain, as one consistent read. */
export async function readWatermark(connection: DuckDBConnection, collection: Collection): Promise<{ grainMs: number; watermark: number }> {
  const reader = await connection.runAndReadAll(
    `SELECT (SELECT grain FROM ${ident(GRAIN_TABLE)}), (SELECT min(grain) FROM ${ident(DIRTY_TABLE)} WHERE collection = '${collection}')`,
  );
  const [grain, dirty] = reader.getRowsJS()[0] ?? [];
  return { grainMs: Number(grain ?? ROLLUP_GRAIN_MS), watermark: dirty === null || dirty === undefined ? Infinity : Number(dirty) };
}
