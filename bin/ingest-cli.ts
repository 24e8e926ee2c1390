import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, Option } from 'commander';
import { COLLECTIONS, type Collection } from '#shared/documents/fields';
import { cliOptions, wholeNumber, type DataDirFlags, type OpenSearchCliFlags } from './cli/options';
import { progressBar } from './cli/progress';
import { parseCommand, runAsProcess } from './cli/run';
import { backfillFile, emptyTotals } from './ingest/backfill';
import { openNdjson } from './ingest/batches';
import { createSender, DEFAULT_RETRY_POLICY } from './ingest/send';
import { dataPaths } from './local/config';
import { openDocumentTarget, type DocumentFailure, type DocumentTarget } from './seed/targets';

const BATCH = 5_000;

export interface IngestIo {
  log(line: string): void;
  error(line: string): void;
}

interface IngestFlags extends DataDirFlags, OpenSearchCliFlags {
  readonly source?: string;
  readonly api?: string;
  readonly token?: string;
  readonly concurrency: number;
  readonly retries: number;
}

/**
 * `npm run ingest -- [--source movementEvents] events.ndjson[.gz] [more]`: loads NDJSON files (one JSON
 * document per line, gzip-compressed or not). With `--api URL --token T`, through the ingest API as a
 * gateway sends (batches that fit one request, a few at once, retried when the answer says so), so a
 * run after a crash resumes by design; else directly into the local DuckDB, or OpenSearch
 * (--opensearch-url, --domain), as an operator with access to the store. Every line is validated;
 * refused lines are listed with their file, line and reasons, the rest are kept.
 * Exit codes: 0 all written (or already there), 2 some lines refused, 3 some batches not answered
 * after every retry (or refused whole), 1 nothing could be done (bad flags or file).
 */
export async function ingestCli(
  argv: readonly string[],
  io: IngestIo = { log: console.log, error: console.error },
): Promise<number> {
  const program = new Command('ingest')
    .description(
      'Load NDJSON documents (one JSON document per line, gzip or not) through the ingest API (--api), or directly into the data folder or OpenSearch.',
    )
    .argument('<files...>', 'NDJSON files, one document per line (gzip-compressed ones too)')
    .option(
      '--source <collection>',
      `collection: ${COLLECTIONS.join(', ')} (default: the one a file's name starts with, e.g. movementEvents-2024-05.ndjson.gz)`,
    )
    .addOption(
      cliOptions
        .api('send through the ingest API at this base URL (POST /ingest/{collection}) instead of writing to a store')
        .conflicts(['opensearchUrl', 'domain']),
    )
    .addOption(
      cliOptions.token(
        'INGEST_TOKEN',
        'with --api: a token with the ingest scope (npm run token -- --org <uuid> --scope ingest, locally)',
      ),
    )
    .addOption(new Option('--concurrency <n>', 'with --api: requests at once').argParser(wholeNumber(1, 64)).default(4))
    .addOption(
      new Option(
        '--retries <n>',
        'with --api: how many times a batch is sent again after 429, 5xx or a network failure',
      )
        .argParser(wholeNumber(0, 100))
        .default(DEFAULT_RETRY_POLICY.retries),
    )
    .addOption(cliOptions.dataDir())
    .addOption(cliOptions.opensearchUrl())
    .addOption(cliOptions.domain())
    .addOption(cliOptions.region())
    .addOption(cliOptions.indexPrefix())
    .configureOutput({ writeOut: (s) => io.log(s.trimEnd()), writeErr: (s) => io.error(s.trimEnd()) });
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const o = program.opts<IngestFlags>();
  const files = program.args;
  if (o.source !== undefined && !(COLLECTIONS as readonly string[]).includes(o.source)) {
    io.error(`--source must be one of: ${COLLECTIONS.join(', ')}`);
    return 1;
  }
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    io.error(`cannot read: ${missing.join(', ')}`);
    return 1;
  }
  const unnamed = files.filter((f) => !collectionFor(f, o.source));
  if (unnamed.length > 0) {
    io.error(
      `--source is needed: no collection name (${COLLECTIONS.join(', ')}) starts the name of ${unnamed.join(', ')}`,
    );
    return 1;
  }
  const inputs = files.map((file) => ({ file, collection: collectionFor(file, o.source) as Collection }));
  if (o.api) {
    if (!o.token) {
      io.error('--api needs a token: --token <jwt> or INGEST_TOKEN');
      return 1;
    }
    return ingestThroughApi(inputs, { api: o.api, token: o.token, concurrency: o.concurrency, retries: o.retries }, io);
  }
  return ingestDirectly(inputs, o, io);
}

/** The collection of a file: `--source`, else the collection name its file name starts with (any case). */
export function collectionFor(file: string, source: string | undefined): Collection | undefined {
  if (source) return source as Collection;
  const name = basename(file).toLowerCase();
  return COLLECTIONS.find((c) => name.startsWith(c.toLowerCase()));
}

type Input = { readonly file: string; readonly collection: Collection };

async function ingestThroughApi(
  inputs: readonly Input[],
  o: { api: string; token: string; concurrency: number; retries: number },
  io: IngestIo,
): Promise<number> {
  const sender = createSender(o.api, o.token, { ...DEFAULT_RETRY_POLICY, retries: o.retries });
  const totals = emptyTotals();
  const totalBytes = inputs.reduce((sum, { file }) => sum + statSync(file).size, 0);
  const bar = progressBar(
    'sending {bar} {percentage}% | {mb} of {totalMb} MB | {accepted} accepted, {duplicates} duplicates, {rejected} rejected | {eta}s left',
  );
  let bytesBefore = 0;
  try {
    for (const { file, collection } of inputs) {
      await backfillFile(file, collection, sender, { concurrency: o.concurrency }, totals, {
        rejected: ({ line, errors }) =>
          io.error(`${file}:${line}: ${errors.map((x) => `${x.path || '/'} ${x.message}`).join('; ')}`),
        failed: (first, last, reason) => io.error(`${file}:${first}-${last}: not sent: ${reason}`),
        progress: (bytes, _, t) =>
          bar.update(bytesBefore + bytes, totalBytes, { mb: mb(bytesBefore + bytes), totalMb: mb(totalBytes), ...t }),
      });
      bytesBefore += statSync(file).size;
    }
  } finally {
    bar.stop();
  }
  const t = totals;
  io.log(
    `${o.api}: ${t.accepted} accepted, ${t.duplicates} duplicates, ${t.rejected} rejected, ${t.notSent} not sent (${t.failedBatches} of ${t.batches} batches failed), ${t.retries} retries`,
  );
  return t.notSent > 0 ? 3 : t.rejected > 0 ? 2 : 0;
}

async function ingestDirectly(inputs: readonly Input[], o: IngestFlags, io: IngestIo): Promise<number> {
  const target = await openDocumentTarget(o, dataPaths(o.dataDir));
  const totalBytes = inputs.reduce((sum, { file }) => sum + statSync(file).size, 0);
  const bar = progressBar('ingesting {bar} {percentage}% | {mb} of {totalMb} MB | {documents} documents | {eta}s left');
  try {
    let written = 0;
    let refused = 0;
    let bytesBefore = 0;
    for (const { file, collection } of inputs) {
      const result = await ingestFile(target, collection, file, io, (bytes, documents) =>
        bar.update(bytesBefore + bytes, totalBytes, {
          mb: mb(bytesBefore + bytes),
          totalMb: mb(totalBytes),
          documents: written + documents,
        }),
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
async function ingestFile(
  target: DocumentTarget,
  collection: Collection,
  file: string,
  io: IngestIo,
  progress: (bytes: number, documents: number) => void,
) {
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
  const { raw: input, text: decoded } = openNdjson(file);
  for await (const text of createInterface({ input: decoded, crlfDelay: Infinity })) {
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
