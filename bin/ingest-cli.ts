import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { COLLECTIONS, type Collection } from '#shared/report/fields';
import { dataPaths } from './local/config';
import { duckDbTarget, openSearchTarget, type DocumentFailure, type DocumentTarget } from './seed/targets';

const BATCH = 5_000;

export interface IngestIo {
  log(line: string): void;
  error(line: string): void;
}

/**
 * `npm run ingest -- --source movementEvents events.ndjson [more.ndjson]`: loads NDJSON files of real
 * documents (one JSON document per line) into the local DuckDB, or OpenSearch with --opensearch-url.
 * Every line is validated; refused lines are listed with their file, line and reasons, the rest are
 * kept. Exit codes: 0 all written, 2 some lines refused, 1 nothing could be done (bad flags or file).
 */
export async function ingestCli(argv: readonly string[], io: IngestIo = { log: console.log, error: console.error }): Promise<number> {
  const program = new Command('ingest')
    .description('Load NDJSON documents')
    .argument('<files...>', 'NDJSON files, one document per line')
    .requiredOption('--source <collection>', `collection: ${COLLECTIONS.join(', ')}`)
    .option('--data-dir <path>', 'local data folder', process.env.DATA_DIR ?? '.data')
    .option('--opensearch-url <url>', 'write to this OpenSearch instead of the local DuckDB')
    .option('--index-prefix <prefix>', 'OpenSearch index prefix', process.env.OPENSEARCH_INDEX_PREFIX ?? '')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.log(s.trimEnd()), writeErr: (s) => io.error(s.trimEnd()) });
  try {
    program.parse(argv);
  } catch (e) {
    return (e as { exitCode?: number }).exitCode ?? 1;
  }
  const o = program.opts<{ source: string; dataDir: string; opensearchUrl?: string; indexPrefix: string }>();
  const files = program.args;
  if (!(COLLECTIONS as readonly string[]).includes(o.source)) {
    io.error(`--source must be one of: ${COLLECTIONS.join(', ')}`);
    return 1;
  }
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    io.error(`cannot read: ${missing.join(', ')}`);
    return 1;
  }
  const paths = dataPaths(o.dataDir);
  if (!o.opensearchUrl) mkdirSync(paths.root, { recursive: true });
  const target = o.opensearchUrl ? await openSearchTarget(o.opensearchUrl, o.indexPrefix) : await duckDbTarget(paths.duckdb);
  try {
    let written = 0;
    let refused = 0;
    for (const file of files) {
      const result = await ingestFile(target, o.source as Collection, file, io);
      written += result.written;
      refused += result.refused;
    }
    io.log(`${target.description}: ${written} documents written, ${refused} refused`);
    return refused > 0 ? 2 : 0;
  } finally {
    await target.close();
  }
}

/** Streams one file in batches; a line that is not JSON is refused like an invalid document. */
async function ingestFile(target: DocumentTarget, collection: Collection, file: string, io: IngestIo) {
  let written = 0;
  let refused = 0;
  let batch: unknown[] = [];
  let batchStart = 1;
  let line = 0;
  const report = (failures: readonly DocumentFailure[]) => {
    refused += failures.length;
    for (const f of failures) io.error(`${file}:${f.position}: ${f.reason}`);
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const result = await target.write(collection, batch, batchStart);
    written += result.written;
    report(result.failures);
    batch = [];
  };
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    if (batch.length === 0) batchStart = line;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      await flush();
      report([{ position: line, reason: `not JSON: ${(e as Error).message}` }]);
      continue;
    }
    // Positions must stay line numbers: a gap (blank line) starts a new batch.
    if (batchStart + batch.length !== line) {
      await flush();
      batchStart = line;
    }
    batch.push(doc);
    if (batch.length === BATCH) await flush();
  }
  await flush();
  return { written, refused };
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  ingestCli(process.argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
