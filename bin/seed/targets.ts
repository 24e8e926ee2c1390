import { mkdirSync } from 'node:fs';
import type { DuckDBInstance } from '@duckdb/node-api';
import { ValidationError } from '#shared/errors';
import { parseDocument, type ReportDocument } from '#shared/report/documents';
import type { Collection } from '#shared/report/fields';
import { ingestDocuments } from '#shared/report/engines/duckdb/storage/ingest';
import { openDuckDb } from '#shared/report/engines/duckdb/execute';
import { ensureIndexTemplates } from '#shared/report/engines/opensearch/indices';
import { indexDocuments } from '#shared/report/engines/opensearch/ingest';
import { createOpenSearchClient } from '#commons/clients/opensearch-client';
import { openSearchEnv, resolveOpenSearch, type OpenSearchConnection } from '../cli/opensearch';
import type { OpenSearchCliFlags } from '../cli/options';

/** One refused document: where it was (1-based, e.g. its NDJSON line) and why. */
export interface DocumentFailure {
  readonly position: number;
  readonly reason: string;
}

/** Where documents go: the embedded DuckDB file, or an OpenSearch cluster. */
export interface DocumentTarget {
  readonly description: string;
  /** Validates each document, writes the valid ones, and returns the refused ones (never throws for one). */
  write(collection: Collection, documents: readonly unknown[], firstPosition: number): Promise<{ written: number; failures: DocumentFailure[] }>;
  close(): Promise<void>;
}

/** Validation shared by both targets: a refused document is reported with every problem, the rest go on. */
function validate<C extends Collection>(collection: C, documents: readonly unknown[], first: number) {
  const valid: { doc: ReportDocument<C>; position: number }[] = [];
  const failures: DocumentFailure[] = [];
  documents.forEach((input, i) => {
    try {
      valid.push({ doc: parseDocument(collection, input), position: first + i });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      failures.push({ position: first + i, reason: e.errors.map((x) => `${x.path || '/'} ${x.message}`).join('; ') });
    }
  });
  return { valid, failures };
}

/** DuckDB through its Appender, one transaction per batch (a batch is written whole or not at all). */
export async function duckDbTarget(path: string, instance?: DuckDBInstance): Promise<DocumentTarget & { instance: DuckDBInstance }> {
  const db = instance ?? (await openDuckDb(path));
  return {
    description: `DuckDB ${path}`,
    instance: db,
    async write(collection, documents, first) {
      const { valid, failures } = validate(collection, documents, first);
      const written = valid.length > 0 ? await ingestDocuments(db, collection, valid.map((v) => v.doc)) : 0;
      return { written, failures };
    },
    close: async () => {
      if (!instance) db.closeSync();
    },
  };
}

/**
 * OpenSearch through `_bulk` into the monthly indices. Requests to an AWS domain are signed with SigV4
 * like the functions' own, and its templates are left alone (the stack's custom resource owns them);
 * a cluster you run gets the templates first, with no replicas.
 */
export async function openSearchTarget(connection: OpenSearchConnection, indexPrefix: string): Promise<DocumentTarget> {
  const client = createOpenSearchClient(openSearchEnv(connection, indexPrefix));
  if (connection.auth === 'none') await ensureIndexTemplates(client, indexPrefix, { replicas: 0 });
  return {
    description: `OpenSearch ${connection.url} (prefix '${indexPrefix}')`,
    async write(collection, documents, first) {
      const { valid, failures } = validate(collection, documents, first);
      const result = await indexDocuments(client, collection, valid.map((v) => v.doc), { indexPrefix, batchSize: 2000 });
      const refused = result.failures.map((f) => ({ position: (valid[f.index] as { position: number }).position, reason: `${f.type}: ${f.reason}` }));
      return { written: result.indexed, failures: [...failures, ...refused].sort((a, b) => a.position - b.position) };
    },
    close: () => client.close(),
  };
}

/**
 * Where the CLI flags send documents: the OpenSearch cluster they name (`--opensearch-url`,
 * `--domain`), else the data folder's DuckDB.
 */
export async function openDocumentTarget(flags: OpenSearchCliFlags, paths: { readonly root: string; readonly duckdb: string }): Promise<DocumentTarget> {
  const connection = await resolveOpenSearch(flags);
  if (connection) return openSearchTarget(connection, flags.indexPrefix);
  mkdirSync(paths.root, { recursive: true });
  return duckDbTarget(paths.duckdb);
}
