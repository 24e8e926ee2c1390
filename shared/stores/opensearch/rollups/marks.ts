import type { Client } from '@opensearch-project/opensearch';
import { COLLECTIONS, type Collection } from '../../../documents/fields';
import { rollupLevels } from '../../../rollups/match';
import { EngineUnavailableError } from '../../../errors';
import { assertEveryShard, WRITE_WAIT } from '../errors';
import { dirtyIndexName, rollupIndexNames } from '../layout/rollup-indices';

/**
 * The rollups' bookkeeping in `<prefix>rollup-dirty` (docs/rollups.md, "On OpenSearch"): one mark
 * per dirty grain, `_id` `<collection>:<grain>`, written with `index` (a second mark of a grain
 * overwrites the first and bumps its `_seq_no`, which is what makes clearing race-safe, see
 * clearMarks), and one `ready:<collection>:<levels>` document once every grain of the documents stored
 * before the rollups existed was marked (backfill.ts): until then reports read raw.
 */
export const markId = (c: Collection, grain: number): string => `${c}:${grain}`;
/**
 * Readiness names the levels it was built for (`ready:<collection>:15m,60m,1440m`): a domain whose rollups
 * were made ready with other levels backfills again (every grain marked, every level rebuilt) and
 * reads raw until then, never a level index that was never built.
 */
export const readyId = (c: Collection): string =>
  `ready:${c}:${rollupLevels()
    .map((l) => `${l / 60_000}m`)
    .join(',')}`;

/**
 * Marks grains dirty: one `_bulk` to the bookkeeping index (path only: the domain refuses indices in
 * bodies). Idempotent, and safe from any number of writers at once: each mark is one `index` of a
 * fixed `_id`, which never conflicts. Throws when a mark was not written, so that the caller's
 * batch fails and is sent again (its documents are then duplicates, whose grains are marked again).
 */
export async function markGrains(
  client: Client,
  prefix: string,
  c: Collection,
  grains: readonly number[],
  refresh = false,
): Promise<void> {
  if (grains.length === 0) return;
  const body = grains.flatMap((grain) => [
    { index: { _id: markId(c, grain) } },
    { kind: 'dirty', collection: c, grain },
  ]);
  const { body: response } = await client.bulk({
    index: dirtyIndexName(prefix),
    body,
    timeout: WRITE_WAIT,
    ...(refresh ? { refresh: true } : {}),
  });
  forgetRollupState(client, prefix, c);
  if ((response as { errors?: boolean }).errors) {
    const failed = (response as { items: Record<string, { status?: number; error?: unknown }>[] }).items
      .map((i) => Object.values(i)[0])
      .find((item) => item?.error);
    const cause = new Error(`rollup marks were not written: ${JSON.stringify(failed?.error).slice(0, 300)}`);
    // The bookkeeping index's shard unavailable or the node pushing back: the batch is sent again (503), not a bug
    // (500).
    const status = failed?.status ?? 0;
    if (status === 429 || status >= 500)
      throw new EngineUnavailableError(
        'The search engine could not record the batch for the rollups; send the same batch again shortly.',
        5,
        { cause },
      );
    throw cause;
  }
}

/**
 * Creates the rollups' indices (the bookkeeping and every level's rows, from their templates) before
 * any report reads them: the index setup in AWS, a cluster you run at npm start. Left to the first
 * rebuild, each was created while reports already read it (the state, or rows before the watermark
 * while the rest is built), and for that moment its shard was not active: every rollup report was a
 * 503, as it must be for a shard that is down. Each returns once its primary is active; nothing for
 * one that exists.
 */
export async function ensureRollupIndices(client: Client, prefix: string): Promise<void> {
  for (const index of [dirtyIndexName(prefix), ...COLLECTIONS.flatMap((c) => rollupIndexNames(prefix, c))]) {
    if ((await client.indices.exists({ index })).body) continue;
    try {
      await client.indices.create({ index, wait_for_active_shards: '1' } as never);
    } catch (e) {
      // Another setup created it meanwhile.
      if ((e as { body?: { error?: { type?: string } } }).body?.error?.type !== 'resource_already_exists_exception')
        throw e;
    }
  }
}

/** One dirty grain as read, with the version that clearing it is conditioned on. */
export interface Mark {
  readonly grain: number;
  readonly seqNo: number;
  readonly primaryTerm: number;
}

/** Up to `size` of a collection's dirty grains, earliest first. */
export async function readMarks(client: Client, prefix: string, c: Collection, size: number): Promise<Mark[]> {
  const body = await searchMarks(client, prefix, {
    size,
    seq_no_primary_term: true,
    query: { bool: { filter: [{ term: { kind: 'dirty' } }, { term: { collection: c } }] } },
    sort: [{ grain: 'asc' }],
  });
  const hits = (body as { hits: { hits: { _source: { grain: number }; _seq_no: number; _primary_term: number }[] } })
    .hits.hits;
  return hits.map((h) => ({ grain: h._source.grain, seqNo: h._seq_no, primaryTerm: h._primary_term }));
}

/** A search of the bookkeeping index (none yet: no hits), refused unless every shard answered. */
async function searchMarks(client: Client, prefix: string, search: Record<string, unknown>): Promise<unknown> {
  const { body } = await client.search({
    index: dirtyIndexName(prefix),
    ignore_unavailable: true,
    allow_no_indices: true,
    allow_partial_search_results: false,
    body: search as never,
  });
  assertEveryShard(body);
  return body;
}

/**
 * Clears marks, each only if unchanged since it was read (`if_seq_no`/`if_primary_term`): a grain
 * marked again meanwhile (a write after the rebuild read it) keeps its mark, and is rebuilt next
 * time. Returns how many were cleared.
 */
export async function clearMarks(
  client: Client,
  prefix: string,
  c: Collection,
  marks: readonly Mark[],
): Promise<number> {
  if (marks.length === 0) return 0;
  const body = marks.map((m) => ({
    delete: { _id: markId(c, m.grain), if_seq_no: m.seqNo, if_primary_term: m.primaryTerm },
  }));
  const { body: response } = await client.bulk({ index: dirtyIndexName(prefix), body, refresh: true });
  forgetRollupState(client, prefix, c);
  const items = (response as { items: { delete: { status: number } }[] }).items;
  const unexpected = items.find((i) => i.delete.status !== 200 && i.delete.status !== 404 && i.delete.status !== 409);
  if (unexpected) throw new Error(`rollup marks were not cleared: ${JSON.stringify(unexpected).slice(0, 300)}`);
  return items.filter((i) => i.delete.status === 200).length;
}

/** Whether a collection's rollups can be read, and up to where they are complete. */
export interface RollupState {
  /** Every grain of the documents stored before the rollups existed has been marked (backfill.ts). */
  readonly ready: boolean;
  /** The start of the earliest dirty grain; +Infinity: none. */
  readonly watermark: number;
}

/** The collection's readiness and watermark, in one search of the bookkeeping index. */
export async function readRollupState(client: Client, prefix: string, c: Collection): Promise<RollupState> {
  const body = await searchMarks(client, prefix, {
    size: 0,
    track_total_hits: false,
    query: { term: { collection: c } },
    aggs: {
      ready: { filter: { ids: { values: [readyId(c)] } } },
      dirty: { filter: { term: { kind: 'dirty' } }, aggs: { first: { min: { field: 'grain' } } } },
    },
  });
  const aggs = (body as { aggregations?: { ready: { doc_count: number }; dirty: { first: { value: number | null } } } })
    .aggregations;
  const first = aggs?.dirty.first.value;
  return {
    ready: (aggs?.ready.doc_count ?? 0) > 0,
    watermark: first === null || first === undefined ? Infinity : first,
  };
}

/** Says the collection's rollups may be read (their past grains are all marked). */
export async function markReady(client: Client, prefix: string, c: Collection): Promise<void> {
  await client.index({
    index: dirtyIndexName(prefix),
    id: readyId(c),
    body: { kind: 'ready', collection: c },
    refresh: true,
  });
  forgetRollupState(client, prefix, c);
}

/**
 * How long a report may use a rollup state read by an earlier one (RollupState): one second, the raw
 * indices' refresh interval, so that a report on rollups lags a write by about what a raw search does.
 */
export const ROLLUP_STATE_TTL_MS = 1_000;

interface Remembered {
  readonly at: number;
  readonly state: Promise<RollupState>;
}
/** Per client, per `<prefix>\0<collection>`: the last state read (or being read), and when it was asked. */
const remembered = new WeakMap<Client, Map<string, Remembered>>();
const stateKey = (prefix: string, c: Collection): string => `${prefix}\0${c}`;

/**
 * The collection's rollup state as readRollupState reads it, read at most once per `ttlMs` per
 * client and prefix (concurrent reports share one search): a rollup report is then one search, not
 * two (docs/rollups.md, "On OpenSearch"). Every mark, clear and readiness written through the same
 * client in this process drops it (markGrains, clearMarks, markReady), so a report after a write or a
 * rebuild here reads the state afresh; a write by another process (ingest is another function in
 * AWS) is seen within `ttlMs` plus the bookkeeping index's refresh. A failed read is not kept.
 */
export function cachedRollupState(
  client: Client,
  prefix: string,
  c: Collection,
  ttlMs: number = ROLLUP_STATE_TTL_MS,
  now: number = Date.now(),
): Promise<RollupState> {
  let states = remembered.get(client);
  if (!states) remembered.set(client, (states = new Map()));
  const key = stateKey(prefix, c);
  const known = states.get(key);
  if (known && now - known.at < ttlMs) return known.state;
  const entry: Remembered = { at: now, state: readRollupState(client, prefix, c) };
  states.set(key, entry);
  entry.state.catch(() => {
    if (states.get(key) === entry) states.delete(key);
  });
  return entry.state;
}

/** Drops the remembered state of a collection whose bookkeeping this process just changed. */
function forgetRollupState(client: Client, prefix: string, c: Collection): void {
  remembered.get(client)?.delete(stateKey(prefix, c));
}
