import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { COLLECTIONS, type Collection } from '../../../documents/fields';
import type { RebuildOutcome } from '../../store';
import { ROLLUP_GRAIN_MS } from '../../../rollups/match';
import { dirtyRanges, MERGE_GAP_MS } from '../../../rollups/upkeep';
import { serialized } from '../layout/write-lock';
import { ident } from '../layout/schema';
import {
  coarserColumns,
  DIRTY_TABLE,
  GRAIN_TABLE,
  rollupLevels,
  rollupTables,
  type RollupTable,
} from '../layout/rollup-tables';

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
        const grain = Number(
          (await connection.runAndReadAll(`SELECT grain FROM ${ident(GRAIN_TABLE)}`)).getRowsJS()[0]?.[0] ??
            ROLLUP_GRAIN_MS,
        );
        const levels = rollupLevels(grain).map((level) => ({ level, tables: rollupTables(level) }));
        const coarsest = levels.at(-1)?.level ?? grain;
        const rebuilt = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>;
        for (const c of COLLECTIONS) {
          const reader = await connection.runAndReadAll(
            `SELECT DISTINCT grain FROM ${ident(DIRTY_TABLE)} WHERE collection = '${c}' ORDER BY 1`,
          );
          const grains = reader.getRowsJS().map((row) => Number(row[0]));
          if (grains.length === 0) continue;
          for (const { from, to } of dirtyRanges(grains, grain, coarsest, MERGE_GAP_MS.duckdb)) {
            let finer: readonly RollupTable[] | undefined;
            for (const { level, tables } of levels) {
              const own = tables.filter((table) => table.collection === c);
              for (const [i, t] of own.entries())
                await rebuildRange(connection, t, from, to, finer?.[i] && { table: finer[i] as RollupTable, level });
              finer = own;
            }
          }
          await connection.run(`DELETE FROM ${ident(DIRTY_TABLE)} WHERE collection = '${c}'`);
          rebuilt[c] = grains.length;
        }
        await connection.run('COMMIT');
        return {
          rebuilt,
          backfilled: Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as Record<Collection, number>,
          more: false,
        };
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
async function rebuildRange(
  connection: DuckDBConnection,
  t: RollupTable,
  from: number,
  to: number,
  finer?: { table: RollupTable; level: number },
): Promise<void> {
  const ts = ident('timestamp');
  await connection.run(`DELETE FROM ${ident(t.name)} WHERE ${ts} >= ${from} AND ${ts} < ${to}`);
  if (finer) {
    const columns = coarserColumns(finer.table, finer.level);
    await connection.run(
      `INSERT INTO ${ident(t.name)} SELECT ${columns.join(', ')} FROM ${ident(finer.table.name)} f WHERE f.${ts} >= ${from} AND f.${ts} < ${to} GROUP BY ALL`,
    );
    return;
  }
  const columns = [...t.dimensions, ...t.measures].map((col) => `${col.build} AS ${ident(col.name)}`);
  const times = [t.time, ...(t.path ? [`d.${ts}`] : [])]
    .map((time) => `${time} >= ${from} AND ${time} < ${to}`)
    .join(' AND ');
  await connection.run(
    `INSERT INTO ${ident(t.name)} SELECT ${columns.join(', ')} FROM ${t.from} WHERE ${times} GROUP BY ALL`,
  );
}
