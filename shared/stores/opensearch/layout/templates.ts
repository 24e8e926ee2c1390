import type { Client } from '@opensearch-project/opensearch';
import { monthlyIndexTemplates, replicasFor, type IndexSettings } from './indices';
import { rollupIndexTemplates } from './rollup-indices';

/**
 * Every index template of the service: the monthly indices' (./indices.ts), then the rollups'
 * (./rollup-indices.ts). Apart from both, since the rollups' are built from the monthly ones' names.
 */
export function indexTemplates(
  prefix: string,
  settings: IndexSettings,
): { name: string; body: Record<string, unknown> }[] {
  return [...monthlyIndexTemplates(prefix, settings), ...rollupIndexTemplates(prefix, settings)];
}

/** The index patterns of every template: the indices the service makes (monthly, rollup levels, bookkeeping). */
export function servicePatterns(prefix: string): string[] {
  return indexTemplates(prefix, { replicas: 0 }).flatMap((t) => t.body.index_patterns as string[]);
}

/**
 * Creates or updates the index templates (monthly and rollup indices), then gives the indices that
 * exist already the replicas where they have fewer ({@link raiseReplicas}). Idempotent.
 */
export async function ensureIndexTemplates(client: Client, prefix: string, settings: IndexSettings): Promise<void> {
  for (const t of indexTemplates(prefix, settings)) {
    await client.indices.putIndexTemplate({ name: t.name, body: t.body as never });
  }
  if (settings.replicas > 0) await raiseReplicas(client, prefix, settings.replicas);
}

/**
 * The settings for a cluster you run, as it is now: {@link replicasFor} its data nodes
 * (`_cluster/health`). The stack decides from its own node count instead (lib/reporting.ts).
 */
export async function settingsForCluster(client: Client): Promise<IndexSettings> {
  const { body } = await client.cluster.health({});
  return { shards: 1, replicas: replicasFor(body.number_of_data_nodes) };
}

/**
 * Sets `replicas` on each of the service's indices that has fewer (a cluster grown from one node
 * to several: its indices were made with none). Never lowers a count: a cluster seen with one data
 * node may be a larger one with nodes down, whose replicas are what it will recover from.
 * Returns the indices changed.
 */
export async function raiseReplicas(client: Client, prefix: string, replicas: number): Promise<string[]> {
  // One pattern a request, one index a PUT: the stack grants the setup function these paths per
  // pattern (lib/reporting.ts), which a comma-separated list would not match.
  const body: Record<string, unknown> = {};
  for (const pattern of servicePatterns(prefix)) {
    const answer = await client.indices.getSettings({
      index: pattern,
      name: 'index.number_of_replicas',
      expand_wildcards: ['open', 'closed'],
      ignore_unavailable: true,
      allow_no_indices: true,
      flat_settings: true,
    });
    Object.assign(body, answer.body);
  }
  const fewer = Object.entries(body)
    .filter(
      ([, value]) =>
        Number((value as { settings?: Record<string, string> }).settings?.['index.number_of_replicas'] ?? 0) < replicas,
    )
    .map(([index]) => index)
    .sort();
  for (const index of fewer) {
    await client.indices.putSettings({
      index,
      expand_wildcards: ['open', 'closed'],
      body: { 'index.number_of_replicas': replicas },
    });
  }
  return fewer;
}
