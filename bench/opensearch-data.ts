import type { Client } from '@opensearch-project/opensearch';
import { Presets, SingleBar } from 'cli-progress';
import { indexNameFor, ensureIndexTemplates } from '#shared/stores/opensearch/store';

/**
 * Makes a one-shard benchmark index hold exactly `count` synthetic movement events: kept as is when
 * it already does (benchmarks reuse their node's data folder), else rebuilt with `_bulk` and
 * force-merged to one segment so every run measures the same index layout.
 */
export async function ensureBenchEvents(
  client: Client,
  prefix: string,
  count: number,
  documents: () => Iterable<Record<string, unknown>>,
): Promise<void> {
  const pattern = `${prefix}movement-events-*`;
  await ensureIndexTemplates(client, prefix, { shards: 1, replicas: 0 });
  const existing = await client
    .count({ index: pattern, ignore_unavailable: true, allow_no_indices: true })
    .catch(() => undefined);
  if ((existing?.body as { count?: number } | undefined)?.count === count) return;
  await client.indices
    .delete({ index: pattern, ignore_unavailable: true, expand_wildcards: 'all' })
    .catch(() => undefined);
  const bar = new SingleBar(
    { format: `indexing ${prefix} {bar} {value}/{total} docs {eta}s left` },
    Presets.shades_classic,
  );
  bar.start(count, 0);
  let batch: Record<string, unknown>[] = [];
  // Two bulk requests in flight: a one-shard bulk is indexed by one write thread, so a second keeps
  // the other core busy, and the next batch is generated meanwhile.
  const inFlight = new Set<Promise<void>>();
  const flush = async () => {
    const body = batch;
    batch = [];
    const sent = client.bulk({ body }).then((response) => {
      const result = response.body as { errors: boolean; items: Record<string, { error?: unknown }>[] };
      if (result.errors)
        throw new Error(
          `bulk indexing failed: ${JSON.stringify(result.items.map((i) => Object.values(i)[0]?.error).find(Boolean)).slice(0, 500)}`,
        );
      bar.increment(body.length / 2);
    });
    const tracked = sent.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= 2) await Promise.race(inFlight);
  };
  for (const doc of documents()) {
    batch.push({ index: { _index: indexNameFor(prefix, 'movementEvents', Date.parse(doc.timestamp as string)) } }, doc);
    if (batch.length >= 10_000) await flush();
  }
  if (batch.length > 0) await flush();
  await Promise.all(inFlight);
  bar.stop();
  await client.indices.refresh({ index: pattern });
  await client.indices.forcemerge({ index: pattern, max_num_segments: 1 });
}
