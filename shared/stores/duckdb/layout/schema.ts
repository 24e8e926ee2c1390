import {
  CATALOG,
  COLLECTIONS,
  NESTED_PATHS,
  nestedPathsOf,
  type Collection,
  type FieldDef,
  type NestedPath,
} from '../../../documents/fields';

/**
 * DuckDB table layout, derived from the field catalog. One table per collection holds the root
 * fields; each nested path has a child table keyed by the parent's row id (`event_id`), the way
 * Lucene keeps nested documents next to their parent, so that a nested aggregation never UNNESTs a
 * LIST(STRUCT) column on every query (far slower; see ../README.md):
 *
 *     movement_events(row_id, doc_id, organizationId, _shard, locationId, timestamp, trackingCameraId, label,
 * _crossedPaths, _polygons, _key, _content)
 *     movement_crossed_paths(event_id, _item, _scope, _shard, timestamp, id, end, start)
 *     movement_polygons(event_id, _item, _scope, _shard, timestamp, id, value)
 *     movement_scopes(_scope, organizationId, locationId)
 *
 * For the grouped compilation of nested reports (compile.ts), written at ingest and never updated
 * (a document is written once, whole with its items, and never changed):
 * - a child row carries its parent's scope number (its (organizationId, locationId) pair, numbered
 *   in movement_scopes) and a copy of its time and shard (PARENT_COPIES), so that a report whose
 *   scope and stages before `nested` need no other root field reads the child table alone, where
 *   joining the items back to their documents would be most of the statement's time;
 * - a child row has its position in the parent's list (`_item`), and the root row the number of
 *   items per path (`_crossedPaths`, `_polygons`), so that such a report counts the documents
 *   with items through their first item and reads from the root table only those without.
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
  /** Collections with nested paths: the (organizationId, locationId) pairs their items refer to by number. */
  readonly scopes?: string;
}

export const TABLES: Readonly<Record<Collection, CollectionTables>> = {
  movementEvents: {
    root: 'movement_events',
    nested: { crossedPaths: 'movement_crossed_paths', polygons: 'movement_polygons' },
    scopes: 'movement_scopes',
  },
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

/** The root column holding how many items of a nested path the document has (0 for none). */
export const itemsColumn = (path: NestedPath): string => `_${path}`;
/** The child column holding the item's position in its document's list (0 for the first). */
export const ITEM = '_item';

/**
 * The document's identity (../../../documents/identity.ts) as two BIGINTs: `_key` says who it is (its
 * organization, collection and id, or its content), `_content` digests its content; a write looks
 * new documents up by `_key` and writes only those not stored yet. NULL in rows written before
 * identities existed (a data folder of an earlier version): such rows are never matched.
 */
export const KEY = '_key';
export const CONTENT = '_content';

const identityColumns = (): ColumnDef[] => [
  { name: KEY, type: 'BIGINT' },
  { name: CONTENT, type: 'BIGINT' },
];

/** Columns of the root table, in table order. */
export function rootColumns(c: Collection): ColumnDef[] {
  return [...countedRootColumns(c), ...identityColumns()];
}

/** Root columns as versions before identities wrote them: with the item counts. */
function countedRootColumns(c: Collection): ColumnDef[] {
  return [
    ...legacyRootColumns(c),
    ...nestedPathsOf(c).map((path): ColumnDef => ({ name: itemsColumn(path), type: 'INTEGER' })),
  ];
}

/**
 * The child column holding the number of the parent's (organizationId, locationId) pair in the
 * collection's scopes table: a report's organization and locations are a short list of numbers
 * there, and an INTEGER per item costs the ingest much less than two copied strings.
 */
export const SCOPE = '_scope';

/**
 * The root columns a child row carries a copy of, besides its scope number: the time and the
 * shard. Not the other root fields (label, trackingCameraId), which would slow ingest further for
 * the nested reports that filter or bucket by them before `nested`: those join the parent instead.
 */
export const PARENT_COPIES: readonly string[] = [SHARD, 'timestamp'];

export function parentCopyColumns(c: Collection): ColumnDef[] {
  return rootColumns(c).filter((col) => PARENT_COPIES.includes(col.name));
}

/** Columns of a scopes table: the number, the organization, the location. */
export function scopeColumns(): ColumnDef[] {
  return [
    { name: SCOPE, type: 'INTEGER' },
    { name: 'organizationId', type: 'VARCHAR' },
    { name: 'locationId', type: 'VARCHAR' },
  ];
}

/**
 * Columns of a child table, in table order: the parent's row id, the item's position, the parent's
 * scope number and copies of its root columns, the item's fields.
 */
export function nestedColumns(c: Collection, path: NestedPath): ColumnDef[] {
  const copies = [{ name: SCOPE, type: 'INTEGER' } as const, ...parentCopyColumns(c)];
  const [parentId, ...fields] = legacyNestedColumns(c, path);
  const clash = fields.find((f) => f.name === ITEM || copies.some((col) => col.name === f.name));
  if (clash)
    throw new Error(`${TABLES[c].nested[path]}: the item field ${clash.name} has the name of a generated column`);
  return [parentId as ColumnDef, { name: ITEM, type: 'INTEGER' }, ...copies, ...fields];
}

/** The scopes table of a collection with nested paths. */
export function scopesTable(c: Collection): string {
  const table = TABLES[c].scopes;
  if (!table) throw new Error(`${c} has no nested paths, hence no scopes table`);
  return table;
}

/** Root columns as versions before the item counts wrote them. */
function legacyRootColumns(c: Collection): ColumnDef[] {
  const fields = [...CATALOG[c].values()].filter((f) => !f.nestedPath);
  return [
    { name: ROW_ID, type: 'BIGINT' },
    { name: DOC_ID, type: 'VARCHAR' },
    { name: 'organizationId', type: 'VARCHAR' },
    { name: SHARD, type: 'INTEGER' },
    ...fields.map((f) => ({ name: columnOf(f), type: sqlTypeOf(f), field: f })),
  ];
}

/** Child columns as versions before the item positions and parent copies wrote them. */
function legacyNestedColumns(c: Collection, path: NestedPath): ColumnDef[] {
  const fields = [...CATALOG[c].values()].filter((f) => f.nestedPath === path);
  return [
    { name: PARENT_ID, type: 'BIGINT' },
    ...fields.map((f) => ({ name: columnOf(f), type: sqlTypeOf(f), field: f })),
  ];
}

const NOT_NULL = new Set([
  ROW_ID,
  PARENT_ID,
  SHARD,
  'organizationId',
  'locationId',
  'timestamp',
  ITEM,
  SCOPE,
  ...NESTED_PATHS.map(itemsColumn),
]);

function createTable(table: string, columns: readonly ColumnDef[], ifNotExists = true): string {
  const cols = columns.map((col) => `${ident(col.name)} ${col.type}${NOT_NULL.has(col.name) ? ' NOT NULL' : ''}`);
  return `CREATE TABLE ${ifNotExists ? 'IF NOT EXISTS ' : ''}${ident(table)} (${cols.join(', ')})`;
}

/** DDL of every table, idempotent (CREATE TABLE IF NOT EXISTS). */
export function schemaStatements(): string[] {
  return COLLECTIONS.flatMap((c) => [
    createTable(TABLES[c].root, rootColumns(c)),
    ...nestedPathsOf(c).map((path) => createTable(nestedTable(c, path), nestedColumns(c, path))),
    ...(nestedPathsOf(c).length > 0 ? [createTable(scopesTable(c), scopeColumns())] : []),
  ]);
}

export interface TableLayout {
  readonly table: string;
  readonly columns: readonly string[];
}

/** A former layout of a collection's tables and the statements that bring it to the current one. */
export interface LegacyLayout {
  readonly tables: readonly TableLayout[];
  readonly migration: readonly string[];
}

/**
 * A collection's tables with their expected columns; where the layout changed, the former ones and how to migrate from
 * each.
 */
export interface CollectionLayout {
  readonly tables: readonly TableLayout[];
  readonly legacy: readonly LegacyLayout[];
}

/** Every collection's tables with their expected columns, in table order. */
export function expectedLayout(): CollectionLayout[] {
  const names = (columns: readonly ColumnDef[]) => columns.map((col) => col.name);
  return COLLECTIONS.map((c) => {
    const paths = nestedPathsOf(c);
    const children = paths.map((path) => ({ table: nestedTable(c, path), columns: names(nestedColumns(c, path)) }));
    const scopes = paths.length > 0 ? [{ table: scopesTable(c), columns: names(scopeColumns()) }] : [];
    const tables = [{ table: TABLES[c].root, columns: names(rootColumns(c)) }, ...children, ...scopes];
    // Before identities: the same tables, without the identity columns.
    const counted = {
      tables: [{ table: TABLES[c].root, columns: names(countedRootColumns(c)) }, ...children, ...scopes],
      migration: identityMigration(c),
    };
    if (paths.length === 0) return { tables, legacy: [counted] };
    const first = [
      { table: TABLES[c].root, columns: names(legacyRootColumns(c)) },
      ...paths.map((path) => ({ table: nestedTable(c, path), columns: names(legacyNestedColumns(c, path)) })),
    ];
    return { tables, legacy: [counted, { tables: first, migration: migrationStatements(c) }] };
  });
}

/** Adds the identity columns (NULL in every row there is) to a root table of the layout before them. */
function identityMigration(c: Collection): string[] {
  return identityColumns().map(
    (col) => `ALTER TABLE ${ident(TABLES[c].root)} ADD COLUMN ${ident(col.name)} ${col.type}`,
  );
}

/**
 * Statements that rebuild a collection's tables of the former layout (no item counts in the root
 * table, no item positions, scope numbers or parent copies in the child tables, no scopes table:
 * schemaStatements has just created it, empty) in the current one, keeping the rows' order (the
 * rowid order is the order stats sum in). To run in one transaction. Items without a parent, which
 * no report could see, are dropped.
 */
function migrationStatements(c: Collection): string[] {
  const paths = nestedPathsOf(c);
  const root = TABLES[c].root;
  const scratch = (table: string) => ident(`${table}__migrating`);
  const [org, loc] = [ident('organizationId'), ident('locationId')];
  const statements: string[] = [
    `INSERT INTO ${ident(scopesTable(c))} SELECT (row_number() OVER (ORDER BY ${org}, ${loc}))::INTEGER, ${org}, ${loc} FROM (SELECT DISTINCT ${org}, ${loc} FROM ${ident(root)})`,
  ];
  const renames: string[] = [];
  for (const path of paths) {
    const table = nestedTable(c, path);
    const copies = new Set(PARENT_COPIES);
    const select = nestedColumns(c, path).map((col) =>
      col.name === ITEM
        ? `(row_number() OVER (PARTITION BY c.${ident(PARENT_ID)} ORDER BY c.rowid) - 1)::INTEGER`
        : col.name === SCOPE
          ? `s.${ident(SCOPE)}`
          : `${copies.has(col.name) ? 'd' : 'c'}.${ident(col.name)}`,
    );
    const join = `JOIN ${ident(root)} d ON d.${ident(ROW_ID)} = c.${ident(PARENT_ID)} JOIN ${ident(scopesTable(c))} s ON s.${org} = d.${org} AND s.${loc} = d.${loc}`;
    statements.push(
      `DROP TABLE IF EXISTS ${scratch(table)}`,
      createTable(`${table}__migrating`, nestedColumns(c, path), false),
      `INSERT INTO ${scratch(table)} SELECT ${select.join(', ')} FROM ${ident(table)} c ${join} ORDER BY c.rowid`,
    );
    renames.push(table);
  }
  const counts = paths.map((_path, i) => `coalesce(n${i}.n, 0)::INTEGER`);
  const joins = paths.map(
    (path, i) =>
      `LEFT JOIN (SELECT ${ident(PARENT_ID)}, count(*) AS n FROM ${ident(nestedTable(c, path))} GROUP BY ALL) n${i} ON n${i}.${ident(PARENT_ID)} = d.${ident(ROW_ID)}`,
  );
  statements.push(
    `DROP TABLE IF EXISTS ${scratch(root)}`,
    createTable(`${root}__migrating`, rootColumns(c), false),
    `INSERT INTO ${scratch(root)} SELECT d.*, ${[...counts, ...identityColumns().map(() => 'NULL')].join(', ')} FROM ${ident(root)} d ${joins.join(' ')} ORDER BY d.rowid`,
  );
  renames.push(root);
  for (const table of renames)
    statements.push(`DROP TABLE ${ident(table)}`, `ALTER TABLE ${scratch(table)} RENAME TO ${ident(table)}`);
  return statements;
}
