import type { DuckDBConnection } from '@duckdb/node-api';
import { expectedLayout, schemaStatements, type TableLayout } from './schema';

/**
 * Creates the report tables where they are missing and brings those of an older layout up to date
 * (the rollups' tables are the rollups' own: ../rollups/marks.ts, prepareRollups).
 */
export async function prepareTables(connection: DuckDBConnection, path: string): Promise<void> {
  for (const statement of schemaStatements()) await connection.run(statement);
  await checkLayout(connection, path);
}

/**
 * A file written by an older layout would fail every report with a binder error. Tables of the
 * layout before the item counts, item positions and parent copies (schema.ts) are migrated in
 * place, in one transaction; any other difference is refused, once, clearly.
 */
async function checkLayout(connection: DuckDBConnection, path: string): Promise<void> {
  const reader = await connection.runAndReadAll(
    "SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns() WHERE schema_name = 'main' GROUP BY table_name",
  );
  const actual = new Map(
    (reader.getRowsJS() as [string, string[]][]).map(([table, columns]) => [table, columns.join(',')]),
  );
  const matches = (tables: readonly TableLayout[]) =>
    tables.every(({ table, columns }) => actual.get(table) === columns.join(','));
  const migrations: string[] = [];
  for (const { tables, legacy } of expectedLayout()) {
    if (matches(tables)) continue;
    const former = legacy.find((l) => matches(l.tables));
    if (former) {
      migrations.push(...former.migration);
      continue;
    }
    const { table, columns } = tables.find((t) => actual.get(t.table) !== t.columns.join(',')) as TableLayout;
    throw new Error(
      `${path}: table ${table} has columns (${actual.get(table)}), expected (${columns.join(',')}); it was written by an older version, delete the file and seed again`,
    );
  }
  if (migrations.length === 0) return;
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const statement of migrations) await connection.run(statement);
    await connection.run('COMMIT');
  } catch (e) {
    await connection.run('ROLLBACK');
    throw e;
  }
}
