import type { Client } from '@opensearch-project/opensearch';
import { EVERY_INDEX } from '../layout/indices';

/** One non-empty bucket of document times: its start (epoch-aligned) and how many documents it holds. */
export interface TimeBucket {
  readonly start: number;
  readonly docs: number;
}

/**
 * How the rollup job asks for aggregations over the raw indices: as a report does (EVERY_INDEX), a
 * month without an index is no error, and a closed month or a shard that is not there fails the
 * search: a page without them would be wrong rows, and their grains' marks cleared for good.
 */
export const AGGREGATIONS_ONLY = EVERY_INDEX;
export const NO_HITS = { size: 0, track_total_hits: false } as const;

/**
 * The non-empty `intervalMs` buckets of the `timestamp` of the documents of `index` matching
 * `query`, earliest first, a page at a time: one composite of the times alone, which reads the keys
 * and nothing else (what the dirty grains of a deletion and the slices of a rebuild are made of).
 */
export async function* timeBuckets(
  client: Client,
  index: string,
  query: object,
  intervalMs: number,
): AsyncGenerator<TimeBucket[]> {
  let after: Record<string, unknown> | undefined;
  for (;;) {
    const { body } = await client.search({
      index,
      ...AGGREGATIONS_ONLY,
      body: {
        ...NO_HITS,
        query,
        aggs: {
          times: {
            composite: {
              size: 1000,
              sources: [{ t: { date_histogram: { field: 'timestamp', fixed_interval: `${intervalMs}ms` } } }],
              ...(after ? { after } : {}),
            },
            // A sub-aggregation keeps OpenSearch 2.19 from its filter-rewrite shortcut for a lone date
            // source, which fails on some segments (ArrayIndexOutOfBoundsException in filterrewrite.Ranges).
            aggs: { last: { max: { field: 'timestamp' } } },
          },
        },
      } as never,
    });
    const times = (
      body as {
        aggregations?: {
          times: { buckets: { key: { t: number }; doc_count: number }[]; after_key?: Record<string, unknown> };
        };
      }
    ).aggregations?.times;
    const page = (times?.buckets ?? []).map((b) => ({ start: b.key.t, docs: b.doc_count }));
    if (page.length > 0) yield page;
    if (!times?.after_key || page.length === 0) return;
    after = times.after_key;
  }
}
