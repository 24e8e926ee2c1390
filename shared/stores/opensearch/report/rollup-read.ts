import type { Types } from '@opensearch-project/opensearch';
import type { FieldDef, NestedPath } from '../../../documents/fields';
import type { StatsResult } from '../../store';
import { ITEM_COUNT, measureField } from '../layout/rollup-indices';
import { EXACT_LIMIT, type RollupRead } from '../../../rollups/read';

type Query = Types.Common_QueryDsl.QueryContainer;
type Agg = Types.Common_Aggregations.AggregationContainer;

/**
 * Which documents of the two index sets a report on rollups (CompileOptions.rollup) reads, in one
 * search over both, grouped together before any stage (docs/rollups.md, "On OpenSearch"): the rows
 * of the level's rollup index `index` for the grains in [from, to), raw documents outside it. The
 * report's own filters apply to both (a row's grain lies in the report's range when its grain lies
 * in the window, which lies in the range).
 */
export function rollupSplit(index: string, read: RollupRead): Query {
  const rollupRows: Query = { term: { _index: index } };
  const time = (bounds: { gte?: number; lt?: number }): Query => ({
    range: { timestamp: { ...bounds, format: 'epoch_millis' } },
  });
  return {
    bool: {
      should: [
        { bool: { filter: [rollupRows, time({ gte: read.from, lt: read.to })] } },
        // Outside the window as two ranges, not the window negated (every document has a timestamp):
        // a monthly index wholly inside the window then matches nothing without visiting a document,
        // where a negation walks all of them to exclude each.
        {
          bool: {
            must_not: [rollupRows],
            should: [time({ lt: read.from }), time({ gte: read.to })],
            minimum_should_match: 1,
          },
        },
      ],
      minimum_should_match: 1,
    },
  };
}

/** Name of the item count under a bucket at or below a nested stage. */
export const ITEMS = 'n';

/**
 * The item count of a bucket at or below a nested stage: a rollup item stands for `_n` items, a raw
 * item for one (`missing`, also where the raw indices do not map `_n`).
 */
export const itemCount = (path: NestedPath): Record<string, Agg> => ({
  [ITEMS]: { sum: { field: `${path}.${ITEM_COUNT}`, missing: 1 } },
});

/** Per raw document (or item): a value's magnitude, or 2^53 when it is not an exact integer below 2^53. */
const CHECK_SCRIPT = `if (doc[params.f].size() == 0) { return 0; } double v = doc[params.f].value; return (v != Math.floor(v) || Math.abs(v) >= ${EXACT_LIMIT}.0) ? ${EXACT_LIMIT}.0 : Math.abs(v);`;

const SUFFIXES = ['n', 'min', 'max', 'sum', 'odd', 'abs', 'chk'] as const;
const sibling = (name: string, what: (typeof SUFFIXES)[number]) => `${name}${what}`;

/**
 * A stats stage over raw documents and rollup rows alike: `name` the raw values' stats, siblings the
 * rows' measures, and the exactness of the sum (docs/rollups.md): rollup rows count their values
 * that are not exact integers (`odd`) and sum their magnitudes (`abs`); raw documents do both in one
 * script (`chk`: a value's magnitude, or 2^53 when it is not an exact integer).
 */
export function rollupStatsAggs(name: string, field: FieldDef): Record<string, Agg> {
  // The client's types have no `field` on min/max (they are in OpenSearch's own API).
  return <Record<string, Agg>>(<unknown>{
    [name]: { stats: { field: field.name } },
    [sibling(name, 'n')]: { sum: { field: measureField(field, 'n') } },
    [sibling(name, 'min')]: { min: { field: measureField(field, 'min') } },
    [sibling(name, 'max')]: { max: { field: measureField(field, 'max') } },
    [sibling(name, 'sum')]: { sum: { field: measureField(field, 'sum') } },
    [sibling(name, 'odd')]: { sum: { field: measureField(field, 'odd') } },
    [sibling(name, 'abs')]: { sum: { field: measureField(field, 'abs') } },
    [sibling(name, 'chk')]: { sum: { script: { lang: 'painless', source: CHECK_SCRIPT, params: { f: field.name } } } },
  });
}

type RawAggs = Record<string, unknown>;

/** The stats of raw documents and rollup rows together, and whether their sum is exact (else the report reads raw). */
export function readRollupStats(parent: RawAggs, name: string): { stats: StatsResult; exact: boolean } {
  const raw = (parent[name] ?? {}) as { count?: number; min?: number | null; max?: number | null; sum?: number };
  const value = (what: (typeof SUFFIXES)[number]) =>
    (parent[sibling(name, what)] as { value?: number | null } | undefined)?.value ?? null;
  const count = (raw.count ?? 0) + (value('n') ?? 0);
  const pick = (a: number | null | undefined, b: number | null, f: (x: number, y: number) => number) =>
    a === null || a === undefined || (raw.count ?? 0) === 0 ? b : b === null ? a : f(a, b);
  const stats: StatsResult = {
    kind: 'stats',
    count,
    min: count > 0 ? pick(raw.min, value('min'), Math.min) : null,
    max: count > 0 ? pick(raw.max, value('max'), Math.max) : null,
    sum: (raw.sum ?? 0) + (value('sum') ?? 0),
  };
  const exact = (value('odd') ?? 0) === 0 && (value('abs') ?? 0) + (value('chk') ?? 0) < EXACT_LIMIT;
  return { stats, exact };
}
