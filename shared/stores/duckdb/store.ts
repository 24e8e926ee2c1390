import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EngineUnavailableError } from '../../errors';
import type { Store } from '../store';
import { deleteOrganizationRows } from './erase';
import { mapDuckDbError } from './errors';
import { prepareTables } from './layout/migrate';
import { serialized } from './layout/write-lock';
import { DuckDbEngine, type DuckDbEngineOptions } from './report/execute';
import { deleteExpiredMonths } from './retention';
import { prepareRollups } from './rollups/marks';
import { rebuildRollups } from './rollups/rebuild';
import { DuckDbDocumentWriter } from './write';

export { DuckDbEngine, type DuckDbEngineOptions } from './report/execute';
export { expectedLayout } from './layout/schema';
export { ingestDocuments } from './write';

/**
 * What one DuckDB instance may use. DuckDB applies `memory_limit` and `threads` to the whole instance
 * (both are GLOBAL settings: https://duckdb.org/docs/stable/configuration/overview), so they bound all
 * the reports running at once together, which is stricter than a bound per query.
 */
export interface DuckDbResources {
  /**
   * DuckDB's `memory_limit` (its buffer manager: table blocks, hash tables, sorts). Beyond it DuckDB
   * spills to the temp directory, then fails the query (503). The default keeps a hostile report's
   * peak well under 1 GB of process memory with the Node server around it, and still holds the
   * largest legitimate report over the benchmark's 10M events (bench/README.md). @default '512MB'
   */
  readonly memoryLimit?: string;
  /**
   * Worker threads. Each thread keeps its own partial hash tables, so memory grows with threads; two
   * leave the rest of a developer's machine (and the Node event loop) free. @default 2
   */
  readonly threads?: number;
  /**
   * Where DuckDB spills (`temp_directory`); its old spill files are deleted on open, as a process that
   * was killed mid-query leaves them behind. @default `<path>.tmp` for a file; none (no spilling) in memory
   */
  readonly tempDirectory?: string;
  /** Most spill data on disk (`max_temp_directory_size`). @default '4GB' */
  readonly maxTempDirectorySize?: string;
  /**
   * The write-ahead log's size that makes a commit checkpoint (`checkpoint_threshold`, DuckDB's
   * default 16 MiB). A checkpoint compresses the table's last, growing row group again each time, so
   * under a stream of ingest batches a larger log compresses each row fewer times (bench/README.md,
   * "Ingest"); the price is up to this much committed data held in memory until the checkpoint, and
   * as much log to replay on the next open after a crash. @default '64MB'
   */
  readonly checkpointThreshold?: string;
  /**
   * The rollups' grain (docs/rollups.md); a file built with another has its rollups rebuilt. Tests
   * use coarser grains to reach zones the default serves. @default ROLLUP_GRAIN_MS (15 minutes)
   */
  readonly rollupGrainMs?: number;
}

export const DEFAULT_DUCKDB_RESOURCES = {
  memoryLimit: '512MB',
  threads: 2,
  maxTempDirectorySize: '4GB',
  checkpointThreshold: '64MB',
} as const;

/**
 * Opens (or creates) a DuckDB database file, or an in-memory one with `':memory:'`, with bounded
 * resources (DuckDbResources), and makes sure the report tables exist with the current layout. A
 * file another process holds open fails with EngineUnavailableError; a file of the previous layout
 * is migrated (see layout/migrate.ts), one of another layout fails with an Error saying so; then the
 * rollups' tables are made ready (rollups/marks.ts).
 */
export async function openDuckDb(path = ':memory:', resources: DuckDbResources = {}): Promise<DuckDBInstance> {
  const memory = path === ':memory:' || path === '';
  const tempDirectory = resources.tempDirectory ?? (memory ? '' : `${path}.tmp`);
  try {
    const instance = await DuckDBInstance.create(path, {
      memory_limit: resources.memoryLimit ?? DEFAULT_DUCKDB_RESOURCES.memoryLimit,
      threads: String(resources.threads ?? DEFAULT_DUCKDB_RESOURCES.threads),
      temp_directory: tempDirectory,
      max_temp_directory_size: resources.maxTempDirectorySize ?? DEFAULT_DUCKDB_RESOURCES.maxTempDirectorySize,
      checkpoint_threshold: resources.checkpointThreshold ?? DEFAULT_DUCKDB_RESOURCES.checkpointThreshold,
    });
    // The file lock is ours now, so no other process spills there: what is left is from a killed one.
    if (tempDirectory) removeSpillFiles(tempDirectory);
    const connection = await instance.connect();
    try {
      await prepareTables(connection, path);
      await prepareRollups(connection, resources.rollupGrainMs);
    } finally {
      connection.closeSync();
    }
    return instance;
  } catch (e) {
    // At startup the real message helps more than a problem body: only "busy" becomes a 503.
    const mapped = mapDuckDbError(e);
    throw mapped instanceof EngineUnavailableError ? mapped : e;
  }
}

/** Deletes DuckDB's spill files (`duckdb_temp_*`) in `directory`, and nothing else. */
function removeSpillFiles(directory: string): void {
  if (!existsSync(directory)) return;
  for (const name of readdirSync(directory))
    if (name.startsWith('duckdb_temp')) rmSync(join(directory, name), { force: true, recursive: true });
}

export interface DuckDbStoreOptions extends DuckDbEngineOptions {
  /** Where the documents are, for messages. @default `DuckDB` */
  readonly description?: string;
}

/**
 * The DuckDB store over an open instance (openDuckDb): reports, the writer, erasure, retention and
 * the rollups' rebuild, all on the one file, whose writes take turns (./layout/write-lock.ts).
 * `close()` stops the running reports (503), then, in the write turn (after the writes under way),
 * checkpoints the log into the file, so that the file is whole on its own, and closes the instance.
 * The public entry of `shared/stores/duckdb/`: outside `shared/`, code imports this file alone.
 */
export function duckDbStore(instance: DuckDBInstance, options: DuckDbStoreOptions = {}): Store {
  const reports = new DuckDbEngine(instance, options);
  return {
    reports,
    writer: new DuckDbDocumentWriter(instance),
    eraseOrganization: (run) => deleteOrganizationRows(instance, run),
    applyRetention: async (run) => ({ kind: 'rows', deleted: await deleteExpiredMonths(instance, run) }),
    rebuildRollups: () => rebuildRollups(instance),
    description: options.description ?? 'DuckDB',
    close: async () => {
      await reports.close();
      await serialized(instance, async () => {
        const connection = await instance.connect();
        await connection.run('CHECKPOINT');
        connection.closeSync();
        instance.closeSync();
      });
    },
  };
}
