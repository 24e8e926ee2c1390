import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { parseDocument } from '#shared/documents/documents';
import { DuckDbEngine, openDuckDb, ingestDocuments } from '#shared/stores/duckdb/store';
import { BROTLI_QUALITY } from '#commons/http/content-encoding';
import { seedMovementEvents } from '../bin/seed/generate';
import { createQueryReportHandler } from '../functions/query-report';
import { invoke } from '../bin/dev/lambda-events';
import { machine, median } from './stats';

/**
 * Issue 13.1: what compression saves and costs. The data is `npm start`'s (the seed generator: 3
 * locations in 3 time zones, 30 days, about 1,500 events per location and day) in an in-memory
 * DuckDB. For three reports: the bytes sent plain, gzip and br, and the handler's time with each
 * (alternating, medians), as a ratio to the plain answer in the same run. Then, on the largest
 * body, zlib alone at several gzip levels and brotli qualities: why br at BROTLI_QUALITY and gzip
 * at its default level 6.
 */
const ORG = '00000000-0000-4000-8000-000000000013';
const DAYS = 30;
const NOW = Date.UTC(2024, 5, 1);
const RUNS = Math.max(7, Number(process.env.BENCH_RUNS ?? 21));
const range = {
  type: 'range',
  field: 'timestamp',
  from: new Date(NOW - DAYS * 86_400_000).toISOString(),
  to: new Date(NOW).toISOString(),
};

const REPORTS: Record<string, unknown> = {
  '30 days hourly × location × label × direction': {
    filters: [range],
    aggregations: [
      { type: 'dateHistogram', interval: '1h' },
      { type: 'terms', field: 'locationId' },
      { type: 'terms', field: 'label' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  },
  '30 days hourly × label': {
    filters: [range],
    aggregations: [
      { type: 'dateHistogram', interval: '1h' },
      { type: 'terms', field: 'label' },
    ],
  },
  '30 days daily × label': {
    filters: [range],
    aggregations: [
      { type: 'dateHistogram', interval: '1d' },
      { type: 'terms', field: 'label' },
    ],
  },
};

const CODINGS = [undefined, 'gzip', 'br'] as const;

function timed<T>(f: () => T): [T, number] {
  const start = performance.now();
  const value = f();
  return [value, performance.now() - start];
}

export async function benchCompression(): Promise<void> {
  console.log(`compression: ${await machine()}`);
  const db = await openDuckDb(':memory:');
  const docs = [...seedMovementEvents({ organizationId: ORG, days: DAYS, locations: 3, now: NOW })].map((d) =>
    parseDocument('movementEvents', d),
  );
  await ingestDocuments(db, 'movementEvents', docs);
  const handler = createQueryReportHandler({ engine: () => new DuckDbEngine(db) });
  console.log(`${docs.length} movement events; ${RUNS} alternating runs per coding, medians\n`);
  console.log('| report | plain | gzip | br | handler, plain | gzip ÷ plain | br ÷ plain |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  let largest = '';
  for (const [name, body] of Object.entries(REPORTS)) {
    const times = new Map<string | undefined, number[]>(CODINGS.map((c) => [c, []]));
    const bytes = new Map<string | undefined, number>();
    for (let run = -3; run < RUNS; run++) {
      for (const coding of CODINGS) {
        const start = performance.now();
        const response = await invoke(handler, {
          body,
          org: ORG,
          ...(coding ? { headers: { 'accept-encoding': coding } } : {}),
        });
        const ms = performance.now() - start;
        if (response.status !== 200 || response.headers['content-encoding'] !== coding)
          throw new Error(`${name} ${coding}: ${response.status} ${response.body.slice(0, 200)}`);
        if (run >= 0) times.get(coding)!.push(ms);
        bytes.set(coding, response.bytes.length);
        if (!coding && response.body.length > largest.length) largest = response.body;
      }
    }
    const plain = median(times.get(undefined)!);
    const kb = (c: string | undefined) => `${bytes.get(c)!.toLocaleString('en')} B`;
    const ratio = (c: string) => `${(median(times.get(c)!) / plain).toFixed(2)}×`;
    console.log(
      `| ${name} | ${kb(undefined)} | ${kb('gzip')} | ${kb('br')} | ${plain.toFixed(1)} ms | ${ratio('gzip')} | ${ratio('br')} |`,
    );
  }
  db.closeSync();

  const input = Buffer.from(largest, 'utf8');
  console.log(`\nzlib alone on the largest body (${input.length.toLocaleString('en')} B), medians of ${RUNS}:\n`);
  console.log('| coding | bytes | ratio | time |');
  console.log('|---|---:|---:|---:|');
  const brotli = (quality: number) => () =>
    brotliCompressSync(input, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: input.length,
      },
    });
  const variants: [string, () => Buffer][] = [
    ...[1, 6, 9].map((level): [string, () => Buffer] => [
      `gzip level ${level}${level === 6 ? ' (default, used)' : ''}`,
      () => gzipSync(input, { level }),
    ]),
    ...[1, 4, 5, 6, 9, 11].map((q): [string, () => Buffer] => [
      `br quality ${q}${q === BROTLI_QUALITY ? ' (used)' : q === 11 ? " (Node's default)" : ''}`,
      brotli(q),
    ]),
  ];
  for (const [name, compress] of variants) {
    const runs = name.includes('11') ? Math.min(RUNS, 5) : RUNS;
    const samples: number[] = [];
    let size = 0;
    for (let i = 0; i < runs; i++) {
      const [out, ms] = timed(compress);
      samples.push(ms);
      size = out.length;
    }
    console.log(
      `| ${name} | ${size.toLocaleString('en')} | ${(input.length / size).toFixed(1)}× | ${median(samples).toFixed(2)} ms |`,
    );
  }
}
