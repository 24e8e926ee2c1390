import type { HistogramInterval } from '../../../../report/plan/plan';
import type { KeySegment } from './buckets';
import type { SqlParams } from './sql-params';

const DAY = 86_400_000;
const DATE_TRUNC_PART = { M: 'month', q: 'quarter', y: 'year' } as const;

/**
 * SQL for the bucket key (UTC epoch ms) of a BIGINT epoch-ms column, from the segments of
 * `keySegments`: a balanced tree of CASE on the segment starts (log₂ n comparisons per row), each
 * leaf either a constant key or `trunc(t + offset) - offset`. Plain integer arithmetic, no time zone
 * function: DuckDB's ICU conversions cost ~35× more per row, and the zone rules stay in one place.
 */
export function histogramKeySql(
  interval: HistogramInterval,
  segments: readonly KeySegment[],
  column: string,
  params: SqlParams,
): string {
  if (segments.length === 0) throw new Error('a histogram needs at least one key segment');
  const trunc = truncSql(interval, params);
  const leaf = (s: KeySegment): string => {
    if (s.kind === 'constant') return params.ms(s.key);
    const offset = params.ms(s.offset);
    return `(${trunc(`(${column} + ${offset})`)} - ${offset})`;
  };
  const tree = (lo: number, hi: number): string => {
    if (hi - lo === 1) return leaf(segments[lo] as KeySegment);
    const mid = (lo + hi) >> 1;
    return `CASE WHEN ${column} < ${params.ms((segments[mid] as KeySegment).start)} THEN ${tree(lo, mid)} ELSE ${tree(mid, hi)} END`;
  };
  return tree(0, segments.length);
}

/**
 * Local-time truncation in SQL; `x` is a parenthesized BIGINT expression (local epoch ms). Its
 * parameters are bound on first use: a statement must not bind parameters it does not reference.
 */
function truncSql(interval: HistogramInterval, params: SqlParams): (x: string) => string {
  if (interval.kind === 'fixed' || interval.unit === 'd') {
    const width = interval.kind === 'fixed' ? interval.ms : DAY;
    let m: string | undefined;
    // floor to a multiple of m, also for negative x (% keeps the sign of the dividend)
    return (x) => {
      m ??= params.ms(width);
      return `(${x} - ((${x} % ${m}) + ${m}) % ${m})`;
    };
  }
  if (interval.unit === 'w') {
    let m: string | undefined;
    let monday: string | undefined;
    return (x) => {
      m ??= params.ms(7 * DAY);
      monday ??= params.ms(4 * DAY); // 1970-01-05, the first Monday after the epoch
      return `(${x} - (((${x} - ${monday}) % ${m}) + ${m}) % ${m})`;
    };
  }
  // Calendar arithmetic on a TIMESTAMP without time zone: the local wall clock, no ICU involved.
  const part = DATE_TRUNC_PART[interval.unit];
  return (x) => `epoch_ms(date_trunc('${part}', make_timestamp(${x} * 1000)))`;
}
