import { stringify, type Options } from 'csv-stringify/sync';
import { isoInZone } from '../../time/local-time';
import { Pacer } from '../pace';
import type { ReportModel } from '../shape/comparison';
import type { Column, HistogramRow } from '../shape/model';

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
export const CSV_OPTIONS: Options = {
  record_delimiter: 'windows',
  quote_record_delimiter: true,
  escape_formulas: true,
};

/**
 * RFC 4180 CSV (CRLF, header row). Histogram: `timestamp` then one column per series in tree order,
 * an absent count written 0 and an absent stat left empty. With `localTimeZone` (the dateHistogram
 * named a `timeZone`), `localTime` follows `timestamp`: the bucket's start on that zone's wall clock
 * with its offset (`2024-03-01T00:00:00+01:00`), so a spreadsheet shows a Berlin day on its own date.
 * Object shape: one header row, one row. A comparison (`compare`) writes both periods side by side:
 * the report's columns, then the same columns for the earlier period, each named `previous <name>`
 * (`previous timestamp` first for a histogram); a row whose bucket has no partner in the other
 * period leaves that period's cells empty. Rows are written in chunks, in the pacer's turns (every
 * record ends in CRLF, so the chunks' texts simply follow one another).
 */
export async function renderCsv(model: ReportModel, pacer = new Pacer(), localTimeZone?: string): Promise<string> {
  const { header, rows } = tableOf(model, localTimeZone);
  const chunks = await pacer.chunks(rows, (chunk) =>
    stringify(
      chunk.map((r) => r()),
      CSV_OPTIONS,
    ),
  );
  return stringify([header], CSV_OPTIONS) + chunks.join('');
}

/** The size of a CSV body: its bytes, and its bytes as the JSON string a plain Lambda response carries. */
export interface CsvSize {
  readonly bytes: number;
  readonly jsonStringBytes: number;
}

/**
 * What renderCsv(model) would take, counted without writing it: a report too large as JSON says how
 * large its CSV would be, and writing it only to measure it cost as much again (memory included).
 * Exact: every cell but the header's is a number, an ISO timestamp (UTC or local with its offset) or
 * empty (no quotes, no escapes);
 * as a JSON string, each CRLF takes two bytes more (`\r\n`).
 */
export function csvSize(model: ReportModel, localTimeZone?: string): CsvSize {
  const { header, rows } = tableOf(model, localTimeZone);
  const head = stringify([header], CSV_OPTIONS);
  let bytes = Buffer.byteLength(head);
  // a comma after each cell but the last, then CRLF
  for (const row of rows) for (const cell of row()) bytes += String(cell).length + 1;
  bytes += rows.length;
  return {
    bytes,
    jsonStringBytes: bytes + Buffer.byteLength(JSON.stringify(head)) - Buffer.byteLength(head) + 2 * rows.length,
  };
}

type Cell = string | number;

/** The header and the rows of a model (each row made when asked, so that a large answer is never held twice). */
function tableOf(model: ReportModel, localTimeZone?: string): { header: string[]; rows: readonly (() => Cell[])[] } {
  const names = (columns: readonly Column[], prefix = '') => columns.map((c) => prefix + c.name);
  const times = localTimeZone === undefined ? ['timestamp'] : ['timestamp', LOCAL_TIME];
  const bucketCells = (columns: readonly Column[], row: HistogramRow | undefined): Cell[] => {
    if (!row) return [...times.map(() => ''), ...columns.map(() => '')];
    const utc = new Date(row.timestamp).toISOString();
    const start = localTimeZone === undefined ? [utc] : [utc, isoInZone(row.timestamp, localTimeZone)];
    return [...start, ...columns.map((c) => valueCell(c, row.values))];
  };
  switch (model.kind) {
    case 'object':
      return { header: model.entries.map(([name]) => name), rows: [() => model.entries.map(([, value]) => value)] };
    case 'histogram': {
      const columns = seriesColumns(model.columns);
      return { header: [...times, ...names(columns)], rows: model.rows.map((r) => () => bucketCells(columns, r)) };
    }
    case 'histogramComparison': {
      const columns = seriesColumns(model.columns);
      return {
        header: [...times, ...names(columns), ...times.map((t) => PREVIOUS + t), ...names(columns, PREVIOUS)],
        rows: model.rows.map((r) => () => [...bucketCells(columns, r.current), ...bucketCells(columns, r.previous)]),
      };
    }
    case 'objectComparison': {
      const [current, previous] = [new Map(model.current), new Map(model.previous)];
      return {
        header: [...names(model.columns), ...names(model.columns, PREVIOUS)],
        rows: [
          () => [
            ...model.columns.map((c) => valueCell(c, current)),
            ...model.columns.map((c) => valueCell(c, previous)),
          ],
        ],
      };
    }
  }
}

/** A series named `timestamp` has no column of its own: the bucket's start has it (as in JSON). */
const seriesColumns = (columns: readonly Column[]) => columns.filter((c) => c.name !== 'timestamp');

/** What the earlier period's column names start with. */
export const PREVIOUS = 'previous ';

/** The name of the column of a bucket's start on the report's wall clock. */
export const LOCAL_TIME = 'localTime';

const valueCell = (c: Column, values: ReadonlyMap<string, number>): Cell => values.get(c.name) ?? (c.isStat ? '' : 0);
