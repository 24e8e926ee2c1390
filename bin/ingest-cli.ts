import { createReadStream, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { COLLECTIONS, type Collection } from '#shared/report/fields';
import { cliOptions, type DataDirFlags, type OpenSearchCliFlags } from './cli/options';
import { progressBar } from './cli/progress';
import { parseCommand, runAsProcess } from './cli/run';
import { dataPaths } from './local/config';
import { openDocumentTarget, type DocumentFailure, type DocumentTarget } from './seed/targets';

const BATCH = 5_000;

export interface IngestIo {
  log(line: string): void;
  error(line: string): void;
}

/**
 * `npm run ingest -- --source movementEvents events.ndjson [more.ndjson]`: loads NDJSON files of real
 * documents (one JSON document per line) into the local DuckDB, or OpenSearch (--opensearch-url, --domain).
 * Every line is validated; refused lines are listed with their file, line and reasons, the rest are
 * kept. Exit codes: 0 all written, 2 some lines refused, 1 nothing could be done (bad flags or file).
 */
export async function ingestCli(argv: readonly string[], io: IngestIo = { log: console.log, error: console.error }): Promise<number> {
  const program = new Command('ingest')
    .description('Load NDJSON documents (one JSON document per line) into the data folder or OpenSearch.')
    .argument('<files...>', 'NDJSON files, one document per line')
    .requiredOption('--source <collection>', `collection: ${COLLECTIONS.join(', ')}`)
    .addOption(cliOptions.dataDir())
    .addOption(cliOptions.opensearchUrl())
    .addOption(cliOptions.domain())
    .addOption(cliOptions.region())
    .addOption(cliOptions.indexPrefix())
    .configureOutput({ writeOut: (s) => io.log(s.trimEnd()), writeErr: (s) => io.error(s.trimEnd()) });
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<DataDirFlags & OpenSearchCliFlags & { source: string }>();
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
  const target = await openDocumentTarget(o, dataPaths(o.dataDir));
  const totalBytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
  const bar = progressBar('ingesting {bar} {percentage}% | {mb} of {totalMb} MB | {documents} documents | {eta}s left');
  try {
    let written = 0;
    let refused = 0;
    let bytesBefore = 0;
    for (const file of files) {
      const result = await ingestFile(target, o.source as Collection, file, io, (bytes, documents) =>
        bar.update(bytesBefore + bytes, totalBytes, { mb: mb(bytesBefore + bytes), totalMb: mb(totalBytes), documents: written + documents }),
      );
      written += result.written;
      refused += result.refused;
      bytesBefore += statSync(file).size;
    }
    bar.stop();
    io.log(`${target.description}: ${written} documents written, ${refused} refused`);
    return refused > 0 ? 2 : 0;
  } finally {
    bar.stop();
    await target.close();
  }
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);

/**
 * Streams one file in batches; a line that is not JSON is refused like an invalid document.
 * `progress(bytes read, documents written)` after each batch.
 */
async function ingestFile(target: DocumentTarget, collection: Collection, file: string, io: IngestIo, progress: (bytes: number, documents: number) => void) {
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
    progress(input.bytesRead, written);
  };
  const input = createReadStream(file);
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
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
  progress(input.bytesRead, written);
  return { written, refused };
}

if (require.main === module) runAsProcess('ingest', ingestCli);
