import type { API, Client } from '@opensearch-project/opensearch';
import { onAbort } from '../../../abort';
import { EngineUnavailableError } from '../../../errors';
import { refuseBeyondBucketFloor } from '../../../report/bucket-limit';
import type { Deadline } from '../../../report/deadline';
import {
  DEFAULT_LIMITS,
  type AggResult,
  type EngineLimits,
  type EngineResult,
  type ReportEngine,
  type RunOptions,
  type Scope,
} from '../../store';
import type { AggNode, DateHistogramAggNode, ReportPlan } from '../../../report/plan/plan';
import {
  compileSearch,
  compileTimeExtent,
  itemFilterName,
  percentilesName,
  stageName,
  type CompileOptions,
} from './compile';
import { assertEveryShard, isSearchTimeout, mapOpenSearchError } from '../errors';
import { boundedHistogramKeys, emptyResult, histogramKeysOver } from './empty-result';
import { DEFAULT_MAX_BUCKETS } from '../../../report/histogram/keys';
import { ENGINE_RAW_REASONS, matchRollup, ROLLUP_GRAIN_MS } from '../../../rollups/match';
import { chooseRollup, type RollupRead } from '../../../rollups/read';
import { cachedRollupState, ROLLUP_STATE_TTL_MS } from '../rollups/marks';
import { ITEMS, readRollupStats } from './rollup-read';

export interface OpenSearchEngineOptions {
  /** Prefix of every index and template name (one deployment or test run per prefix). @default '' */
  readonly indexPrefix?: string;
  readonly limits?: EngineLimits;
  /** @default undefined: the index's own request-cache setting */
  readonly requestCache?: boolean;
  /**
   * The domain's `search.max_buckets`: for answers built without the engine, and to refuse before
   * searching a report whose bucket count exceeds it whatever the data (refuseBeyondBucketFloor). @default 65535
   */
  readonly maxBuckets?: number;
  /**
   * Answer from the rollups where the matcher proves the answer the same (docs/rollups.md) and the
   * collection's rollups are ready; the result says which path served it. @default false
   */
  readonly rollups?: boolean;
  /**
   * The grain the rollups were rebuilt at (RebuildOptions.grainMs); its levels are read. Other than
   * the default only in tests, which prove the matcher on hourly grains, where real zones are not
   * all aligned. @default ROLLUP_GRAIN_MS
   */
  readonly rollupGrainMs?: number;
  /**
   * How long the collection's rollup readiness and watermark, once read, serve later reports (../rollups/marks.ts,
   * cachedRollupState); 0: read before every report. @default ROLLUP_STATE_TTL_MS (1 s)
   */
  readonly rollupStateTtlMs?: number;
}

/** The production engine: one `_search` per report, the response read back into an AggResult tree. */
export class OpenSearchEngine implements ReportEngine {
  private readonly options: CompileOptions;
  readonly maxBuckets: number;
  private readonly rollups: boolean;
  private readonly grainMs: number;
  private readonly stateTtlMs: number;

  constructor(
    private readonly client: Client,
    options: OpenSearchEngineOptions = {},
  ) {
    this.options = {
      indexPrefix: options.indexPrefix ?? '',
      limits: options.limits ?? DEFAULT_LIMITS,
      ...(options.requestCache === undefined ? {} : { requestCache: options.requestCache }),
    };
    this.maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    this.rollups = options.rollups ?? false;
    this.grainMs = options.rollupGrainMs ?? ROLLUP_GRAIN_MS;
    this.stateTtlMs = options.rollupStateTtlMs ?? ROLLUP_STATE_TTL_MS;
  }

  async run(plan: ReportPlan, scope: Scope, options: RunOptions = {}): Promise<EngineResult> {
    const { deadline } = options;
    deadline?.throwIfExpired();
    if (!this.rollups) return (await this.answer(plan, scope, deadline, this.options)) as EngineResult;
    let rawReason: string;
    const rollup = await this.rollupRead(plan);
    if (typeof rollup === 'string') rawReason = rollup;
    else {
      const answer = await this.answer(plan, scope, deadline, { ...this.options, rollup });
      // undefined: a stats sum over values that are not exact integers, which only the documents give.
      if (answer) return { ...answer, source: 'rollup', rollupWindow: { from: rollup.from, to: rollup.to } };
      rawReason = ENGINE_RAW_REASONS.inexactSum;
    }
    // Which path answered is said only when rollups could have: as the DuckDB engine does, so both
    // engines' answers (Server-Timing included) stay the same bytes with rollups off.
    return { ...((await this.answer(plan, scope, deadline, this.options)) as EngineResult), source: 'raw', rawReason };
  }

  /**
   * The rollup rows a report may read (shared/rollups/read.ts), or why it reads raw, once the
   * collection's rollups are ready. The watermark is read once per refresh (cachedRollupState: at most
   * once a second, and afresh after a mark or a rebuild in this process), not before every report, so
   * that a rollup report is one search; a grain dirtied after it was read is read from its rows as
   * they were, as a raw search does not see a write before its refresh (docs/rollups.md, "On OpenSearch").
   */
  private async rollupRead(plan: ReportPlan): Promise<RollupRead | string> {
    // A coarser level is accepted only where the grain is: no state to read when the grain is not.
    const finest = matchRollup(plan, this.grainMs);
    if (finest.use === 'raw') return finest.reason;
    const state = await cachedRollupState(this.client, this.options.indexPrefix, plan.source, this.stateTtlMs).catch(
      (e: unknown) => {
        throw mapOpenSearchError(e);
      },
    );
    if (!state.ready) return ENGINE_RAW_REASONS.notReady(plan.source);
    return chooseRollup(plan, this.grainMs, state.watermark);
  }

  /** One report's search; undefined when rollup rows were read and a stats sum they add is not exact. */
  private async answer(
    plan: ReportPlan,
    scope: Scope,
    deadline: Deadline | undefined,
    options: CompileOptions,
  ): Promise<EngineResult | undefined> {
    const first = plan.pipeline[0];
    // What must exceed the limit whatever the data is refused before the cluster collects anything.
    const keys = first?.kind === 'dateHistogram' ? await this.histogramKeys(plan, scope, first, deadline, options) : [];
    refuseBeyondBucketFloor(plan.pipeline, keys.length, this.maxBuckets);
    const remaining = deadline?.remainingMs();
    const body = await this.search(
      compileSearch(plan, scope, {
        ...options,
        ...(remaining === undefined ? {} : { timeoutMs: nodeTimeout(remaining) }),
      }),
      deadline,
    );
    // No index of the collection exists yet: answer as OpenSearch does once one exists.
    if (!body) return { root: emptyResult(plan.pipeline, 0, this.maxBuckets), truncated: false };
    const reader = new ResultReader(plan.pipeline, options.rollup !== undefined);
    const root = reader.read(0, body);
    return reader.exact ? { root, truncated: reader.truncated } : undefined;
  }

  /**
   * The histogram's bucket keys for the bucket floor. A side left open spans to the documents, so
   * their first and last timestamp are asked first (a min and a max, cheap next to the report):
   * without them a fine histogram over months of documents, with `filters` below it, is collected in
   * full on every shard before the node counts its buckets at the final reduce, and reaches the
   * deadline instead of the 422 it is. A histogram alone is left to the node, which refuses it as
   * cheaply as this would.
   */
  private async histogramKeys(
    plan: ReportPlan,
    scope: Scope,
    node: DateHistogramAggNode,
    deadline: Deadline | undefined,
    options: CompileOptions,
  ): Promise<number[]> {
    const from = node.bounds?.from;
    const to = node.bounds?.to;
    if (from !== undefined && to !== undefined) return boundedHistogramKeys(node, this.maxBuckets);
    if (plan.pipeline.length === 1) return [];
    const extent = (await this.search(compileTimeExtent(plan, scope, options), deadline))?.extent as
      | { min?: number | null; max?: number | null }
      | undefined;
    const first = from ?? extent?.min;
    const last = to === undefined ? extent?.max : to - 1;
    if (first === undefined || first === null || last === undefined || last === null) return [];
    return histogramKeysOver(node, first, last, this.maxBuckets);
  }

  /** The aggregations of one `_search`, aborted at the deadline (ReportTimeoutError). */
  private async search(request: API.Search_Request, deadline: Deadline | undefined): Promise<RawAggs | undefined> {
    const remaining = deadline?.remainingMs();
    const pending = this.client.search(
      request,
      remaining === undefined ? {} : { requestTimeout: remaining + ABORT_GRACE_MS, maxRetries: 0 },
    );
    // opensearch-js aborts through the promise it returns (TransportRequestPromise.abort); closing the
    // connection also cancels the search task on the node (rest request cancellation). The listener
    // returns nothing: Node rethrows the rejection of a thenable an event listener returns, and
    // abort() returns the (now rejecting) request.
    const forget = deadline ? onAbort(deadline.signal, () => void pending.abort()) : undefined;
    try {
      const response = await pending;
      assertEveryShard(response.body);
      // Partial results are refused, so a timeout should fail the search; should a node answer timed_out anyway, it is
      // no answer.
      if ((response.body as { timed_out?: boolean }).timed_out) {
        throw (
          deadline?.error() ??
          new EngineUnavailableError('The search engine did not answer in time; try again shortly.')
        );
      }
      return (response.body as { aggregations?: RawAggs }).aggregations;
    } catch (e) {
      const mapped = mapOpenSearchError(e, 'report');
      if (deadline && mapped.slug !== 'too-many-buckets' && (deadline.expired || isSearchTimeout(e)))
        throw deadline.error(e);
      throw mapped;
    } finally {
      forget?.();
    }
  }
}

/** How long the aborted request may take to come back after the deadline before the client gives up too. */
const ABORT_GRACE_MS = 1_000;

/**
 * The node's own `timeout`: a little before the deadline, so that the node reports its timeout
 * (and stops) before the request is aborted; the abort stays the backstop for the parts the search
 * timeout does not cover (the reduce on the coordinating node, a queue).
 */
const nodeTimeout = (remainingMs: number): number => Math.max(1, Math.floor(remainingMs * 0.9));

type RawAggs = Record<string, unknown>;
interface RawBucket extends RawAggs {
  key: number | string;
  doc_count: number;
}

/** Walks the raw response along the plan; with rollup rows read too (`rollup`), their counts and measures. */
class ResultReader {
  truncated = false;
  /** Every stats sum read added exact integers (./rollup-read.ts): else the report is read raw. */
  exact = true;

  constructor(
    private readonly pipeline: readonly AggNode[],
    private readonly rollup = false,
  ) {}

  read(i: number, parent: RawAggs): AggResult {
    const node = this.pipeline[i] as AggNode;
    const raw = (parent[stageName(i)] ?? {}) as RawAggs & { doc_count?: number };
    const sub = (bucket: RawAggs): AggResult | undefined =>
      i + 1 < this.pipeline.length ? this.read(i + 1, bucket) : undefined;
    // A bucket at or below a nested stage counts the items rollup rows stand for (ITEMS), a root bucket `_doc_count`
    // did.
    const count = (b: RawAggs & { doc_count?: number }): number =>
      (this.rollup ? (b[ITEMS] as { value?: number } | undefined)?.value : undefined) ?? b.doc_count ?? 0;
    switch (node.kind) {
      case 'dateHistogram': {
        const buckets = (raw.buckets ?? []) as RawBucket[];
        return { kind: 'histogram', buckets: buckets.map((b) => bucket(Number(b.key), count(b), sub(b))) };
      }
      case 'terms': {
        if (((raw.sum_other_doc_count as number | undefined) ?? 0) > 0) this.truncated = true;
        const buckets = (raw.buckets ?? []) as RawBucket[];
        return { kind: 'terms', buckets: buckets.map((b) => bucket(String(b.key), count(b), sub(b))) };
      }
      case 'filters': {
        const buckets = (raw.buckets ?? {}) as Record<string, RawBucket>;
        return {
          kind: 'filters',
          buckets: node.buckets.map(({ name }) => {
            const b = buckets[name] ?? { key: name, doc_count: 0 };
            return bucket(name, count(b), sub(b));
          }),
        };
      }
      case 'stats': {
        if (this.rollup) {
          const { stats, exact } = readRollupStats(parent, stageName(i));
          this.exact &&= exact;
          return stats;
        }
        const s = raw as { count?: number; min?: number | null; max?: number | null; sum?: number };
        const n = s.count ?? 0;
        const stats = {
          kind: 'stats',
          count: n,
          min: n > 0 ? (s.min ?? null) : null,
          max: n > 0 ? (s.max ?? null) : null,
          sum: s.sum ?? 0,
        } as const;
        if (!node.percentiles) return stats;
        // `keyed: false`: one {key, value} per percent, in ascending order (not the order asked); value null (NaN) over
        // no values.
        const values =
          (parent[percentilesName(i)] as { values?: { key?: number; value?: number | string | null }[] } | undefined)
            ?.values ?? [];
        const percentileValue = (percent: number) =>
          n > 0 ? toNumber(values.find((v) => Number(v.key) === percent)?.value) : null;
        return { ...stats, percentiles: node.percentiles.map((p) => percentileValue(p.percent)) };
      }
      case 'nested':
        if (node.itemFilters.length > 0) {
          const items = (raw[itemFilterName(i)] ?? {}) as RawAggs & { doc_count?: number };
          return single(items.doc_count ?? 0, sub(items));
        }
        return single(count(raw), sub(raw));
      case 'filter':
      case 'reverseNested':
        return single(count(raw), sub(raw));
    }
  }
}

function bucket<K>(key: K, count: number, sub: AggResult | undefined) {
  return sub ? { key, count, sub } : { key, count };
}

/** A percentile's value: a number, or null where OpenSearch has none (null, or "NaN" as text). */
function toNumber(value: number | string | null | undefined): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

function single(count: number, sub: AggResult | undefined): AggResult {
  return sub ? { kind: 'single', count, sub } : { kind: 'single', count };
}
