import type { PercentileStat } from '../../../../report/plan/plan';
import type { ResultColumnsSql } from '../result-row';
import type { SqlParams } from './sql-params';

/**
 * The `pct` part of a stats stage with percentiles (result-row.ts): over the rows of `rel`, grouped by
 * the key columns `keys` across shards, the count of the values `x` and, per percentile, the two
 * sorted values x_i, x_{i+1} at the position ../../../../report/percentiles/hazen.ts computes (`percentilePosition`:
 * the same double arithmetic, so the same i), from which the engine computes OpenSearch's answer.
 * The values of a bucket are held in one list, as any exact quantile holds them: DuckDB's memory
 * limit bounds it (a report past it answers 503).
 */
export function percentilePart(
  percentiles: readonly PercentileStat[],
  x: string,
  rel: string,
  keys: readonly string[],
  params: SqlParams,
): { row: Omit<ResultColumnsSql, 'lvl'>; from: string } {
  const groupBy = keys.length > 0 ? ` GROUP BY ${keys.join(', ')}` : '';
  const values = `(SELECT ${[...keys, `count(${x}) AS n`, `list(${x}::DOUBLE ORDER BY ${x}) FILTER (WHERE ${x} IS NOT NULL) AS l`].join(', ')} FROM ${rel}${groupBy})`;
  const positions = percentiles.map(
    (p, k) =>
      `greatest(least(floor(${params.add(p.percent / 100, 'DOUBLE')} * n::DOUBLE - 1.5::DOUBLE)::BIGINT + 1, n - 2), 0) AS _p${k}`,
  );
  const pv = `[${percentiles.map((_, k) => `l[_p${k} + 1], l[_p${k} + 2]`).join(', ')}]`;
  return {
    row: { what: "'pct'", keys, n: 'n', shard: 'NULL', pv },
    from: `(SELECT *, ${positions.join(', ')} FROM ${values})`,
  };
}
