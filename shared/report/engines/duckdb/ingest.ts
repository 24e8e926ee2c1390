import { BIGINT, listValue, VARCHAR, LIST, type DuckDBAppender, type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import type { Collection, NestedPath } from '../../fields';
import type { ReportDocument } from '../../documents';
import { mapDuckDbError } from './errors';
import { DOC_ID, ident, nestedColumns, PARENT_ID, ROW_ID, rootColumns, SHARD, shardOf, TABLES, type ColumnDef } from './schema';
import { TableChunks } from './table-chunks';

type Row = Readonly<Record<string, unknown>>;

/** Writes are serialized per database: row ids are handed out from max(row_id). */
const writeLocks = new WeakMap<DuckDBInstance, Promise<unknown>>();

/**
 * Appends validated documents (see documents.ts) with DuckDB's Appender, in one transaction.
 * A document whose `id` is already stored in the same UTC month replaces it (and its nested
 * items), as OpenSearch replaces a document of the same `_id` in the same monthly index; within one
 * call the last document with an id wins, as in a bulk request. Returns the number written.
 */
export async function ingestDocuments<C extends Collection>(
  instance: DuckDBInstance,
  collection: C,
  documents: readonly ReportDocument<C>[],
): Promise<number> {
  const previous = writeLocks.get(instance) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => write(instance, collection, documents as unknown as readonly Row[]));
  writeLocks.set(instance, run);
  return run;
}

async function write(instance: DuckDBInstance, collection: Collection, documents: readonly Row[]): Promise<number> {
  const docs = lastPerIdAndMonth(documents);
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await connection.run('BEGIN TRANSACTION');
    try {
      await deleteReplaced(connection, collection, docs);
      const first = await nextRowId(connection, collection);
      await appendAll(connection, collection, docs, first);
      await connection.run('COMMIT');
    } catch (e) {
      await connection.run('ROLLBACK');
      throw e;
    }
    return docs.length;
  } catch (e) {
    throw mapDuckDbError(e);
  } finally {
    connection?.closeSync();
  }
}

const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

function lastPerIdAndMonth(documents: readonly Row[]): Row[] {
  const seen = new Set<string>();
  const kept: Row[] = [];
  for (let i = documents.length - 1; i >= 0; i--) {
    const doc = documents[i] as Row;
    if (typeof doc.id === 'string') {
      const key = `${doc.id}\u0000${monthOf(doc.timestamp as number)}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    kept.push(doc);
  }
  return kept.reverse();
}

async function deleteReplaced(connection: DuckDBConnection, collection: Collection, docs: readonly Row[]): Promise<void> {
  const months = new Map<string, Set<string>>();
  for (const doc of docs) if (typeof doc.id === 'string') (months.get(doc.id) ?? months.set(doc.id, new Set()).get(doc.id)!).add(monthOf(doc.timestamp as number));
  if (months.size === 0) return;
  const root = ident(TABLES[collection].root);
  const existing = await connection.runAndReadAll(
    `SELECT ${ident(ROW_ID)}, ${ident(DOC_ID)}, ${ident('timestamp')} FROM ${root} WHERE ${ident(DOC_ID)} IN (SELECT unnest($1))`,
    [listValue([...months.keys()])],
    [LIST(VARCHAR)],
  );
  const rowIds = (existing.getRowsJS() as [bigint, string, bigint][])
    .filter(([, id, ts]) => months.get(id)?.has(monthOf(Number(ts))))
    .map(([rowId]) => rowId);
  if (rowIds.length === 0) return;
  const tables = [...Object.values(TABLES[collection].nested).map((t) => [t, PARENT_ID] as const), [TABLES[collection].root, ROW_ID] as const];
  for (const [table, key] of tables) {
    await connection.run(`DELETE FROM ${ident(table)} WHERE ${ident(key)} IN (SELECT unnest($1))`, [listValue(rowIds)], [LIST(BIGINT)]);
  }
}

async function nextRowId(connection: DuckDBConnection, collection: Collection): Promise<bigint> {
  const reader = await connection.runAndReadAll(`SELECT coalesce(max(${ident(ROW_ID)}), 0) FROM ${ident(TABLES[collection].root)}`);
  return BigInt(reader.getRowsJS()[0]?.[0] as bigint) + 1n;
}

/** Column layout of a collection's tables, computed once. */
interface TablePlan {
  readonly root: readonly ColumnDef[];
  /** Root columns read from the document, by index: all but row_id, doc_id and _shard. */
  readonly rootFields: readonly { readonly index: number; readonly name: string }[];
  readonly children: readonly { readonly path: NestedPath; readonly table: string; readonly columns: readonly ColumnDef[] }[];
}

const plans = new Map<Collection, TablePlan>();

function tablePlan(collection: Collection): TablePlan {
  let plan = plans.get(collection);
  if (!plan) {
    const root = rootColumns(collection);
    const generated = new Set([ROW_ID, DOC_ID, SHARD]);
    plan = {
      root,
      rootFields: root.flatMap((c, index) => (generated.has(c.name) ? [] : [{ index, name: c.name }])),
      children: (Object.entries(TABLES[collection].nested) as [NestedPath, string][]).map(([path, table]) => ({ path, table, columns: nestedColumns(collection, path) })),
    };
    plans.set(collection, plan);
  }
  return plan;
}

/** The shard (YYYYMM) of a timestamp, remembering the last month's bounds: documents come roughly in time order. */
class Shards {
  private from = 0;
  private to = -1;
  private shard = 0;

  of(timestampMs: number): number {
    if (timestampMs >= this.from && timestampMs < this.to) return this.shard;
    const d = new Date(timestampMs);
    this.from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    this.to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    this.shard = shardOf(timestampMs);
    return this.shard;
  }
}

/**
 * Appends the documents and their nested items column by column, a data chunk at a time (see
 * table-chunks.ts); row ids are handed out in document order from `firstRowId`, and every item
 * carries its document's row id, in item order (the child table's rowid is the item order).
 */
async function appendAll(connection: DuckDBConnection, collection: Collection, docs: readonly Row[], firstRowId: bigint): Promise<void> {
  const plan = tablePlan(collection);
  const appenders: DuckDBAppender[] = [];
  try {
    const rootAppender = await connection.createAppender(TABLES[collection].root);
    appenders.push(rootAppender);
    const root = new TableChunks(rootAppender, plan.root);
    const children: { readonly path: NestedPath; readonly chunks: TableChunks; readonly names: readonly string[] }[] = [];
    for (const child of plan.children) {
      const appender = await connection.createAppender(child.table);
      appenders.push(appender);
      children.push({ path: child.path, chunks: new TableChunks(appender, child.columns), names: child.columns.map((c) => c.name) });
    }
    const rowIdCol = plan.root.findIndex((c) => c.name === ROW_ID);
    const docIdCol = plan.root.findIndex((c) => c.name === DOC_ID);
    const shardCol = plan.root.findIndex((c) => c.name === SHARD);
    const shards = new Shards();
    let rowId = Number(firstRowId);
    for (const doc of docs) {
      root.setBigInt(rowIdCol, rowId);
      root.set(docIdCol, doc.id);
      if (typeof doc.timestamp === 'number') root.setNumber(shardCol, shards.of(doc.timestamp));
      for (const { index, name } of plan.rootFields) root.set(index, doc[name]);
      root.endRow();
      for (const { path, chunks, names } of children) {
        const items = doc[path] as readonly Row[] | undefined;
        if (!items) continue;
        for (const item of items) {
          chunks.setBigInt(0, rowId);
          for (let c = 1; c < names.length; c++) chunks.set(c, item[names[c] as string]);
          chunks.endRow();
        }
      }
      rowId++;
    }
    root.flush();
    for (const { chunks } of children) chunks.flush();
  } finally {
    // Closing flushes what the Appender still holds and checks the constraints; the first failure wins.
    let failure: unknown;
    for (const appender of appenders) {
      try {
        appender.closeSync();
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
