import { stringify, type Options } from 'csv-stringify/sync';
import type { ReportModel } from '../shape/model';

/**
 * csv-stringify's own options for what RFC 4180 and spreadsheets need (never quoting by hand):
 * - `quote_record_delimiter`: quote a cell holding a bare LF or CR too. With `record_delimiter` set,
 *   csv-stringify quotes only cells holding that delimiter (CRLF), and RFC 4180 (2.6) needs quotes
 *   around any line break.
 * - `escape_formulas`: a text cell starting with `=`, `+`, `-`, `@`, TAB or CR (or the full-width
 *   `＝ ＋ － ＠`) gets a leading `'`, as OWASP advises against CSV injection
 *   (https://owasp.org/www-community/attacks/CSV_Injection): names come from the data (terms keys)
 *   and the request (filters bucket names), and a spreadsheet would run them as formulas. Number
 *   cells are numbers, never escaped: a count or stat of -5 stays `-5`.
 */
const CSV_OPTIONS: Options = { record_delimiter: 'windows', quote_record_delimiter: true, escape_formulas: true };

/**
 * RFC 4180 CSV (CRLF, header row). Histogram: `timestamp` then one column per series in tree order,
 * an absent count written 0 and an absent stat left empty. Object shape: one header row, one row.
 */
export function renderCsv(model: ReportModel): string {
  if (model.kind === 'object') {
    return stringify([model.entries.map(([name]) => name), model.entries.map(([, value]) => value)], CSV_OPTIONS);
  }
  const columns = model.columns.filter((c) => c.name !== 'timestamp');
  const header = ['timestamp', ...columns.map((c) => c.name)];
  const rows = model.rows.map((r) => [
    new Date(r.timestamp).toISOString(),
    ...columns.map((c) => r.values.get(c.name) ?? (c.isStat ? '' : 0)),
  ]);
  return stringify([header, ...rows], CSV_OPTIONS);
}
