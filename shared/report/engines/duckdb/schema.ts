import { CATALOG, COLLECTIONS, type Collection, type FieldDef, type NestedPath } from '../../fields';

/**
 * DuckDB table layout, derived from the field catalog. One table per collection holds the root
 * fields; each nested path has a child table keyed by the parent's row id (`event_id`), the way
 * Lucene keeps nested documents next to their parent, so that a nested aggregation is a hash join
 * rather than an UNNEST of a LIST(STRUCT) column on every query (measured 32× slower).
 *
 *     movement_events(row_id, doc_id, organizationId, _shard, locationId, timestamp, trackingCameraId, label)
 *     movement_crossed_paths(event_id, id, end, start)      movement_polygons(event_id, id, value)
 *
 * Dates are BIGINT epoch milliseconds (exact half-open ranges, no time zone in the database);
 * numbers DOUBLE (OpenSearch maps them as `double`); keywords VARCHAR (binary collation, the byte
 * order OpenSearch sorts keywords in). No indexes: reports scan, and DuckDB's per-row-group min/max
 * zone maps already skip row groups outside a time range when rows arrive roughly in time order.
 */
export const ROW_ID = 'row_id';
export const DOC_ID = 'doc_id';
export const PARENT_ID = 'event_id';
/**
 * UTC year and month of the document (YYYYMM), i.e. its monthly OpenSearch index: the "shard" the
 * engine sums per, to add floating-point sums up in OpenSearch's order (see read.ts).
 */
export const SHARD = '_shard';

/** The shard of a timestamp (epoch ms). */
export function shardOf(timestampMs: number): number {
  const d = new Date(timestampMs);
  return d.getUTCFullYear() * 100 + d.getUTCMonth() + 1;
}

export interface CollectionTables {
  readonly root: string;
  readonly nested: Readonly<Partial<Record<NestedPath, string>>>;
}

export const TABLES: Readonly<Record<Collection, CollectionTables>> = {
  movementEvents: { root: 'movement_events', nested: { crossedPaths: 'movement_crossed_paths', polygons: 'movement_polygons' } },
  parkingLotStats: { root: 'parking_lot_stats', nested: {} },
  parkingEvents: { root: 'parking_events', nested: {} },
};

/** A SQL identifier in double quotes. Only ever applied to catalog names, never to request text. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The column holding a field: its name in the root table, its leaf name (`end`) in a child table. */
export const columnOf = (f: FieldDef): string => (f.nestedPath ? f.name.slice(f.nestedPath.length + 1) : f.name);

export const sqlTypeOf = (f: FieldDef): 'VARCHAR' | 'DOUBLE' | 'BIGINT' =>
  f.kind === 'keyword' ? 'VARCHAR' : f.kind === 'number' ? 'DOUBLE' : 'BIGINT';

/** The child table of a nested path (the planner only lets paths of the collection through). */
export function nestedTable(c: Collection, path: NestedPath): string {
  const table = TABLES[c].nested[path];
  if (!table) throw new Error(`${c} has no nested ${path}`);
  return table;
}

export interface ColumnDef {
  readonly name: string;
  readonly type: 'VARCHAR' | 'DOUBLE' | 'BIGINT' | 'INTEGER';
  readonly field?: FieldDef;
}

/** Columns of the root table, in table order. */
export function rootColumns(c: Collection): ColumnDef[] {
  const fields = [...CATALOG[c].values()].filter((f) => !f.nestedPath);
  return [
    { name: ROW_ID, type: 'BIGINT' },
    { name: DOC_ID, type: 'VARCHAR' },
    { name: 'organizationId', type: 'VARCHAR' },
    { name: SHARD, type: 'INTEGER' },
    ...fields.map((f) => ({ name: columnOf(f), type: sqlTypeOf(f), field: f })),
  ];
}

/** Columns of a child table, in table order. */
export function nestedColumns(c: Collection, path: NestedPath): ColumnDef[] {
  const fields = [...CATALOG[c].values()].filter((f) => f.nestedPath === path);
  return [{ name: PARENT_ID, type: 'BIGINT' }, ...fields.map((f) => ({ name: columnOf(f), type: sqlTypeOf(f), field: f }))];
}

const NOT_NULL = new Set([ROW_ID, PARENT_ID, SHARD, 'organizationId', 'locationId', 'timestamp']);

function createTable(table: string, columns: readonly ColumnDef[]): string {
  const cols = columns.map((col) => `${ident(col.name)} ${col.type}${NOT_NULL.has(col.name) ? ' NOT NULL' : ''}`);
  return `CREATE TABLE IF NOT EXISTS ${ident(table)} (${cols.join(', ')})`;
}

/** DDL of every table, idempotent (CREATE TABLE IF NOT EXISTS). */
export function schemaStatements(): string[] {
  return COLLECTIONS.flatMap((c) => [
    createTable(TABLES[c].root, rootColumns(c)),
    ...Object.entries(TABLES[c].nested).map(([path, table]) => createTable(table, nestedColumns(c, path as NestedPath))),
  ]);
}

/** Every table with its expected columns, in table order. */
export function expectedLayout(): { table: string; columns: string[] }[] {
  return COLLECTIONS.flatMap((c) => [
    { table: TABLES[c].root, columns: rootColumns(c).map((col) => col.name) },
    ...Object.entries(TABLES[c].nested).map(([path, table]) => ({ table, columns: nestedColumns(c, path as NestedPath).map((col) => col.name) })),
  ]);
}
