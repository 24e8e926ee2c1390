import { PROFILE_KEYS, type Profile } from '../../../../report/plan/plan';
import type { OffsetPeriod } from '../../../../time/zone-offsets';
import type { SqlParams } from './sql-params';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Day 0 (1970-01-01) was a Thursday: 3 days after a Monday. */
const EPOCH_WEEKDAY = 3;

/**
 * SQL for the key of a profile stage (`00:00`..`23:00` or `monday`..`sunday`) of a BIGINT epoch-ms column:
 * the local time is the column plus the UTC offset of its period (a balanced CASE on the period
 * starts, as histogram-sql.ts does), then plain integer arithmetic. No time zone function, for the
 * reasons histogram-sql.ts gives; the periods come from ZoneOffsets over the report's time range, so
 * a DST day has 23 or 25 local hours exactly as OpenSearch's java.time sees them.
 */
export function profileKeySql(
  profile: Profile,
  periods: readonly OffsetPeriod[],
  column: string,
  params: SqlParams,
): string {
  if (periods.length === 0) throw new Error('a profile needs at least one offset period');
  const tree = (lo: number, hi: number): string => {
    if (hi - lo === 1) return params.ms((periods[lo] as OffsetPeriod).offset);
    const mid = (lo + hi) >> 1;
    return `CASE WHEN ${column} < ${params.ms((periods[mid] as OffsetPeriod).start)} THEN ${tree(lo, mid)} ELSE ${tree(mid, hi)} END`;
  };
  const local = `(${column} + ${tree(0, periods.length)})`;
  const day = params.ms(DAY);
  // floor modulo, also before 1970 (% keeps the sign of the dividend)
  const sinceMidnight = `((${local} % ${day}) + ${day}) % ${day}`;
  const keys = `[${PROFILE_KEYS[profile.unit].map((k) => `'${k}'`).join(', ')}]`;
  if (profile.unit === 'hour') return `${keys}[${sinceMidnight} // ${params.ms(HOUR)} + 1]`;
  const days = `((${local} - ${sinceMidnight}) // ${day})`;
  return `${keys}[((${days} + ${EPOCH_WEEKDAY}) % 7 + 7) % 7 + 1]`;
}
