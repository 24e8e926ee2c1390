import {
  BIGINT,
  INTEGER,
  listValue,
  VARCHAR,
  LIST,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBInstance,
} from '@duckdb/node-api';
import type { Collection } from '../../documents/fields';
import type { ReportDocument } from '../../documents/documents';
import { documentIdentity } from '../../documents/identity';
import { firstOfEachIdentity, type DocumentIdentity, type DocumentToWrite } from '../../documents/identified';
import type { DocumentWriter, WriteOutcome } from '../store';
import { mapDuckDbError } from './errors';
import { markWritten } from './rollups/marks';
import { serialized } from './layout/write-lock';
import { CONTENT, DOC_ID, ident, KEY, ROW_ID, SCOPE, SHARD, shardOf, TABLES } from './layout/schema';
import { TableChunks } from './layout/table-chunks';
import { storedKeys, type StoredKeys } from './layout/stored-keys';
import { tablePlan, type ChildPlan } from './layout/table-plan';

type Row = Readonly<Record<string, unknown>>;

/**
 * Writes each document that is not stored yet, exactly once (DocumentWriter): in one transaction,
 * the documents' `_key`s are looked up (./layout/stored-keys.ts, then the table for those that may be
 * stored), the new ones appended with DuckDB's Appender, so a batch is
 * written whole or not at all and a process killed mid-batch leaves nothing of it. Outcomes in input
 * order; the documents must have distinct identities.
 */
export function writeDocuments<C extends Collection>(
  instance: DuckDBInstance,
  collection: C,
  documents: readonly DocumentToWrite<C>[],
): Promise<WriteOutcome[]> {
  return serialized(instance, () => write(instance, collection, documents));
}

/** The DuckDB engine's DocumentWriter. */
export class DuckDbDocumentWriter implements DocumentWriter {
  constructor(private readonly instance: DuckDBInstance) {}

  write<C extends Collection>(collection: C, documents: readonly DocumentToWrite<C>[]): Promise<WriteOutcome[]> {
    return writeDocuments(this.instance, collection, documents);
  }
}

export interface IngestOptions {
  /**
   * Look documents up by identity and write only new ones. Off: append every document as it is,
   * with no identity (a benchmark's baseline, a bulk load known to be new). @default true
   */
  readonly identity?: boolean;
  /**
   * Record the grains written for the rollups' rebuild (./rollups/rebuild.ts). Off only for a
   * benchmark's baseline: rollups of a file written so are wrong until its grains are marked. @default true
   */
  readonly rollups?: boolean;
}

/**
 * Writes validated documents (see documents.ts), each once: a document already stored (the same
 * identity and content) or given twice is not written again, and one whose `id` is stored with other
 * content is not written (the first write wins). Returns the number written.
 */
export async function ingestDocuments<C extends Collection>(
  instance: DuckDBInstance,
  collection: C,
  documents: readonly ReportDocument<C>[],
  options: IngestOptions = {},
): Promise<number> {
  if (options.identity === false) {
    const entries = documents.map((document) => ({ document }));
    return serialized(instance, () =>
      write(instance, collection, entries, options.rollups ?? true).then((o) => o.length),
    );
  }
  const all = documents.map((document) => ({ document, identity: documentIdentity(collection, document) }));
  const { distinct } = firstOfEachIdentity(all);
  const outcomes = await writeDocuments(
    instance,
    collection,
    distinct.map((i) => all[i] as DocumentToWrite<C>),
  );
  return outcomes.filter((o) => o.kind === 'written').length;
}

type Entry<C extends Collection> = { readonly document: ReportDocument<C>; readonly identity?: DocumentIdentity };

const WRITTEN: WriteOutcome = { kind: 'written' };
const DUPLICATE: WriteOutcome = { kind: 'duplicate' };
const CONFLICT: WriteOutcome = { kind: 'conflict' };

async function write<C extends Collection>(
  instance: DuckDBInstance,
  collection: C,
  entries: readonly Entry<C>[],
  rollups = true,
): Promise<WriteOutcome[]> {
  if (entries.length === 0) return [];
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await connection.run('BEGIN TRANSACTION');
    try {
      const known = entries.some((e) => e.identity) ? await storedKeys(instance, connection, collection) : undefined;
      const outcomes = await outcomesOf(connection, collection, entries, known);
      const fresh = entries.filter((_, i) => outcomes[i] === WRITTEN);
      if (fresh.length > 0) {
        const docs = fresh.map((e) => e.document as unknown as Row);
        const first = await nextRowId(connection, collection);
        const scopes = await scopeNumbers(connection, collection, docs);
        await appendAll(connection, collection, fresh, first, scopes);
        if (rollups)
          await markWritten(
            connection,
            collection,
            docs.map((doc) => doc.timestamp as number),
          );
      }
      await connection.run('COMMIT');
      known?.add(fresh.flatMap((e) => (e.identity ? [e.identity.key] : [])));
      return outcomes;
    } catch (e) {
      await connection.run('ROLLBACK');
      throw e;
    }
  } catch (e) {
    throw mapDuckDbError(e);
  } finally {
    connection?.closeSync();
  }
}

/**
 * What becomes of each entry: a key `known` does not hold is not stored; the stored rows of the
 * others are read (one semi-join over the root table's `_key` column: a retried batch pays it, a new
 * one does not); a stored key with the same content is a duplicate, with other content a conflict
 * when the document names its `id`, and for a document without one two different readings whose
 * 64-bit keys collide (their contents differ), so it is written.
 */
async function outcomesOf<C extends Collection>(
  connection: DuckDBConnection,
  collection: C,
  entries: readonly Entry<C>[],
  known: StoredKeys | undefined,
): Promise<WriteOutcome[]> {
  const keys = entries.flatMap((e) => (e.identity && known?.has(e.identity.key) ? [e.identity.key] : []));
  if (keys.length === 0) return entries.map(() => WRITTEN);
  const reader = await connection.runAndReadAll(
    `SELECT ${ident(KEY)}, ${ident(CONTENT)} FROM ${ident(TABLES[collection].root)} WHERE ${ident(KEY)} IN (SELECT unnest($1))`,
    [listValue(keys)],
    [LIST(BIGINT)],
  );
  const stored = new Map<bigint, Set<bigint>>();
  for (const [key, content] of reader.getRowsJS() as [bigint, bigint][])
    (stored.get(key) ?? stored.set(key, new Set()).get(key)!).add(content);
  return entries.map(({ document, identity }) => {
    const contents = identity && stored.get(identity.key);
    if (!contents) return WRITTEN;
    if (contents.has(identity.content)) return DUPLICATE;
    return document.id === undefined ? WRITTEN : CONFLICT;
  });
}

/** Scope numbers by organizationId, then locationId. */
type ScopeNumbers = Map<string, Map<string, number>>;

/**
 * The scope numbers of a collection with nested paths (schema.ts), with the documents' pairs not
 * numbered yet added (in the write's transaction: a write rolled back numbers nothing).
 */
async function scopeNumbers(
  connection: DuckDBConnection,
  collection: Collection,
  docs: readonly Row[],
): Promise<ScopeNumbers | undefined> {
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
    await connection.run(
      `INSERT INTO ${ident(table)} SELECT unnest($1), unnest($2), unnest($3)`,
      [listValue(added[0]), listValue(added[1]), listValue(added[2])],
      [LIST(INTEGER), LIST(VARCHAR), LIST(VARCHAR)],
    );
  }
  return numbers;
}

async function nextRowId(connection: DuckDBConnection, collection: Collection): Promise<bigint> {
  const reader = await connection.runAndReadAll(
    `SELECT coalesce(max(${ident(ROW_ID)}), 0) FROM ${ident(TABLES[collection].root)}`,
  );
  return BigInt(reader.getRowsJS()[0]?.[0] as bigint) + 1n;
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
async function appendAll(
  connection: DuckDBConnection,
  collection: Collection,
  entries: readonly Entry<Collection>[],
  firstRowId: bigint,
  scopes: ScopeNumbers | undefined,
): Promise<void> {
  const plan = tablePlan(collection);
  const appenders: DuckDBAppender[] = [];
  let failure: unknown;
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
    const keyCol = plan.root.findIndex((c) => c.name === KEY);
    const contentCol = plan.root.findIndex((c) => c.name === CONTENT);
    const shardCol = plan.root.findIndex((c) => c.name === SHARD);
    const shards = new Shards();
    let rowId = Number(firstRowId);
    let locations: Map<string, number> | undefined;
    let organization: unknown;
    for (const { document, identity } of entries) {
      const doc = document as unknown as Row;
      const shard = typeof doc.timestamp === 'number' ? shards.of(doc.timestamp) : undefined;
      if (doc.organizationId !== organization) {
        organization = doc.organizationId;
        locations = scopes?.get(organization as string);
      }
      const scope = locations?.get(doc.locationId as string);
      root.setBigInt(rowIdCol, rowId);
      root.set(docIdCol, doc.id);
      root.set(keyCol, identity?.key);
      root.set(contentCol, identity?.content);
      root.set(shardCol, shard);
      for (const { index, name } of plan.rootFields) root.set(index, doc[name]);
      for (const { child } of children)
        root.setNumber(child.countIndex, (doc[child.path] as readonly Row[] | undefined)?.length ?? 0);
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
  } catch (e) {
    failure = e;
  }
  // Closing flushes what the Appender still holds and checks the constraints; the first failure wins
  // (an append's own before a close's), and every appender is closed either way.
  for (const appender of appenders) {
    try {
      appender.closeSync();
    } catch (e) {
      failure ??= e;
    }
  }
  if (failure !== undefined) throw failure;
}
