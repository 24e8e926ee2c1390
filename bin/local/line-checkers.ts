import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { LineChecker } from '#shared/ingest/answer';
import type { CheckedBatch, CheckedLine } from '#shared/ingest/batch';
import type { ReportDocument } from '#shared/documents/documents';
import type { DocumentWriter, WriteOutcome } from '#shared/stores/store';
import { ingestDocuments } from '#shared/stores/duckdb/store';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { CheckedTask, CheckTask } from './check-lines-worker';

export interface LineCheckers {
  readonly check: LineChecker;
  close(): Promise<void>;
}

/**
 * Worker threads that read ingest bodies (checkLines: parse, validate, identity; ./check-lines-worker.ts)
 * for the local server, one per core: its one thread then spends a batch's time on HTTP and on the
 * writes, which must stay there (one DuckDB, written in turn), while the next batches are read
 * beside it; reading is most of a batch's cost (bench/README.md, "Ingest"). Piscina keeps the
 * threads and their queue (docs/dependencies.md).
 */
export function startLineCheckers(options: { readonly withoutIdentity?: boolean } = {}): LineCheckers {
  const threads = availableParallelism();
  // Workers start with the process's flags, tsx's loader among them under `npm start`.
  const pool = new Piscina<CheckTask, CheckedTask>({
    filename: join(__dirname, 'check-lines-worker.ts'),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Infinity,
  });
  return {
    async check(collection, body, tenancy) {
      const task: CheckTask = {
        collection,
        body,
        organizationId: tenancy.organizationId,
        locationIds: [...tenancy.locationIds],
        ...(options.withoutIdentity ? { withoutIdentity: true } : {}),
      };
      return checkedBatchOf(await pool.run(task));
    },
    close: () => pool.destroy(),
  };
}

/** A worker's answer (./check-lines-worker.ts) back in the form checkLines gives. */
export function checkedBatchOf(done: CheckedTask): CheckedBatch {
  const documents = JSON.parse(done.documents) as ReportDocument[];
  for (const [i, document] of done.exact) documents[i] = document as ReportDocument;
  const valid: CheckedLine[] = documents.map((document, i) => ({
    line: done.lines[i] as number,
    document,
    identity: { id: done.ids[i] as string, key: done.keys[i] as bigint, content: done.contents[i] as bigint },
  }));
  return { valid, rejected: done.rejected };
}

/**
 * Benchmark only (bench/ingest.ts, BENCH_INGEST_WITHOUT_IDENTITY): appends every document as it
 * comes, nothing hashed or looked up, so that duplicate detection's cost on the endpoint can be
 * measured against the same endpoint without it. Not an option of `npm start`: without identity a
 * batch sent twice is counted twice.
 */
export function appendOnlyWriter(instance: DuckDBInstance): DocumentWriter {
  return {
    async write(collection, documents) {
      await ingestDocuments(
        instance,
        collection,
        documents.map((d) => d.document),
        { identity: false },
      );
      return documents.map((): WriteOutcome => ({ kind: 'written' }));
    },
  };
}
