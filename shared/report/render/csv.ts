import { stringify, type Options } from 'csv-stringify/sync';
import { Pacer } from '../pace';
import type { HistogramModel, ReportModel } from '../shape/model';

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
export const CSV_OPTIONS: Options = { record_delimiter: 'windows', quote_record_delimiter: true, escape_formulas: true };

/**
 * RFC 4180 CSV (CRLF, header row). Histogram: `timestamp` then one column per series in tree order,
 * an absent count written 0 and an absent stat left empty. Object shape: one header row, one row.
 * Histogram rows are written in chunks, in the pacer's turns (every record ends in CRLF, so the
 * chunks' texts simply follow one another).
 */
export async function renderCsv(model: ReportModel, pacer = new Pacer()): Promise<string> {
  if (model.kind === 'object') return renderCsvObject(model.entries);
  const columns = seriesColumns(model);
  const rows = await pacer.chunks(model.rows, (chunk) =>
    stringify(
      chunk.map((r) => [new Date(r.timestamp).toISOString(), ...columns.map((c) => r.values.get(c.name) ?? (c.isStat ? '' : 0))]),
      CSV_OPTIONS,
    ),
  );
  return headerOf(columns) + rows.join('');
}

/** The size of a CSV body: its bytes, and its bytes as the JSON string a plain Lambda response carries. */
export interface CsvSize {
  readonly bytes: number;
  readonly jsonStringBytes: number;
}

/**
 * What renderCsv(model) would take, counted without writing it: a report too large as JSON says how
 * large its CSV would be, and writing it only to measure it cost as much again (memory included).
 * Exact: every cell but the header's is a number or an ISO timestamp (no quotes, no escapes); as a
 * JSON string, each CRLF takes two bytes more (`\r\n`).
 */
export function csvSize(model: ReportModel): CsvSize {
  if (model.kind === 'object') {
    const text = renderCsvObject(model.entries);
    return { bytes: Buffer.byteLength(text), jsonStringBytes: Buffer.byteLength(JSON.stringify(text)) };
  }
  const columns = seriesColumns(model);
  const header = headerOf(columns);
  let bytes = Buffer.byteLength(header);
  for (const r of model.rows) {
    bytes += new Date(r.timestamp).toISOString().length + 2;
    for (const c of columns) {
      const value = r.values.get(c.name);
      bytes += 1 + (value === undefined ? (c.isStat ? 0 : 1) : String(value).length);
    }
  }
  return { bytes, jsonStringBytes: bytes + Buffer.byteLength(JSON.stringify(header)) - Buffer.byteLength(header) + 2 * model.rows.length };
}

const renderCsvObject = (entries: readonly (readonly [string, number])[]): string =>
  stringify([entries.map(([name]) => name), entries.map(([, value]) => value)], CSV_OPTIONS);

const seriesColumns = (model: HistogramModel) => model.columns.filter((c) => c.name !== 'timestamp');

const headerOf = (columns: HistogramModel['columns']): string => stringify([['timestamp', ...columns.map((c) => c.name)]], CSV_OPTIONS);
