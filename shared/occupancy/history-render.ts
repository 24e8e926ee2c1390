import { stringify } from 'csv-stringify/sync';
import { CSV_OPTIONS, LOCAL_TIME } from '../report/render/csv';
import { isoInZone } from '../time/local-time';
import type { OccupancyHistory } from './history-model';

/** The media types the history answers, as the report endpoint (JSON by default). */
export const HISTORY_MEDIA_TYPES = ['application/json', 'text/csv'] as const;
export type HistoryMediaType = (typeof HISTORY_MEDIA_TYPES)[number];

/** The CSV columns, one row per sensor group and bucket (group by id, then time). */
export const HISTORY_CSV_COLUMNS = [
  'sensorGroupId',
  'sensorGroupName',
  'timestamp',
  LOCAL_TIME,
  'occupancy',
  'peak',
  'capacity',
  'utilization',
  'peakUtilization',
] as const;

/**
 * JSON as the model is; CSV (RFC 4180, CRLF, the report's csv-stringify options: a group name that
 * starts like a formula is escaped) in long form, since group names are data and may repeat; a
 * closed bucket has empty `occupancy` and `peak`, a bucket without a capacity empty `capacity`,
 * `utilization` and `peakUtilization`. Each bucket's start is written twice: `timestamp`
 * in UTC, as in JSON, and `localTime` on the location's wall clock with its offset, so that a
 * spreadsheet shows a local day on its own date.
 */
export function renderHistory(history: OccupancyHistory, mediaType: HistoryMediaType): string {
  if (mediaType === 'application/json') return JSON.stringify(history);
  const rows = (history.insights.occupancy ?? []).flatMap((g) =>
    g.buckets.map((b) => [
      g.sensorGroup.id,
      g.sensorGroup.name,
      b.timestamp,
      isoInZone(Date.parse(b.timestamp), history.timeZone),
      b.occupancy ?? '',
      b.peak ?? '',
      b.capacity ?? '',
      b.utilization ?? '',
      b.peakUtilization ?? '',
    ]),
  );
  return stringify([[...HISTORY_CSV_COLUMNS], ...rows], CSV_OPTIONS);
}
