import { BIGINT, INTEGER, listValue, VARCHAR, LIST, type DuckDBAppender, type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import { nestedPathsOf, type Collection, type NestedPath } from '../../../fields';
import type { ReportDocument } from '../../../documents';
import { mapDuckDbError } from '../errors';
import { DOC_ID, ident, ITEM, itemsColumn, nestedColumns, parentCopyColumns, PARENT_ID, ROW_ID, rootColumns, SCOPE, SHARD, shardOf, TABLES, type ColumnDef } from './schema';
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
      const scopes = await scopeNumbers(connection, collection, docs);
      await appendAll(connection, collection, docs, first, scopes);
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

/** Scope numbers by organizationId, then locationId. */
type ScopeNumbers = Map<string, Map<string, number>>;

/**
 * The scope numbers of a collection with nested paths (schema.ts), with the documents' pairs not
 * numbered yet added (in the write's transaction: a write rolled back numbers nothing).
 */
async function scopeNumbers(connection: DuckDBConnection, collection: Collection, docs: readonly Row[]): Promise<ScopeNumbers | undefined> {
  const table = TABLES[collection].scopes;
  if (!table) return undefined;
  const [scope, org, loc] = [ident(SCOPE), ident('organizationId'), ident('locationId')];
  const reader = await connection.runAndReadAll(`SELECT ${scope}, ${org}, ${loc} FROM ${ident(table)}`);
  const numbers: ScopeNumbers = new Map();
  let last = 0;
  const add = (n: number, o: string, l: string) => {
    (numbers.get(o) ?? numbers.set(o, new Map()).get(o)!).set(l, n);
    last = Math.max(last, n);
  };
  for (const [n, o, l] of reader.getRowsJS() as [number, string, string][]) add(n, o, l);
  const added: [number[], string[], string[]] = [[], [], []];
  for (const doc of docs) {
    const [o, l] = [doc.organizationId as string, doc.locationId as string];
    if (numbers.get(o)?.has(l)) continue;
    add(last + 1, o, l);
    added[0].push(last);
    added[1].push(o);
    added[2].push(l);
  }
  if (added[0].length > 0) {
    await connection.run(`INSERT INTO ${ident(table)} SELECT unnest($1), unnest($2), unnest($3)`, [listValue(added[0]), listValue(added[1]), listValue(added[2])], [LIST(INTEGER), LIST(VARCHAR), LIST(VARCHAR)]);
  }
  return numbers;
}

async function nextRowId(connection: DuckDBConnection, collection: Collection): Promise<bigint> {
  const reader = await connection.runAndReadAll(`SELECT coalesce(max(${ident(ROW_ID)}), 0) FROM ${ident(TABLES[collection].root)}`);
  return BigInt(reader.getRowsJS()[0]?.[0] as bigint) + 1n;
}

/** Column layout of a collection's tables, computed once. */
interface TablePlan {
  readonly root: readonly ColumnDef[];
  /** Root columns read from the document, by index: all but row_id, doc_id, _shard and the item counts. */
  readonly rootFields: readonly { readonly index: number; readonly name: string }[];
  readonly children: readonly ChildPlan[];
}

interface ChildPlan {
  readonly path: NestedPath;
  readonly table: string;
  readonly columns: readonly ColumnDef[];
  /** The root column of the document's item count. */
  readonly countIndex: number;
  /** The child column of the item's position. */
  readonly itemIndex: number;
  /** The child column of the parent's scope number. */
  readonly scopeIndex: number;
  /** Copies of the parent's root columns (the shard included), by child column index. */
  readonly copies: readonly { readonly index: number; readonly name: string }[];
  /** The item's own fields, by child column index. */
  readonly fields: readonly { readonly index: number; readonly name: string }[];
}

function childPlan(collection: Collection, path: NestedPath, table: string): ChildPlan {
  const columns = nestedColumns(collection, path);
  const copied = new Set(parentCopyColumns(collection).map((c) => c.name));
  const indexed = columns.map((c, index) => ({ index, name: c.name })).filter((c) => c.name !== PARENT_ID && c.name !== ITEM && c.name !== SCOPE);
  return {
    path,
    table,
    columns,
    countIndex: rootColumns(collection).findIndex((c) => c.name === itemsColumn(path)),
    itemIndex: columns.findIndex((c) => c.name === ITEM),
    scopeIndex: columns.findIndex((c) => c.name === SCOPE),
    copies: indexed.filter((c) => copied.has(c.name)),
    fields: indexed.filter((c) => !copied.has(c.name)),
  };
}

const plans = new Map<Collection, TablePlan>();

function tablePlan(collection: Collection): TablePlan {
  let plan = plans.get(collection);
  if (!plan) {
    const root = rootColumns(collection);
    const generated = new Set([ROW_ID, DOC_ID, SHARD, ...nestedPathsOf(collection).map(itemsColumn)]);
    plan = {
      root,
      rootFields: root.flatMap((c, index) => (generated.has(c.name) ? [] : [{ index, name: c.name }])),
      children: (Object.entries(TABLES[collection].nested) as [NestedPath, string][]).map(([path, table]) => childPlan(collection, path, table)),
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
 * table-chunks.ts); row ids are handed out in document order from `firstRowId`, the document
 * counts its items per path, and every item carries its document's row id, its position, the
 * document's scope number and copies of its time and shard, in item order (the child table's rowid
 * is the item order).
 */
async function appendAll(connection: DuckDBConnection, collection: Collection, docs: readonly Row[], firstRowId: bigint, scopes: ScopeNumbers | undefined): Promise<void> {
  const plan = tablePlan(collection);
  const appenders: DuckDBAppender[] = [];
  try {
    const rootAppender = await connection.createAppender(TABLES[collection].root);
    appenders.push(rootAppender);
    const root = new TableChunks(rootAppender, plan.root);
    const children: { readonly child: ChildPlan; readonly chunks: TableChunks }[] = [];
    for (const child of plan.children) {
      const appender = await connection.createAppender(child.table);
      appenders.push(appender);
      children.push({ child, chunks: new TableChunks(appender, child.columns) });
    }
    const rowIdCol = plan.root.findIndex((c) => c.name === ROW_ID);
    const docIdCol = plan.root.findIndex((c) => c.name === DOC_ID);
    const shardCol = plan.root.findIndex((c) => c.name === SHARD);
    const shards = new Shards();
    let rowId = Number(firstRowId);
    let locations: Map<string, number> | undefined;
    let organization: unknown;
    for (const doc of docs) {
      const shard = typeof doc.timestamp === 'number' ? shards.of(doc.timestamp) : undefined;
      if (doc.organizationId !== organization) {
        organization = doc.organizationId;
        locations = scopes?.get(organization as string);
      }
      const scope = locations?.get(doc.locationId as string);
      root.setBigInt(rowIdCol, rowId);
      root.set(docIdCol, doc.id);
      root.set(shardCol, shard);
      for (const { index, name } of plan.rootFields) root.set(index, doc[name]);
      for (const { child } of children) root.setNumber(child.countIndex, (doc[child.path] as readonly Row[] | undefined)?.length ?? 0);
      root.endRow();
      for (const { child, chunks } of children) {
        const items = doc[child.path] as readonly Row[] | undefined;
        if (!items) continue;
        for (let i = 0; i < items.length; i++) {
          const item = items[i] as Row;
          chunks.setBigInt(0, rowId);
          chunks.setNumber(child.itemIndex, i);
          chunks.set(child.scopeIndex, scope);
          for (const { index, name } of child.copies) chunks.set(index, name === SHARD ? shard : doc[name]);
          for (const { index, name } of child.fields) chunks.set(index, item[name]);
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
