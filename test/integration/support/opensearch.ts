import { Client } from '@opensearch-project/opensearch';
import type { Collection } from '#shared/documents/fields';
import { indexNameFor } from '#shared/stores/opensearch/layout/indices';
import { ensureIndexTemplates } from '#shared/stores/opensearch/layout/templates';

/** A client for the node the global setup started. */
export function testClient(): Client {
  const node = process.env.OPENSEARCH_URL;
  if (!node) throw new Error('OPENSEARCH_URL is not set: the integration global setup did not run');
  return new Client({ node });
}

let counter = 0;
/** A fresh index prefix, so test files never see each other's documents. */
export const uniquePrefix = (name: string): string => `t${process.pid}-${name}-${counter++}-`.toLowerCase();

export type TestDocument = { readonly timestamp: string } & Record<string, unknown>;

/** Templates, then the documents (into their monthly indices), then a refresh so they are searchable. */
export async function indexDocuments(
  client: Client,
  prefix: string,
  docs: Partial<Record<Collection, readonly TestDocument[]>>,
): Promise<void> {
  await ensureIndexTemplates(client, prefix, { replicas: 0 });
  const body = Object.entries(docs).flatMap(([collection, list]) =>
    (list ?? []).flatMap((doc) => [
      { index: { _index: indexNameFor(prefix, collection as Collection, Date.parse(doc.timestamp)) } },
      doc,
    ]),
  );
  if (body.length > 0) {
    const response = await client.bulk({ body, refresh: true });
    if ((response.body as { errors: boolean }).errors)
      throw new Error(`bulk failed: ${JSON.stringify(response.body).slice(0, 500)}`);
  }
}

export async function deleteIndices(client: Client, prefix: string): Promise<void> {
  await client.indices
    .delete({ index: `${prefix}*`, ignore_unavailable: true, expand_wildcards: 'all' })
    .catch(() => undefined);
  await client.indices.deleteIndexTemplate({ name: `${prefix}*` }).catch(() => undefined);
}
