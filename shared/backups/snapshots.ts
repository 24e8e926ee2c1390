import type { Client } from '@opensearch-project/opensearch';
import { indexPattern } from '../stores/opensearch/layout/indices';
import { COLLECTIONS } from '../documents/fields';

/**
 * Manual OpenSearch snapshots: register a repository, take a daily snapshot named by its date, prune
 * the old ones, restore indices. The same functions run in the scheduled snapshot function (an S3
 * repository on AWS) and in the restore test (a file-system repository on the test node), so the
 * runbook (docs/runbooks.md#restore-opensearch) is exercised by what it tells an operator to run.
 */

/** Where snapshots go: `s3` on AWS (bucket, region, role_arn), `fs` on a node with `path.repo`. */
export interface RepositorySpec {
  readonly name: string;
  readonly type: 's3' | 'fs';
  readonly settings: Readonly<Record<string, string>>;
}

/** The daily snapshots this module takes and prunes; any other snapshot (an operator's) is left alone. */
export const DAILY_PREFIX = 'daily-';

/** `daily-2024-03-05`: snapshot names must be lowercase; one a UTC day. */
export const dailySnapshotName = (at: Date): string => `${DAILY_PREFIX}${at.toISOString().slice(0, 10)}`;

/** The UTC day a daily snapshot was named for, or undefined for any other name. */
export function dayOfSnapshot(name: string): Date | undefined {
  const match = /^daily-(\d{4}-\d{2}-\d{2})$/.exec(name);
  if (!match) return undefined;
  const day = new Date(`${match[1]}T00:00:00Z`);
  return Number.isNaN(day.getTime()) ? undefined : day;
}

/** The service's data indices, every collection's months: what a snapshot holds (no system indices). */
export const serviceIndexPatterns = (indexPrefix: string): string[] =>
  COLLECTIONS.map((c) => indexPattern(indexPrefix, c));

const statusOf = (error: unknown): number | undefined => (error as { meta?: { statusCode?: number } }).meta?.statusCode;

/**
 * Registers the repository unless it is already registered with the same type and settings: safe to
 * run every day. OpenSearch answers settings as strings, so they are compared as strings.
 */
export async function ensureRepository(
  client: Client,
  repo: RepositorySpec,
): Promise<'created' | 'updated' | 'unchanged'> {
  let current: { type?: string; settings?: Record<string, unknown> } | undefined;
  try {
    const response = await client.snapshot.getRepository({ repository: repo.name });
    current = (response.body as Record<string, typeof current>)[repo.name];
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
  const same =
    current?.type === repo.type &&
    Object.keys(repo.settings).length === Object.keys(current.settings ?? {}).length &&
    Object.entries(repo.settings).every(([key, value]) => String(current?.settings?.[key]) === value);
  if (same) return 'unchanged';
  await client.snapshot.createRepository({ repository: repo.name, body: { type: repo.type, settings: repo.settings } });
  return current ? 'updated' : 'created';
}

export interface SnapshotInfo {
  readonly name: string;
  /** IN_PROGRESS, SUCCESS, PARTIAL, FAILED or INCOMPATIBLE. */
  readonly state: string;
  readonly indices: readonly string[];
}

/** Every snapshot of the repository, oldest first. */
export async function listSnapshots(client: Client, repository: string): Promise<SnapshotInfo[]> {
  const response = await client.snapshot.get({ repository, snapshot: '_all' });
  const snapshots = (
    response.body as {
      snapshots: { snapshot: string; state: string; indices: string[]; start_time_in_millis: number }[];
    }
  ).snapshots;
  return [...snapshots]
    .sort((a, b) => a.start_time_in_millis - b.start_time_in_millis)
    .map((s) => ({ name: s.snapshot, state: s.state, indices: s.indices }));
}

/**
 * Takes a snapshot of the indices (without the cluster state), or nothing if one of that name exists.
 * `waitForCompletion` false (the scheduled function) returns as soon as it started; OpenSearch
 * copies only the segments no earlier snapshot holds, so a daily one is quick but not bounded.
 */
export async function takeSnapshot(
  client: Client,
  repository: string,
  name: string,
  options: { readonly indices: readonly string[]; readonly waitForCompletion?: boolean },
): Promise<'taken' | 'exists'> {
  if ((await listSnapshots(client, repository)).some((s) => s.name === name)) return 'exists';
  await client.snapshot.create({
    repository,
    snapshot: name,
    wait_for_completion: options.waitForCompletion ?? false,
    body: { indices: options.indices.join(','), ignore_unavailable: true, include_global_state: false },
  });
  return 'taken';
}

/** Deletes the daily snapshots named for a day more than `keepDays` before `now`; returns their names. */
export async function pruneSnapshots(
  client: Client,
  repository: string,
  options: { readonly keepDays: number; readonly now: Date },
): Promise<string[]> {
  const oldestKept = Date.UTC(
    options.now.getUTCFullYear(),
    options.now.getUTCMonth(),
    options.now.getUTCDate() - options.keepDays,
  );
  const expired = (await listSnapshots(client, repository))
    .filter((s) => s.state !== 'IN_PROGRESS')
    .filter((s) => {
      const day = dayOfSnapshot(s.name);
      return day !== undefined && day.getTime() < oldestKept;
    })
    .map((s) => s.name);
  // One at a time: a repository takes one delete (or create) at once on older engines.
  for (const snapshot of expired) await client.snapshot.delete({ repository, snapshot });
  return expired;
}

export interface DailySnapshotResult {
  readonly repository: 'created' | 'updated' | 'unchanged';
  readonly snapshot: string;
  readonly taken: 'taken' | 'exists';
  readonly pruned: readonly string[];
  /** The latest daily snapshot before today's, when it did not end in SUCCESS (FAILED, PARTIAL, still IN_PROGRESS). */
  readonly previous?: SnapshotInfo;
}

/** The daily job: repository, prune, today's snapshot; prune first so it never races today's. */
export async function runDailySnapshot(
  client: Client,
  options: {
    readonly repository: RepositorySpec;
    readonly indices: readonly string[];
    readonly keepDays: number;
    readonly now: Date;
    readonly waitForCompletion?: boolean;
  },
): Promise<DailySnapshotResult> {
  const repository = await ensureRepository(client, options.repository);
  const pruned = await pruneSnapshots(client, options.repository.name, options);
  const snapshot = dailySnapshotName(options.now);
  const taken = await takeSnapshot(client, options.repository.name, snapshot, options);
  const previous = (await listSnapshots(client, options.repository.name))
    .filter((s) => dayOfSnapshot(s.name) !== undefined && s.name !== snapshot)
    .at(-1);
  return { repository, snapshot, taken, pruned, ...(previous && previous.state !== 'SUCCESS' ? { previous } : {}) };
}

/**
 * Restores indices from a snapshot and waits until they are back. An index of the same name must not
 * be open (delete it, or restore under another name with `rename`); aliases and cluster state are not
 * restored.
 */
export async function restoreIndices(
  client: Client,
  repository: string,
  snapshot: string,
  options: {
    readonly indices: readonly string[];
    readonly rename?: { readonly pattern: string; readonly replacement: string };
  },
): Promise<{ readonly indices: readonly string[]; readonly failedShards: number }> {
  const response = await client.snapshot.restore({
    repository,
    snapshot,
    wait_for_completion: true,
    body: {
      indices: options.indices.join(','),
      include_global_state: false,
      include_aliases: false,
      ...(options.rename
        ? { rename_pattern: options.rename.pattern, rename_replacement: options.rename.replacement }
        : {}),
    },
  });
  const restored = (response.body as { snapshot: { indices: string[]; shards: { failed: number } } }).snapshot;
  return { indices: restored.indices, failedShards: restored.shards.failed };
}
