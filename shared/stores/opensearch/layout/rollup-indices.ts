import { createHash } from 'node:crypto';
import {
  CATALOG,
  COLLECTIONS,
  nestedPathsOf,
  type Collection,
  type FieldDef,
  type NestedPath,
} from '../../../documents/fields';
import { isDimension, ROLLUP_GRAIN_MS, rollupLevels } from '../../../rollups/match';
import { INDEX_BASE, SLOW_LOG_SETTINGS, type IndexSettings } from './indices';

/**
 * The rollup indices of the OpenSearch engine (docs/rollups.md, "On OpenSearch"). One index per
 * collection, `<prefix>rollup-<collection base>` (never matched by the monthly pattern
 * `<prefix><base>-*`, so raw reports never read a rollup row), and one index of bookkeeping,
 * `<prefix>rollup-dirty`: the grains a write touched and each collection's readiness.
 *
 * A rollup document stands for the raw documents of one grain and one tuple of root dimensions: its
 * `_doc_count` is their number (OpenSearch counts a document with `_doc_count: n` as n in every
 * bucket aggregation, so root stages count it as the documents it stands for), and its nested items
 * are the groups of their items by the item dimensions, each with `_n` items (`_doc_count` cannot be
 * set on nested objects; item stages sum `_n`, missing 1 for raw items).
 */
export const rollupIndexName = (prefix: string, c: Collection, level: number = ROLLUP_GRAIN_MS): string =>
  `${prefix}rollup-${INDEX_BASE[c]}${levelSuffix(level)}`;

/**
 * The rollup indices of a collection, one per level (rollupLevels: 15 minutes, hours, UTC days), the
 * finest first: `rollup-movement-events`, `…-1h`, `…-1d`. A report reads the coarsest level the
 * matcher accepts, so that a 30-day daily report reads 30 rows per series, not 2,880.
 */
export const rollupIndexNames = (prefix: string, c: Collection): string[] =>
  rollupLevels().map((level) => rollupIndexName(prefix, c, level));

const levelSuffix = (level: number): string =>
  level === ROLLUP_GRAIN_MS
    ? ''
    : level % 86_400_000 === 0
      ? `-${level / 86_400_000}d`
      : level % 3_600_000 === 0
        ? `-${level / 3_600_000}h`
        : `-${level / 60_000}m`;

/** The bookkeeping index: dirty grains (`<collection>:<grain>`) and readiness (`ready:<collection>`). */
export const dirtyIndexName = (prefix: string): string => `${prefix}rollup-dirty`;

/** Items per group in a rollup document's nested item. */
export const ITEM_COUNT = '_n';

/** Which rebuild wrote a row: rows of a rebuilt range that another rebuild wrote are stale (rebuild.ts). */
export const BUILT = '_built';

/** The measures of a number field (count, min, max, sum; values that are not exact integers; sum of magnitudes). */
export const MEASURES = ['n', 'min', 'max', 'sum', 'odd', 'abs'] as const;
export type Measure = (typeof MEASURES)[number];

/** A measure's field, as docs/rollups.md names them: `occupied__sum`, `polygons.value__n`. */
export const measureField = (f: FieldDef, m: Measure): string => `${f.name}__${m}`;

/** The dimensions of a collection's root (organizationId first) or of its items of `path`. */
export function dimensionsOf(c: Collection, path?: NestedPath): string[] {
  const keywords = [...CATALOG[c].values()].filter((f) => f.nestedPath === path && isDimension(f)).map((f) => f.name);
  return path ? keywords : ['organizationId', ...keywords];
}

/** The number fields of a collection's root or of its items of `path`. */
export const numbersOf = (c: Collection, path?: NestedPath): FieldDef[] =>
  [...CATALOG[c].values()].filter((f) => f.nestedPath === path && f.kind === 'number');

type Mapping = Record<string, unknown>;

const leaf = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

function measureMappings(fields: readonly FieldDef[]): Record<string, Mapping> {
  const out: Record<string, Mapping> = {};
  for (const f of fields) {
    // The raw field too, never set: the raw tail's exactness script reads `doc[f]` on rollup rows as well.
    out[leaf(f.name)] = { type: 'double' };
    for (const m of MEASURES) out[leaf(measureField(f, m))] = { type: m === 'n' || m === 'odd' ? 'long' : 'double' };
  }
  return out;
}

/** Mappings of a collection's rollup index: strict, dimensions as keywords, items nested. */
export function rollupMappings(c: Collection): Mapping {
  const properties: Record<string, Mapping> = {
    timestamp: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
    [BUILT]: { type: 'keyword' },
    ...Object.fromEntries(dimensionsOf(c).map((d) => [d, { type: 'keyword' }])),
    ...measureMappings(numbersOf(c)),
  };
  for (const path of nestedPathsOf(c)) {
    properties[path] = {
      type: 'nested',
      dynamic: 'strict',
      properties: {
        [ITEM_COUNT]: { type: 'long' },
        ...Object.fromEntries(dimensionsOf(c, path).map((d) => [leaf(d), { type: 'keyword' }])),
        ...measureMappings(numbersOf(c, path)),
      },
    };
  }
  return { dynamic: 'strict', properties };
}

const DIRTY_MAPPINGS: Mapping = {
  dynamic: 'strict',
  properties: { kind: { type: 'keyword' }, collection: { type: 'keyword' }, grain: { type: 'long' } },
};

/** The index templates of the rollup indices and of the bookkeeping index (created on first write). */
export function rollupIndexTemplates(
  prefix: string,
  settings: IndexSettings,
): { name: string; body: Record<string, unknown> }[] {
  const indexSettings = { number_of_shards: settings.shards ?? 1, number_of_replicas: settings.replicas };
  const template = (name: string, mappings: Mapping, extra: Record<string, string> = {}) => ({
    name,
    body: { index_patterns: [name], priority: 100, template: { settings: { ...indexSettings, ...extra }, mappings } },
  });
  return [
    ...COLLECTIONS.flatMap((c) =>
      rollupIndexNames(prefix, c).map((name) => template(name, rollupMappings(c), SLOW_LOG_SETTINGS)),
    ),
    template(dirtyIndexName(prefix), DIRTY_MAPPINGS),
  ];
}

/**
 * The `_id` of the rollup row of one grain and tuple of root dimensions (undefined: absent), so that
 * rebuilding a grain overwrites its rows, never adds to them.
 */
export function rollupRowId(grain: number, dimensions: readonly (string | null | undefined)[]): string {
  return createHash('sha256')
    .update(JSON.stringify([grain, ...dimensions.map((d) => d ?? null)]))
    .digest('base64url');
}
