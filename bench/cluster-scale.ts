import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@opensearch-project/opensearch';
import { createOpenSearchClient } from '#commons/clients/opensearch-client';
import { parseDocument } from '#shared/documents/documents';
import { indexTemplates, toSource } from '#shared/stores/opensearch/store';
import { ingestDocuments, openDuckDb } from '#shared/stores/duckdb/store';
import { startOpenSearchCluster } from '../bin/dev/opensearch-cluster';
import { machine, median } from './stats';
import { syntheticMovementEvents } from './synthetic';

/**
 * `npm run bench -- cluster-scale` (issue 36, docs/scale.md): the index and routing decision and the
 * capacity figures, measured on a 3-node cluster of the test distribution (512 MB heap each, the
 * machine is shared) and on DuckDB, with the same synthetic events:
 *
 * - many tenants: BENCH_SCALE_ORGS organizations (default 100) whose sizes fall off as 1/rank (the
 *   largest about a fifth of the events), 30 days in one month;
 * - two layouts of that month, each 3 primary shards with one replica, the service's mappings:
 *   `plain` (documents spread over the shards by `_id`, as the service writes today) and `routed`
 *   (`routing` = organizationId: each organization's documents on one shard);
 * - ingest: documents/s of `_bulk` (two requests in flight, 5,000 documents each) into each layout;
 * - size: bytes per million events, primaries and with the replica, after a force merge to one
 *   segment per shard (as a month that no longer takes writes is), and the DuckDB file's;
 * - reports: the service's daily × label report for one organization (the largest, and the median
 *   one), medians of BENCH_RUNS alternating runs with the request cache off, and the shards each
 *   search touched.
 *
 * BENCH_SCALE_EVENTS sets the events (default 1,000,000).
 */
const EVENTS = Number(process.env.BENCH_SCALE_EVENTS ?? 1_000_000);
const ORGS = Number(process.env.BENCH_SCALE_ORGS ?? 100);
const RUNS = Math.max(11, Number(process.env.BENCH_RUNS ?? 21));
const START = Date.UTC(2024, 4, 1);
const DAYS = 30;
const SHARDS = 3;

const orgId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** Organization of the n-th event: ranks weighted 1/rank, drawn by a fixed arithmetic (no randomness). */
function organizations(): (n: number) => string {
  const weights = Array.from({ length: ORGS }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  weights.reduce((acc, w) => (cumulative.push((acc + w) / sum), acc + w), 0);
  return (n: number) => {
    const u = ((n * 2654435761) % 2 ** 32) / 2 ** 32;
    const rank = cumulative.findIndex((c) => u < c);
    return orgId(rank < 0 ? ORGS - 1 : rank);
  };
}

function* events(): Generator<Record<string, unknown>> {
  const org = organizations();
  let n = 0;
  for (const e of syntheticMovementEvents({ count: EVENTS, organizationId: orgId(0), start: START, days: DAYS }))
    yield { ...e, organizationId: org(n++) };
}

async function putTemplates(client: Client, prefix: string): Promise<string> {
  for (const t of indexTemplates(prefix, { shards: SHARDS, replicas: 1 }))
    await client.indices.putIndexTemplate({ name: t.name, body: t.body as never });
  return `${prefix}movement-events-2024.05`;
}

/** `_bulk` of every event into `index` (routed by organization or not); documents/s. */
async function load(client: Client, index: string, routed: boolean): Promise<number> {
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let body: Record<string, unknown>[] = [];
  const flush = async () => {
    const sent = client.bulk({ index, body, timeout: '60s' }, { requestTimeout: 300_000 }).then(({ body: r }) => {
      if ((r as { errors: boolean }).errors)
        throw new Error(
          `bulk failed: ${JSON.stringify((r as { items: unknown[] }).items.find((i) => JSON.stringify(i).includes('error'))).slice(0, 400)}`,
        );
    });
    body = [];
    const tracked = sent.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= 2) await Promise.race(inFlight);
  };
  for (const e of events()) {
    const doc = parseDocument('movementEvents', e);
    body.push({ index: routed ? { routing: doc.organizationId } : {} }, toSource(doc));
    if (body.length >= 10_000) await flush();
  }
  if (body.length > 0) await flush();
  await Promise.all(inFlight);
  return EVENTS / ((performance.now() - started) / 1000);
}

const report = (org: string) => ({
  size: 0,
  query: {
    bool: {
      filter: [
        { term: { organizationId: org } },
        {
          range: {
            timestamp: { gte: new Date(START).toISOString(), lt: new Date(START + DAYS * 86_400_000).toISOString() },
          },
        },
      ],
    },
  },
  aggs: {
    day: {
      date_histogram: { field: 'timestamp', calendar_interval: '1d' },
      aggs: { label: { terms: { field: 'label', size: 100 } } },
    },
  },
});

async function sizes(client: Client, index: string): Promise<{ primary: number; total: number }> {
  const { body } = await client.indices.stats({ index, metric: 'store' });
  const all = (
    body as { _all: { primaries: { store: { size_in_bytes: number } }; total: { store: { size_in_bytes: number } } } }
  )._all;
  return { primary: all.primaries.store.size_in_bytes, total: all.total.store.size_in_bytes };
}

async function duckDbBytes(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'lrs-bench-scale-'));
  try {
    const instance = await openDuckDb(join(dir, 'events.duckdb'));
    let batch: ReturnType<typeof parseDocument<'movementEvents'>>[] = [];
    for (const e of events()) {
      batch.push(parseDocument('movementEvents', e));
      if (batch.length >= 100_000) {
        await ingestDocuments(instance, 'movementEvents', batch);
        batch = [];
      }
    }
    if (batch.length > 0) await ingestDocuments(instance, 'movementEvents', batch);
    const connection = await instance.connect();
    await connection.run('CHECKPOINT');
    const rows = (
      await connection.runAndReadAll('SELECT total_blocks * block_size AS bytes FROM pragma_database_size()')
    ).getRowObjects();
    connection.closeSync();
    instance.closeSync();
    return Number(rows[0]?.bytes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const perMillion = (bytes: number) => `${(((bytes / EVENTS) * 1e6) / 2 ** 20).toFixed(0)} MiB`;

export async function benchClusterScale(): Promise<void> {
  console.log(
    `\n== cluster-scale: ${EVENTS.toLocaleString('en')} events, ${ORGS} organizations, ${SHARDS} shards + 1 replica, 3 nodes ==\n${await machine()}`,
  );
  const cluster = await startOpenSearchCluster({ nodes: 3, heap: '512m' });
  const client = createOpenSearchClient({ OPENSEARCH_URL: cluster.urls.join(','), OPENSEARCH_AUTH: 'none' });
  try {
    const plain = await putTemplates(client, 'plain-');
    const routed = await putTemplates(client, 'routed-');
    const rates = { plain: await load(client, plain, false), routed: await load(client, routed, true) };
    await client.indices.refresh({ index: `${plain},${routed}` });
    await client.indices.forcemerge(
      { index: `${plain},${routed}`, max_num_segments: 1 },
      { requestTimeout: 1_200_000 },
    );
    await client.cluster.health({ wait_for_status: 'green', timeout: '300s' }, { requestTimeout: 400_000 });
    const size = { plain: await sizes(client, plain), routed: await sizes(client, routed) };

    const largest = orgId(0);
    const middle = orgId(Math.floor(ORGS / 2));
    const { body: counts } = await client.search({
      index: plain,
      body: { size: 0, aggs: { o: { terms: { field: 'organizationId', size: ORGS } } } } as never,
    });
    const byOrg = new Map(
      (
        counts as unknown as { aggregations: { o: { buckets: { key: string; doc_count: number }[] } } }
      ).aggregations.o.buckets.map((b) => [b.key, b.doc_count]),
    );
    const shardsTouched: Record<string, number> = {};
    const search = (index: string, org: string, routing: boolean, name: string) => async () => {
      const t = performance.now();
      const { body } = await client.search({
        index,
        request_cache: false,
        ...(routing ? { routing: org } : {}),
        body: report(org) as never,
      });
      shardsTouched[name] = (body as { _shards: { total: number } })._shards.total;
      return performance.now() - t;
    };
    const measurements = {
      'largest, plain': search(plain, largest, false, 'largest, plain'),
      'largest, routed': search(routed, largest, true, 'largest, routed'),
      'median, plain': search(plain, middle, false, 'median, plain'),
      'median, routed': search(routed, middle, true, 'median, routed'),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(measurements).map((k) => [k, []]));
    for (let i = 0; i < RUNS + 3; i++)
      for (const [k, m] of Object.entries(measurements)) i < 3 ? await m() : samples[k]!.push(await m());
    const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));

    console.log(
      `\n| layout | _bulk documents/s (3 nodes, 1 replica) | primaries | with replica | per million events (primary) |\n|---|---|---|---|---|`,
    );
    for (const k of ['plain', 'routed'] as const)
      console.log(
        `| ${k} | ${Math.round(rates[k]).toLocaleString('en')} | ${mib(size[k].primary)} | ${mib(size[k].total)} | ${perMillion(size[k].primary)} |`,
      );
    console.log(
      `\n| report (daily × label, 30 days, one organization) | events of the organization | shards searched | median ms | ÷ plain |\n|---|---|---|---|---|`,
    );
    for (const [who, org] of [
      ['largest', largest],
      ['median', middle],
    ] as const) {
      for (const layout of ['plain', 'routed']) {
        const k = `${who}, ${layout}`;
        console.log(
          `| ${k} | ${(byOrg.get(org) ?? 0).toLocaleString('en')} | ${shardsTouched[k]} | ${med[k]!.toFixed(1)} | ${(med[k]! / med[`${who}, plain`]!).toFixed(2)} |`,
        );
      }
    }
  } finally {
    await client.close();
    await cluster.stop();
  }
  const duck = await duckDbBytes();
  console.log(
    `\nDuckDB file after CHECKPOINT: ${mib(duck)} for ${EVENTS.toLocaleString('en')} events, ${perMillion(duck)} per million events`,
  );
}
