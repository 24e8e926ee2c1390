import { Client } from '@opensearch-project/opensearch';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdirSync } from 'node:fs';
import { compileSearch, OpenSearchEngine } from '#shared/stores/opensearch/store';
import { DEFAULT_LIMITS } from '#shared/stores/store';
import { buildPlan } from '#shared/report/plan/build-plan';
import { createQueryReportHandler } from '../functions/query-report';
import { invoke } from '../bin/dev/lambda-events';
import { startOpenSearch } from '../bin/dev/opensearch-node';
import { ensureBenchEvents } from './opensearch-data';
import { machine, median } from './stats';
import { syntheticMovementEvents } from './synthetic';

/**
 * Issue 2 benchmark: one report (daily histogram × label × direction over 30 days) through the whole
 * Lambda handler vs the same compiled DSL sent raw to `_search`, alternating, request cache off on
 * both sides, medians. Goals: handler ≤ 1.10× raw at 1M documents; handler − raw ≤ 5 ms at 10k.
 * The node's data folder is kept in $TMPDIR/lrs-bench-opensearch so a second run skips indexing.
 */
const ORG = '00000000-0000-4000-8000-000000000001';
const START = Date.UTC(2024, 4, 1);
const DAYS = 30;
const RUNS = Number(process.env.BENCH_RUNS ?? 25);

const body = {
  source: 'movementEvents',
  filters: [
    {
      type: 'range',
      field: 'timestamp',
      from: new Date(START).toISOString(),
      to: new Date(START + DAYS * 86_400_000).toISOString(),
    },
  ],
  aggregations: [
    { type: 'dateHistogram', interval: '1d' },
    { type: 'terms', field: 'label' },
    { type: 'nested', path: 'crossedPaths' },
    { type: 'terms', field: 'crossedPaths.end' },
  ],
};

async function measure(client: Client, prefix: string): Promise<{ handler: number; raw: number }> {
  const engine = new OpenSearchEngine(client, { indexPrefix: prefix, requestCache: false });
  const handler = createQueryReportHandler({ engine: () => engine });
  const raw = compileSearch(
    buildPlan(body),
    { organizationId: ORG },
    { indexPrefix: prefix, limits: DEFAULT_LIMITS, requestCache: false },
  );
  const viaHandler = async () => {
    const t = performance.now();
    const response = await invoke(handler, { body, org: ORG });
    if (response.status !== 200) throw new Error(response.body);
    return performance.now() - t;
  };
  const viaRaw = async () => {
    const t = performance.now();
    await client.search(raw);
    return performance.now() - t;
  };
  for (let i = 0; i < 5; i++) await Promise.all([await viaHandler(), await viaRaw()]);
  const h: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    h.push(await viaHandler());
    r.push(await viaRaw());
  }
  return { handler: median(h), raw: median(r) };
}

export async function benchReportOverhead(): Promise<void> {
  // Not under $HOME: the node runs as an unprivileged user that cannot enter root's home.
  const dataDir = join(tmpdir(), 'lrs-bench-opensearch');
  mkdirSync(dataDir, { recursive: true });
  const node = await startOpenSearch({ heap: '2g', dataDir });
  try {
    const client = new Client({ node: node.url, requestTimeout: 120_000 });
    const rows: string[] = [];
    for (const [prefix, count] of [
      ['bench10k-', 10_000],
      ['bench1m-', 1_000_000],
    ] as const) {
      await ensureBenchEvents(client, prefix, count, () =>
        syntheticMovementEvents({ count, organizationId: ORG, start: START, days: DAYS }),
      );
      const { handler, raw } = await measure(client, prefix);
      rows.push(
        `| ${count.toLocaleString('en')} | ${raw.toFixed(2)} ms | ${handler.toFixed(2)} ms | ${(handler / raw).toFixed(3)}× | ${(handler - raw).toFixed(2)} ms |`,
      );
    }
    console.log(`\nReport overhead (median of ${RUNS} alternating runs, request cache off), ${await machine()}\n`);
    console.log('| documents | raw _search | handler | handler ÷ raw | handler − raw |\n|---|---|---|---|---|');
    console.log(rows.join('\n'));
  } finally {
    await node.stop();
  }
}
