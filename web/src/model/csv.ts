import { isoInZone } from '#shared/time/local-time';
import type { Answer } from './answer';

/**
 * A CSV cell (RFC 4180): quoted when it holds a comma, quote or line break; a text that a spreadsheet would run as a
 * formula gets a leading quote, as the service's CSV does.
 */
export function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as CSV text with CRLF line ends. */
export const toCsv = (rows: readonly (readonly (string | number | null | undefined)[])[]): string =>
  `${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;

/**
 * What a chart shows, as CSV: `timestamp` (ISO UTC, as the API writes it), `localTime` (the same
 * instant on the wall clock of `timeZone` with its offset, as the API's CSV of a report with a
 * `timeZone`), then a column per series; or a name and a value per row. An empty cell has no value
 * (closed, or after now).
 */
export function answerCsv(answer: Answer, timeZone: string): string {
  if (answer.kind === 'namedNumbers') return toCsv([['name', 'value'], ...answer.entries.map(([n, v]) => [n, v])]);
  return toCsv([
    ['timestamp', 'localTime', ...answer.series.map((s) => s.name)],
    ...answer.times.map((t, i) => [
      new Date(t).toISOString(),
      isoInZone(t, timeZone),
      ...answer.series.map((s) => s.values[i]),
    ]),
  ]);
}
