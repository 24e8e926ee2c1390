import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DuckDBInstance } from '@duckdb/node-api';
import { Client } from '@opensearch-project/opensearch';
import { runPool } from '#shared/concurrency';
import { parseDocument } from '#shared/documents/documents';
import { documentIdentity } from '#shared/documents/identity';
import { openDuckDb, ingestDocuments } from '#shared/stores/duckdb/store';
import { indexNameFor, ensureIndexTemplates } from '#shared/stores/opensearch/store';
import { INGEST_SCOPE, organizationClaim } from '#commons/http/identity';
import { startOpenSearch } from '../bin/dev/opensearch-node';
import { startLocalService, type LocalService } from '../bin/dev/local-service';
import { ndjsonBatches, type Batch } from '../bin/ingest/batches';
import { createSender } from '../bin/ingest/send';
import { loadOrCreateDevKey } from '../bin/local/auth/dev-key';
import { mintDevToken } from '../bin/local/auth/tokens';
import { dataPaths, LOCAL_ORGANIZATION_ID } from '../bin/local/config';
import { openLocationStore } from '../bin/local/stores';
import { seedMovementEvents } from '../bin/seed/generate';
import { seed } from '../bin/seed/seed';
import { duckDbTarget, openSearchTarget, type DocumentTarget } from '../bin/seed/targets';
import { serverCpu } from './process-cpu';
import { machine, median } from './stats';

/**
 * `npm run bench -- ingest` (issue 21): documents/s of POST /ingest/{collection} on `npm start`
 * (batches of 10,000 lines, gzip, 4 requests at once, as the backfill CLI sends them) against the
 * direct writer (`npm run ingest` without --api: the same validation and writer, in-process), on
 * DuckDB (goals: ≥ 0.5× direct, ≥ 50,000 documents/s) and on OpenSearch, where raw `_bulk` of the
 * same documents (`index`, the event's id as `_id`, 4 at once) is the baseline (goal ≥ 0.8×). Then the cost of
 * duplicate detection on DuckDB at each of STORED_LEVELS documents already stored: new documents posted to the
 * endpoint with identity (hash, look-up, keys) ÷ without (goal ≤ 1.5×). Each pair alternates, ROUNDS times, on new
 * documents each round; medians. Gzip bodies are made before the clock starts (the client's cost, not the
 * endpoint's). BENCH_INGEST_DOCS (default 200,000 per round); the duplicate-detection part's below.
 */
const DOCS = Number(process.env.BENCH_INGEST_DOCS ?? 200_000);
/**
 * Stored-document counts duplicate detection is measured at, growing one file: BENCH_INGEST_STORED, comma-separated.
 */
const STORED_LEVELS = (process.env.BENCH_INGEST_STORED ?? '100000,1000000,10000000').split(',').map(Number);
/** New documents per round of the duplicate-detection part: BENCH_INGEST_IDENTITY_DOCS. */
const IDENTITY_DOCS = Number(process.env.BENCH_INGEST_IDENTITY_DOCS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 2);
const CONCURRENCY = 4;
/**
 * Corpus rounds (31 days apart, so no two share a document): the throughput runs', then the stored documents', then
 * identity's.
 */
const STORED_FIRST = 10;
const ORG = LOCAL_ORGANIZATION_ID;
const NOW = Date.UTC(2024, 5, 1);

/**
 * `count` seeded movement events (the local organization's 3 locations over 30 days), a different set for each `round`.
 */
function corpus(round: number, count: number): Record<string, unknown>[] {
  const docs: Record<string, unknown>[] = [];
  for (const d of seedMovementEvents({
    organizationId: ORG,
    days: 30,
    locations: 3,
    now: NOW - round * 31 * 86_400_000,
    eventsPerDay: Math.ceil((count / 90) * 1.3),
    seed: 100 + round,
  })) {
    if (docs.length === count) break;
    docs.push(d as unknown as Record<string, unknown>);
  }
  return docs;
}

async function gzipBatches(docs: readonly Record<string, unknown>[]): Promise<Batch[]> {
  const out: Batch[] = [];
  for await (const b of ndjsonBatches(Readable.from([docs.map((d) => JSON.stringify(d)).join('\n')]))) out.push(b);
  return out;
}

/** Seconds to post every batch through the endpoint, `CONCURRENCY` at once; throws unless every line was written. */
async function viaEndpoint(
  service: LocalService,
  token: string,
  batches: readonly Batch[],
  expected: number,
): Promise<number> {
  const sender = createSender(service.url, token);
  const t = performance.now();
  const outcomes = await runPool(batches, CONCURRENCY, (b) => sender.send('movementEvents', b.body));
  const seconds = (performance.now() - t) / 1000;
  // A document the seed happens to make twice (same millisecond and content) is one: a duplicate.
  const done = outcomes.reduce((n, o) => n + (o.kind === 'answered' ? o.result.accepted + o.result.duplicates : 0), 0);
  if (done !== expected)
    throw new Error(
      `endpoint: ${done} of ${expected} written: ${JSON.stringify(outcomes.find((o) => o.kind === 'failed' || o.result.rejected.length > 0))}`,
    );
  return seconds;
}

/** Seconds for the direct writer (as `npm run ingest` without --api): parse, validate, write, in batches of 10,000. */
async function viaDirect(target: DocumentTarget, lines: readonly string[], expected: number): Promise<number> {
  const t = performance.now();
  let written = 0;
  for (let i = 0; i < lines.length; i += 10_000) {
    const result = await target.write(
      'movementEvents',
      lines.slice(i, i + 10_000).map((l) => JSON.parse(l) as unknown),
      i + 1,
    );
    written += result.written + result.duplicates;
  }
  const seconds = (performance.now() - t) / 1000;
  if (written !== expected) throw new Error(`direct: ${written} of ${expected} written`);
  return seconds;
}

/** A data folder with the seeded locations only (no documents), and an ingest token for it. */
async function locationsOnly(): Promise<{ dir: string; token: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-bench-ingest-'));
  const paths = dataPaths(dir);
  const opened = await openLocationStore({ localFile: paths.locations });
  await seed(undefined, opened.store, { organizationId: ORG, days: 1, locations: 3, now: NOW });
  await opened.close();
  const token = await mintDevToken(await loadOrCreateDevKey(paths.devKey), {
    organizationId: ORG,
    claimName: organizationClaim(),
    scopes: [INGEST_SCOPE],
    ttlSeconds: 86_400,
  });
  return { dir, token };
}

const rate = (docs: number, seconds: number) => Math.round(docs / seconds);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function duckdbRow(lines: string[][]): Promise<string[]> {
  const { dir, token } = await locationsOnly();
  const direct = await duckDbTarget(join(dir, 'direct.duckdb'));
  const service = await startLocalService({}, ['--no-seed'], { dataDir: dir });
  try {
    const batches = await Promise.all(
      lines.map((l) => gzipBatches(l.map((x) => JSON.parse(x) as Record<string, unknown>))),
    );
    const d: number[] = [];
    const e: number[] = [];
    const mainUs: number[] = [];
    const allUs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      d.push(rate(DOCS, await viaDirect(direct, lines[r] as string[], DOCS)));
      const before = serverCpu(service.child.pid as number);
      e.push(rate(DOCS, await viaEndpoint(service, token, batches[r] as Batch[], DOCS)));
      const after = serverCpu(service.child.pid as number);
      if (before && after) {
        mainUs.push(((after.mainMs - before.mainMs) * 1000) / DOCS);
        allUs.push(((after.allMs - before.allMs) * 1000) / DOCS);
      }
    }
    const [dr, er] = [median(d), median(e)];
    // Where the server's time went: its main thread (HTTP, the writes) against all its threads (the line checkers,
    // DuckDB's, zlib's, GC's).
    const cpu =
      mainUs.length > 0
        ? ` (server CPU per document: main thread ${median(mainUs).toFixed(1)} µs, all threads ${median(allUs).toFixed(1)} µs)`
        : '';
    return [
      `| DuckDB | direct writer | ${fmt(dr)} | 1.00× | |`,
      `| DuckDB | POST /ingest (npm start)${cpu} | ${fmt(er)} | ${(er / dr).toFixed(2)}× | ≥ 0.5× direct: **${met(er >= 0.5 * dr)}**; ≥ 50,000/s: **${met(er >= 50_000)}** |`,
    ];
  } finally {
    await service.stop();
    await direct.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const met = (yes: boolean) => (yes ? 'met' : 'not met');

async function openSearchRow(lines: string[][]): Promise<string[]> {
  const node = await startOpenSearch({ heap: '1g' });
  const { dir, token } = await locationsOnly();
  const client = new Client({ node: node.url, requestTimeout: 120_000 });
  const service = await startLocalService({}, ['--no-seed', '--opensearch-url', node.url, '--index-prefix', 'api-'], {
    dataDir: dir,
  });
  const direct = await openSearchTarget({ url: node.url, auth: 'none' }, 'direct-');
  try {
    // The same templates (mappings, no replica) for every prefix; the server's writer assumes them, as the stack's
    // custom resource puts them.
    for (const prefix of ['raw-', 'api-']) await ensureIndexTemplates(client, prefix, { replicas: 0 });
    const batches = await Promise.all(
      lines.map((l) => gzipBatches(l.map((x) => JSON.parse(x) as Record<string, unknown>))),
    );
    const raw = async (docs: string[]) => {
      const t = performance.now();
      const chunks = Array.from({ length: Math.ceil(docs.length / 10_000) }, (_, i) =>
        docs.slice(i * 10_000, (i + 1) * 10_000),
      );
      await runPool(chunks, CONCURRENCY, async (chunk) => {
        // The document's own id (the seed's event id) as `_id`, as a loader that keeps ids would send it.
        const body = chunk.flatMap((l) => {
          const { id, ...doc } = JSON.parse(l) as { id?: string; timestamp: string };
          return [
            {
              index: {
                _index: indexNameFor('raw-', 'movementEvents', Date.parse(doc.timestamp)),
                ...(id ? { _id: id } : {}),
              },
            },
            doc,
          ];
        });
        const response = await client.bulk({ body: body as never });
        if ((response.body as { errors: boolean }).errors) throw new Error('raw _bulk: errors');
      });
      return (performance.now() - t) / 1000;
    };
    const rw: number[] = [];
    const d: number[] = [];
    const e: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      rw.push(rate(DOCS, await raw(lines[r] as string[])));
      d.push(rate(DOCS, await viaDirect(direct, lines[r] as string[], DOCS)));
      e.push(rate(DOCS, await viaEndpoint(service, token, batches[r] as Batch[], DOCS)));
    }
    const [rr, dr, er] = [median(rw), median(d), median(e)];
    return [
      `| OpenSearch | raw \`_bulk\` (index, the event id as \`_id\`) | ${fmt(rr)} | 1.00× | |`,
      `| OpenSearch | direct writer (create, identity \`_id\`) | ${fmt(dr)} | ${(dr / rr).toFixed(2)}× | |`,
      `| OpenSearch | POST /ingest (npm start) | ${fmt(er)} | ${(er / rr).toFixed(2)}× | ≥ 0.8× raw: ${er >= 0.8 * rr ? 'met' : 'not met'} |`,
    ];
  } finally {
    await service.stop();
    await direct.close();
    await client.close();
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Stored documents: the first (at most REAL_STORED) ingested with identity, the rest copies of those
 * root rows with fresh random keys (the look-up reads only the root table's `_key`s, and copying is
 * far quicker than ingesting on a loaded machine).
 */
const REAL_STORED = 1_000_000;

async function grow(db: DuckDBInstance, from: number, to: number): Promise<void> {
  const real = Math.min(to, REAL_STORED);
  if (from < real) {
    const docs = corpus(STORED_FIRST, real)
      .slice(from)
      .map((d) => parseDocument('movementEvents', d));
    for (let i = 0; i < docs.length; i += 100_000)
      await ingestDocuments(db, 'movementEvents', docs.slice(i, i + 100_000));
  }
  const connection = await db.connect();
  try {
    const count = async () =>
      Number((await connection.runAndReadAll('SELECT count(*) FROM movement_events')).getRowsJS()[0]?.[0]);
    for (let n = await count(); n < to; n = await count()) {
      const copies = Math.min(n, to - n);
      await connection.run(
        `INSERT INTO movement_events SELECT * REPLACE (row_id + ${n} AS row_id, (hash(row_id + ${n}, 'bench')::HUGEINT - 9223372036854775808)::BIGINT AS _key) FROM movement_events WHERE row_id <= ${copies}`,
      );
    }
  } finally {
    connection.closeSync();
  }
}

/**
 * Duplicate detection's cost on the endpoint: new documents posted to `npm start` on one DuckDB file
 * grown to each of STORED_LEVELS stored documents in turn, with identity (hash, look-up, keys) and
 * without (BENCH_INGEST_WITHOUT_IDENTITY: a server that validates the same and appends as it comes),
 * a server started for each round and warmed with one request (the first write with identity reads
 * the stored keys: ../shared/stores/duckdb/layout/stored-keys.ts; timed apart). Goal: with ÷
 * without ≤ 1.5× in time. "Hashing alone" times documentIdentity over 10,000 documents in this
 * process, for scale.
 */
async function identityRows(): Promise<void> {
  const { dir, token } = await locationsOnly();
  const file = dataPaths(dir).duckdb;
  console.log(
    `${fmt(IDENTITY_DOCS)} new documents per round through POST /ingest (npm start; ${CONCURRENCY} requests of 10,000 at once), ${ROUNDS} rounds alternating, medians`,
  );
  console.log(
    '| stored | first request after start (reads the stored keys) | without identity | with identity | with ÷ without (time) | goal ≤ 1.5× | hashing alone, per 10,000 | load |\n|---:|---:|---:|---:|---:|---|---:|---|',
  );
  try {
    let stored = 0;
    let round = STORED_FIRST + 1;
    for (const level of STORED_LEVELS) {
      const db = await openDuckDb(file);
      try {
        await grow(db, stored, level);
      } finally {
        db.closeSync();
      }
      stored = level;
      const off: number[] = [];
      const on: number[] = [];
      const first: number[] = [];
      const hashing: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        for (const withIdentity of [false, true]) {
          const service = await startLocalService(
            withIdentity ? {} : { BENCH_INGEST_WITHOUT_IDENTITY: '1' },
            ['--no-seed'],
            { dataDir: dir },
          );
          try {
            const warm = await gzipBatches(corpus(round++, 10_000));
            const firstS = await viaEndpoint(service, token, warm, 10_000);
            if (withIdentity) first.push(firstS);
            const docs = corpus(round++, IDENTITY_DOCS);
            (withIdentity ? on : off).push(await viaEndpoint(service, token, await gzipBatches(docs), IDENTITY_DOCS));
            if (withIdentity) {
              const parsed = docs.slice(0, 10_000).map((d) => parseDocument('movementEvents', d));
              const t = performance.now();
              for (const d of parsed) documentIdentity('movementEvents', d);
              hashing.push((performance.now() - t) / 1000);
            }
          } finally {
            await service.stop();
          }
        }
      }
      const [o, n] = [median(off), median(on)];
      console.log(
        `| ${fmt(level)} | ${median(first).toFixed(2)} s | ${fmt(rate(IDENTITY_DOCS, o))}/s | ${fmt(rate(IDENTITY_DOCS, n))}/s | ${(n / o).toFixed(2)}× | **${met(n / o <= 1.5)}** | ${(median(hashing) * 1000).toFixed(0)} ms | ${load().replace(/.*load average: /, '')} |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm run bench -- ingest-identity`: the duplicate-detection part of `ingest` alone. */
export async function benchIngestIdentity(): Promise<void> {
  console.log(`machine: ${await machine()}`);
  console.log(`load before: ${load()}`);
  await identityRows();
  console.log(`load after: ${load()}`);
}

export async function benchIngest(): Promise<void> {
  console.log(`machine: ${await machine()}`);
  console.log(`load before: ${load()}`);
  const lines = Array.from({ length: ROUNDS }, (_, r) => corpus(r, DOCS).map((d) => JSON.stringify(d)));
  const rows = [...(await duckdbRow(lines)), ...(await openSearchRow(lines))];
  console.log(
    `\n${fmt(DOCS)} movement events per round, ${ROUNDS} rounds alternating, medians; ${CONCURRENCY} requests at once`,
  );
  console.log('| engine | path | documents/s | ÷ baseline | goal |\n|---|---|---:|---:|---|');
  for (const row of rows) console.log(row);
  console.log(`load after the throughput runs: ${load()}\n`);
  await identityRows();
  console.log(`load after: ${load()}`);
}

const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
