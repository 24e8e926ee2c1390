import { BIGINT, listValue, VARCHAR, LIST, type DuckDBAppender, type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import type { Collection, NestedPath } from '../../fields';
import type { ReportDocument } from '../../documents';
import { mapDuckDbError } from './errors';
import { DOC_ID, ident, nestedColumns, PARENT_ID, ROW_ID, rootColumns, SHARD, shardOf, TABLES, type ColumnDef } from './schema';

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

async function appendAll(connection: DuckDBConnection, collection: Collection, docs: readonly Row[], firstRowId: bigint): Promise<void> {
  const root = await connection.createAppender(TABLES[collection].root);
  const rootCols = rootColumns(collection);
  const children = Object.entries(TABLES[collection].nested) as [NestedPath, string][];
  const childAppenders = await Promise.all(children.map(([, table]) => connection.createAppender(table)));
  let rowId = firstRowId;
  for (const doc of docs) {
    appendRow(root, rootCols, { ...doc, [ROW_ID]: rowId, [DOC_ID]: doc.id ?? null, [SHARD]: shardOf(doc.timestamp as number) });
    children.forEach(([path], i) => {
      const columns = nestedColumns(collection, path);
      for (const item of (doc[path] as Row[] | undefined) ?? []) appendRow(childAppenders[i] as DuckDBAppender, columns, { ...item, [PARENT_ID]: rowId });
    });
    rowId++;
  }
  for (const appender of [root, ...childAppenders]) appender.closeSync();
}

function appendRow(appender: DuckDBAppender, columns: readonly ColumnDef[], values: Row): void {
  for (const col of columns) {
    const v = values[col.name];
    if (v === undefined || v === null) appender.appendNull();
    else if (col.type === 'VARCHAR') appender.appendVarchar(String(v));
    else if (col.type === 'DOUBLE') appender.appendDouble(Number(v));
    else if (col.type === 'INTEGER') appender.appendInteger(Number(v));
    else appender.appendBigInt(BigInt(v as number | bigint));
  }
  appender.endRow();
}
