import { mkdirSync } from 'node:fs';
import type { DuckDBInstance } from '@duckdb/node-api';
import { ingestBatch } from '#shared/ingest/batch';
import type { DocumentWriter } from '#shared/stores/store';
import type { Collection } from '#shared/documents/fields';
import { duckDbStore, openDuckDb } from '#shared/stores/duckdb/store';
import { openSearchStore } from '#shared/stores/opensearch/store';
import { createOpenSearchClient } from '#commons/clients/opensearch-client';
import { openSearchEnv, prepareCluster, resolveOpenSearch, type OpenSearchConnection } from '../cli/opensearch';
import type { OpenSearchCliFlags } from '../cli/options';

/** One refused document: where it was (1-based, e.g. its NDJSON line) and why. */
export interface DocumentFailure {
  readonly position: number;
  readonly reason: string;
}

/** Where documents go: the embedded DuckDB file, or an OpenSearch cluster. */
export interface DocumentTarget {
  readonly description: string;
  /**
   * Validates each document and writes the valid ones not stored yet, exactly as the ingest API does
   * (shared/ingest/batch.ts), with each document naming its own organization and location; returns
   * how many were written, how many were stored already, and the refused ones (never throws for one).
   */
  write(
    collection: Collection,
    documents: readonly unknown[],
    firstPosition: number,
  ): Promise<{ written: number; duplicates: number; failures: DocumentFailure[] }>;
  close(): Promise<void>;
}

function target(description: string, writer: DocumentWriter, close: () => Promise<void>): DocumentTarget {
  return {
    description,
    async write(collection, documents, first) {
      const result = await ingestBatch(
        collection,
        documents.map((value, i) => ({ line: first + i, value })),
        {},
        writer,
      );
      const failures = result.rejected.map((r) => ({
        position: r.line,
        reason: r.errors.map((x) => `${x.path || '/'} ${x.message}`).join('; '),
      }));
      return { written: result.accepted, duplicates: result.duplicates, failures };
    },
    close,
  };
}

/** DuckDB, one transaction per batch (a batch is written whole or not at all). */
export async function duckDbTarget(
  path: string,
  instance?: DuckDBInstance,
): Promise<DocumentTarget & { instance: DuckDBInstance }> {
  const db = instance ?? (await openDuckDb(path));
  return {
    ...target(`DuckDB ${path}`, duckDbStore(db).writer, async () => {
      if (!instance) db.closeSync();
    }),
    instance: db,
  };
}

/**
 * OpenSearch through `_bulk` into the monthly indices. Requests to an AWS domain are signed with SigV4
 * like the functions' own, and its templates are left alone (the stack's custom resource owns them);
 * a cluster you run gets the templates first (prepareCluster: replicas by its data nodes).
 */
export async function openSearchTarget(connection: OpenSearchConnection, indexPrefix: string): Promise<DocumentTarget> {
  const client = createOpenSearchClient(openSearchEnv(connection, indexPrefix));
  await prepareCluster(client, connection, indexPrefix);
  return target(
    `OpenSearch ${connection.url} (prefix '${indexPrefix}')`,
    openSearchStore(client, { indexPrefix }).writer,
    () => client.close(),
  );
}

/**
 * Where the CLI flags send documents: the OpenSearch cluster they name (`--opensearch-url`,
 * `--domain`), else the data folder's DuckDB.
 */
export async function openDocumentTarget(
  flags: OpenSearchCliFlags,
  paths: { readonly root: string; readonly duckdb: string },
): Promise<DocumentTarget> {
  const connection = await resolveOpenSearch(flags);
  if (connection) return openSearchTarget(connection, flags.indexPrefix);
  mkdirSync(paths.root, { recursive: true });
  return duckDbTarget(paths.duckdb);
}
