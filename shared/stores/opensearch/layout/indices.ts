import type { API } from '@opensearch-project/opensearch';
import { CATALOG, COLLECTIONS, type Collection, type FieldDef } from '../../../documents/fields';
import { formatMonth, monthOf } from '../../../documents/retention';

/**
 * Index design as code. Each collection lives in monthly indices (`<prefix>movement-events-2024.05`)
 * created from one index template per collection and queried by pattern, so old months can be
 * dropped or moved to cheaper storage without touching queries. Mappings come from the field catalog.
 */
export const INDEX_BASE: Readonly<Record<Collection, string>> = {
  movementEvents: 'movement-events',
  parkingLotStats: 'parking-lot-stats',
  parkingEvents: 'parking-events',
};

export const indexPattern = (prefix: string, c: Collection): string => `${prefix}${INDEX_BASE[c]}-*`;

/**
 * How every search that reads a collection's documents names its indices (reports, their time
 * extent, the rollups' rebuild): the pattern's closed indices too, and none of them ignored, so that
 * a closed month fails the search (`index_closed_exception`) instead of silently leaving its
 * documents out, as the default (`expand_wildcards: open`) does; an index named besides the pattern
 * (a rollup level) must exist. A month with no index at all has no documents (`allow_no_indices`).
 * A shard with no active copy (a red index, a node that died or is recovering) fails the search
 * before it starts ("Search rejected due to missing shards", HTTP 503) instead of answering from the
 * others, as `allow_partial_search_results: true` (the cluster's default) does, even with
 * `_shards.failed` 0. See docs/errors-and-decisions.md, "A report never answers with part of its data".
 */
export const EVERY_INDEX: Pick<
  API.Search_Request,
  'expand_wildcards' | 'ignore_unavailable' | 'allow_no_indices' | 'allow_partial_search_results'
> = {
  expand_wildcards: ['open', 'closed'],
  ignore_unavailable: false,
  allow_no_indices: true,
  allow_partial_search_results: false,
};

/** The monthly index a document with this timestamp (epoch ms) is written to. */
export function indexNameFor(prefix: string, c: Collection, timestampMs: number): string {
  return `${prefix}${INDEX_BASE[c]}-${formatMonth(monthOf(timestampMs))}`;
}

/**
 * The month (YYYYMM) of a monthly index of the collection, read from its name; undefined for a name
 * that is not one (another collection's, a longer base such as `movement-events-old-2024.05`).
 */
export function monthOfIndex(prefix: string, c: Collection, name: string): number | undefined {
  const head = `${prefix}${INDEX_BASE[c]}-`;
  if (!name.startsWith(head)) return undefined;
  const match = /^(\d{4})\.(0[1-9]|1[0-2])$/.exec(name.slice(head.length));
  return match ? Number(match[1]) * 100 + Number(match[2]) : undefined;
}

export interface IndexSettings {
  /** @default 1 — one shard per month is plenty below ~50 GB a month (docs/scale.md). */
  readonly shards?: number;
  /** Copies of each shard besides the primary: {@link replicasFor} the cluster's data nodes. */
  readonly replicas: number;
}

/**
 * The one rule for replicas, wherever indices are made (the stack's templates, the seed and the CLIs
 * on a cluster you run, npm start): one replica where the cluster has more than one data node, so
 * that every shard has a copy on another node and a node's death loses nothing and stops nothing;
 * none on a single node, where a replica could never be assigned (the cluster would stay yellow).
 */
export const replicasFor = (dataNodes: number): number => (dataNodes > 1 ? 1 : 0);

type Mapping = Record<string, unknown>;

const leafMapping = (f: FieldDef): Mapping =>
  f.kind === 'keyword'
    ? { type: 'keyword' }
    : f.kind === 'number'
      ? { type: 'double' }
      : { type: 'date', format: 'strict_date_optional_time||epoch_millis' };

/** Mappings of one collection: strict (an unknown field fails the write), nested items as `nested`. */
export function mappingsFor(c: Collection): Mapping {
  const properties: Record<string, Mapping> = { organizationId: { type: 'keyword' } };
  for (const f of CATALOG[c].values()) {
    if (!f.nestedPath) {
      properties[f.name] = leafMapping(f);
      continue;
    }
    const parent = (properties[f.nestedPath] ??= { type: 'nested', dynamic: 'strict', properties: {} }) as {
      properties: Record<string, Mapping>;
    };
    parent.properties[f.name.slice(f.nestedPath.length + 1)] = leafMapping(f);
  }
  return { dynamic: 'strict', properties };
}

/**
 * When a search or a write is slow enough to be logged. A domain's slow logs (enabled by the stack,
 * shipped to CloudWatch) record nothing until an index sets these thresholds: all are -1 (off) by
 * default (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/createdomain-configure-slow-logs.html).
 * A report is answered within 29 s, so a query phase of 2 s is worth a look and 5 s a warning.
 */
export const SLOW_LOG_SETTINGS: Readonly<Record<string, string>> = {
  'index.search.slowlog.threshold.query.warn': '5s',
  'index.search.slowlog.threshold.query.info': '2s',
  'index.search.slowlog.threshold.fetch.warn': '1s',
  'index.indexing.slowlog.threshold.index.warn': '5s',
  'index.indexing.slowlog.threshold.index.info': '2s',
};

/** The monthly indices' templates, one per collection (all of the service's: ./templates.ts). */
export function monthlyIndexTemplates(
  prefix: string,
  settings: IndexSettings,
): { name: string; body: Record<string, unknown> }[] {
  const monthly = COLLECTIONS.map((c) => ({
    name: `${prefix}${INDEX_BASE[c]}`,
    body: {
      index_patterns: [indexPattern(prefix, c)],
      priority: 100,
      template: {
        settings: {
          number_of_shards: settings.shards ?? 1,
          number_of_replicas: settings.replicas,
          ...SLOW_LOG_SETTINGS,
        },
        mappings: mappingsFor(c),
      },
    },
  }));
  return monthly;
}
