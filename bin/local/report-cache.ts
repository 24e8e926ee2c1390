import type { DocumentWriter, EngineResult, ReportEngine } from '#shared/stores/store';

export interface ReportCacheOptions {
  /** Most results kept. @default 256 */
  readonly maxEntries?: number;
  /**
   * Most bytes of results kept, counted as they are held (UTF-8 JSON); a result over a quarter of it is answered but
   * not kept. @default 64 MiB
   */
  readonly maxBytes?: number;
}

/**
 * The engine results of the local server's DuckDB, kept by plan and scope: OpenSearch's index request
 * cache for the embedded engine. OpenSearch keeps the aggregations of `size: 0` searches per shard
 * until the shard's data changes (https://docs.opensearch.org/docs/search-plugins/caching/request-cache);
 * the local server's DuckDB file is held by the server alone (a second process cannot open it), and
 * its own writes (`POST /ingest/{collection}`) forget the results of the organization written to
 * ({@link CachedReportEngine.forget}), so a result stays exact as long as the process runs.
 * A dashboard or the explorer asking the same report again then costs no query; a report asked by
 * several clients at once runs once. Least recently used results go first; failures are not kept.
 * A result is held as its JSON in a Buffer, and every later ask gets its own parse: the bound then
 * counts what is really held (a tree of result objects held ~11 times its JSON size in the heap),
 * and no caller can change the result another one gets.
 */
export class CachedReportEngine implements ReportEngine {
  private readonly entries = new Map<
    string,
    { json: Promise<Buffer>; bytes: number; organizationId: string; fromRollups?: boolean }
  >();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  /** The engine's own: the whole-report floor of a split report is the cached engine's floor. */
  readonly maxBuckets: number;

  constructor(
    private readonly engine: ReportEngine,
    options: ReportCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 256;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.maxBuckets = engine.maxBuckets;
  }

  /** Bytes of results held now. */
  get heldBytes(): number {
    return this.bytes;
  }

  run(...args: Parameters<ReportEngine['run']>): Promise<EngineResult> {
    const [plan, scope, options] = args;
    if (options?.uncached) return this.engine.run(...args);
    const key = JSON.stringify([plan, scope], (_, v: unknown) =>
      typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
    );
    const hit = this.entries.get(key);
    if (hit) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.json.then(parse);
    }
    // The first caller gets the engine's own result; everyone after it a parse of the JSON kept.
    const result = this.engine.run(...args);
    const entry: { json: Promise<Buffer>; bytes: number; organizationId: string; fromRollups?: boolean } = {
      json: result.then((r) => {
        entry.fromRollups = r.source === 'rollup';
        return Buffer.from(JSON.stringify(r), 'utf8');
      }),
      bytes: 0,
      organizationId: scope.organizationId,
    };
    this.entries.set(key, entry);
    entry.json.then(
      (json) => this.admit(key, entry, json.length),
      () => this.forget(key, entry),
    );
    this.evict();
    // After admit (registered first), so that the caller's next ask finds the entry settled.
    return entry.json.then(
      () => result,
      () => result,
    );
  }

  /** Forgets every result of the organization's reports: its documents changed. */
  forgetOrganization(organizationId: string): void {
    for (const [key, entry] of this.entries) if (entry.organizationId === organizationId) this.forget(key, entry);
  }

  /**
   * Forgets every result not answered from rollups: a rebuild moved the watermark, so the same
   * report may now be (the answer is the same bytes; its `Server-Timing` would otherwise stay `raw`).
   */
  forgetUnaccelerated(): void {
    for (const [key, entry] of this.entries) if (entry.fromRollups !== true) this.forget(key, entry);
  }

  /** Counts a finished result, or drops it when it alone would take more than a quarter of the bytes. */
  private admit(key: string, entry: { bytes: number }, bytes: number): void {
    if (this.entries.get(key) !== entry) return;
    if (bytes > this.maxBytes / 4) return this.forget(key, entry);
    entry.bytes = bytes;
    this.bytes += bytes;
    this.evict();
  }

  private forget(key: string, entry: { bytes: number }): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      this.forget(key, entry);
    }
  }
}

const parse = (json: Buffer): EngineResult => JSON.parse(json.toString('utf8')) as EngineResult;

/** `writer`, making `cache` forget the results of every organization a write added documents to. */
export function forgettingWriter(writer: DocumentWriter, cache: CachedReportEngine): DocumentWriter {
  return {
    async write(collection, documents) {
      const outcomes = await writer.write(collection, documents);
      const written = new Set(
        documents.filter((_, i) => outcomes[i]?.kind === 'written').map((d) => d.document.organizationId),
      );
      for (const organizationId of written) cache.forgetOrganization(organizationId);
      return outcomes;
    },
  };
}
