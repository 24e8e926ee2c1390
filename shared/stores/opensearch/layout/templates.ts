import type { Client } from '@opensearch-project/opensearch';
import { monthlyIndexTemplates, type IndexSettings } from './indices';
import { rollupIndexTemplates } from './rollup-indices';

/**
 * Every index template of the service: the monthly indices' (./indices.ts), then the rollups'
 * (./rollup-indices.ts). Apart from both, since the rollups' are built from the monthly ones' names.
 */
export function indexTemplates(prefix: string, settings: IndexSettings = {}): { name: string; body: Record<string, unknown> }[] {
  return [...monthlyIndexTemplates(prefix, settings), ...rollupIndexTemplates(prefix, settings)];
}

/** Creates or updates the index templates (monthly and rollup indices). Idempotent. */
export async function ensureIndexTemplates(client: Client, prefix: string, settings: IndexSettings = {}): Promise<void> {
  for (const t of indexTemplates(prefix, settings)) {
    await client.indices.putIndexTemplate({ name: t.name, body: t.body as never });
  }
}
