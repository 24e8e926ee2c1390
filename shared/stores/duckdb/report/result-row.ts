/**
 * The rows the report statement returns, as one UNION ALL: `(what, lvl, k0.., n, mn, mx, sm, shard)`,
 * all per shard. Both sides of the format live here: the compilers write each part's SELECT list
 * with {@link resultColumns}, and the engine reads each row back with {@link toResultRow}.
 *
 * - `n`: the bucket count of stage `lvl` per key tuple (OpenSearch's doc_count);
 * - `x`: a terms key a shard returns although it is beyond the cap overall (it shapes the merge order);
 * - `stats`: a stats result (`n` the count, `mn`, `mx`, `sm` the min, max and Kahan sum);
 * - `cut`: how many terms keys beyond the cap were left out (all shards; `shard` NULL);
 * - `pct`: a stats stage's percentiles, over all shards at once (a percentile is no sum of shard
 *   values): `n` the values, `pv` per percentile the two sorted values it lies between. Only a plan
 *   with percentiles has the column `pv` (so the other statements stay as they were).
 */
export type ResultRowKind = 'n' | 'x' | 'stats' | 'cut' | 'pct';

/** One row of the report statement's result, as read.ts reduces it. */
export interface ResultRow {
  readonly what: ResultRowKind;
  readonly lvl: number;
  /** Keys of the stages so far, as text (histogram keys are epoch ms, filters keys bucket indexes). */
  readonly keys: readonly string[];
  readonly n: number;
  readonly mn: number | null;
  readonly mx: number | null;
  readonly sm: number | null;
  /** The shard (YYYYMM: the monthly index) the row counts; 0 for `cut` and `pct` rows. */
  readonly shard: number;
  /** `pct` rows: x_i, x_{i+1} per percentile (../../../report/percentiles/hazen.ts), NULL past the values. */
  readonly pv?: readonly (number | null)[];
}

/** The SQL of each column of one part, by name (`keys`: the key columns so far, padded by {@link resultColumns}). */
export interface ResultColumnsSql {
  readonly what: string;
  readonly lvl: number;
  readonly keys: readonly string[];
  readonly n: string;
  /** @default NULL for all three */
  readonly stats?: { readonly mn: string; readonly mx: string; readonly sm: string };
  readonly shard: string;
  /** The `pv` list of a `pct` part. @default NULL */
  readonly pv?: string;
}

const NO_STATS = { mn: 'NULL::DOUBLE', mx: 'NULL::DOUBLE', sm: 'NULL::DOUBLE' } as const;

/** `sql AS name`, or just the name where the column is already called so. */
const as = (sql: string, name: string): string => (sql === name ? name : `${sql} AS ${name}`);

/**
 * The SELECT list of one part of the statement. Every part has `keyColumns` key columns (the
 * stages that add a key), as VARCHAR, the missing ones NULL, so that the parts line up.
 */
export function resultColumns(row: ResultColumnsSql, keyColumns: number, withPercentiles = false): string {
  const { mn, mx, sm } = row.stats ?? NO_STATS;
  const pv = withPercentiles ? [as(row.pv ?? 'NULL::DOUBLE[]', 'pv')] : [];
  return [
    as(row.what, 'what'),
    as(String(row.lvl), 'lvl'),
    keyList(row.keys, keyColumns),
    as(row.n, 'n'),
    as(mn, 'mn'),
    as(mx, 'mx'),
    as(sm, 'sm'),
    as(row.shard, 'shard'),
    ...pv,
  ].join(', ');
}

function keyList(keys: readonly string[], keyColumns: number): string {
  const cols = Array.from({ length: keyColumns }, (_, j) =>
    as(j < keys.length ? `CAST(${keys[j]} AS VARCHAR)` : 'NULL::VARCHAR', `k${j}`),
  );
  return cols.length > 0 ? cols.join(', ') : 'NULL::VARCHAR AS k';
}

/** `[what, lvl, k0.., n, mn, mx, sm, shard]` (and `pv` where `withPercentiles`) → ResultRow. */
export function toResultRow(row: readonly unknown[], withPercentiles = false): ResultRow {
  const [what, lvl] = row as [ResultRowKind, number];
  const end = withPercentiles ? -1 : row.length;
  const [n, mn, mx, sm, shard] = row.slice(end - 5, end);
  const pv = withPercentiles ? (row.at(-1) as unknown[] | null) : null;
  return {
    what,
    lvl: Number(lvl),
    keys: (row.slice(2, end - 5) as (string | null)[]).filter((k): k is string => k !== null),
    shard: numberOrNull(shard) ?? 0,
    n: Number(n),
    mn: numberOrNull(mn),
    mx: numberOrNull(mx),
    sm: numberOrNull(sm),
    ...(pv ? { pv: pv.map(numberOrNull) } : {}),
  };
}

/** Whether a plan's statement has the `pv` column: some stats stage asks for percentiles. */
export const hasPercentiles = (
  pipeline: readonly { readonly kind: string; readonly percentiles?: readonly unknown[] }[],
): boolean => pipeline.some((n) => n.kind === 'stats' && (n.percentiles?.length ?? 0) > 0);

const numberOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
