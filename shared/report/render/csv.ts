import { stringify } from 'csv-stringify/sync';
import type { ReportModel } from '../shape/model';

/**
 * RFC 4180 CSV (CRLF, header row). Histogram: `timestamp` then one column per series in tree order,
 * an absent count written 0 and an absent stat left empty. Object shape: one header row, one row.
 */
export function renderCsv(model: ReportModel): string {
  if (model.kind === 'object') {
    return stringify([model.entries.map(([name]) => name), model.entries.map(([, value]) => value)], { record_delimiter: 'windows' });
  }
  const columns = model.columns.filter((c) => c.name !== 'timestamp');
  const header = ['timestamp', ...columns.map((c) => c.name)];
  const rows = model.rows.map((r) => [
    new Date(r.timestamp).toISOString(),
    ...columns.map((c) => r.values.get(c.name) ?? (c.isStat ? '' : 0)),
  ]);
  return stringify([header, ...rows], { record_delimiter: 'windows' });
}
