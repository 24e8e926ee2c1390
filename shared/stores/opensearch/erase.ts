import type { Client } from '@opensearch-project/opensearch';
import type { DeletedDocuments, OrganizationErasure } from '../store';
import { COLLECTIONS, type Collection } from '../../documents/fields';
import { indexPattern } from './layout/indices';
import { markGrainsOfDocuments } from './rollups/backfill';
import { rollupIndexName } from './layout/rollup-indices';

export interface OrganizationDeletion extends OrganizationErasure {
  /** Time between two looks at a running deletion task. @default 500 */
  readonly pollMs?: number;
}

/** What a finished `_delete_by_query` task reports (its `response`). */
interface DeletionResponse {
  readonly deleted: number;
  readonly version_conflicts: number;
  readonly failures?: readonly unknown[];
}

/**
 * Deletes every document of one organization from every monthly index of the three collections
 * (`<prefix><collection>-*`), with `_delete_by_query` run as a task (`wait_for_completion=false`)
 * that this waits for by polling `_tasks/<id>`: a large organization takes longer than an HTTP
 * request may stay open. `conflicts=proceed` lets a task go on past documents written meanwhile;
 * when some conflicted, the collection is deleted once more (a document still arriving after that
 * belongs to a client the erasure has already removed). The indices are refreshed at the end, so
 * that reports and a second run see the deletion at once.
 */
export async function deleteOrganizationDocuments(
  client: Client,
  prefix: string,
  run: OrganizationDeletion,
): Promise<DeletedDocuments> {
  const query = { term: { organizationId: run.organizationId } };
  const erased = {} as DeletedDocuments;
  for (const collection of COLLECTIONS) {
    const index = indexPattern(prefix, collection);
    if (run.dryRun) {
      const { body } = await client.count({ index, body: { query }, allow_no_indices: true, ignore_unavailable: true });
      erased[collection] = body.count;
      continue;
    }
    // The rollups' grains of the documents, before (a failure midway leaves them marked) and after
    // (a rebuild that read them meanwhile cannot clear them): their rows are rebuilt without them.
    await markGrainsOfDocuments(client, prefix, collection, index, query);
    let outcome = await deleteAndWait(client, index, query, run.pollMs ?? 500);
    let deleted = outcome.deleted;
    if (outcome.version_conflicts > 0) {
      outcome = await deleteAndWait(client, index, query, run.pollMs ?? 500);
      deleted += outcome.deleted;
    }
    if (outcome.version_conflicts > 0)
      throw new Error(
        `${index}: ${outcome.version_conflicts} documents of ${run.organizationId} changed while being deleted twice; run the erasure again`,
      );
    await markRollupRows(client, prefix, collection, query);
    erased[collection] = deleted;
  }
  if (!run.dryRun)
    await client.indices.refresh({ index: `${prefix}*`, allow_no_indices: true, ignore_unavailable: true });
  return erased;
}

/** Marks again the grains of the organization's rollup rows (its documents are gone now). */
async function markRollupRows(client: Client, prefix: string, collection: Collection, query: object): Promise<void> {
  await markGrainsOfDocuments(client, prefix, collection, rollupIndexName(prefix, collection), query);
}

async function deleteAndWait(client: Client, index: string, query: object, pollMs: number): Promise<DeletionResponse> {
  const { body: started } = await client.deleteByQuery({
    index,
    body: { query },
    conflicts: 'proceed',
    wait_for_completion: false,
    allow_no_indices: true,
    ignore_unavailable: true,
  });
  const task = (started as { task?: string }).task;
  if (!task) throw new Error(`${index}: _delete_by_query started no task: ${JSON.stringify(started).slice(0, 300)}`);
  for (;;) {
    const { body } = await client.tasks.get({ task_id: task });
    const status = body as { completed: boolean; response?: DeletionResponse; error?: unknown };
    if (status.completed) {
      if (status.error)
        throw new Error(`${index}: the deletion task ${task} failed: ${JSON.stringify(status.error).slice(0, 300)}`);
      const response = status.response ?? { deleted: 0, version_conflicts: 0 };
      if ((response.failures?.length ?? 0) > 0)
        throw new Error(
          `${index}: the deletion task ${task} failed: ${JSON.stringify(response.failures).slice(0, 300)}`,
        );
      return response;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
