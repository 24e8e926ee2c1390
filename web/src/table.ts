import type { Answer } from './model/answer';
import { formatLocal } from './model/time';

/** Rows drawn at most; the CSV download has all of them. */
export const MAX_TABLE_ROWS = 1000;

/** The answer as a table under the chart: one row per bucket (or one per name), the API's numbers. */
export function drawTable(table: HTMLTableElement, answer: Answer, timeZone: string, formatNumber: (n: number) => string): void {
  const caption = table.querySelector('caption') as HTMLElement;
  const head = table.tHead as HTMLTableSectionElement;
  const body = table.tBodies[0] as HTMLTableSectionElement;
  head.replaceChildren();
  body.replaceChildren();

  const header = head.insertRow();
  const th = (text: string) => {
    const cell = document.createElement('th');
    cell.scope = 'col';
    cell.textContent = text;
    header.append(cell);
  };
  const rowHeader = (row: HTMLTableRowElement, content: Node | string) => {
    const cell = document.createElement('th');
    cell.scope = 'row';
    cell.append(content);
    row.append(cell);
  };
  const td = (row: HTMLTableRowElement, value: number | null | undefined) => {
    row.insertCell().textContent = value === null || value === undefined ? '' : formatNumber(value);
  };

  if (answer.kind === 'timeSeries') {
    th(`Bucket start (${timeZone})`);
    answer.series.forEach((s) => th(s.name));
    const shown = Math.min(answer.times.length, MAX_TABLE_ROWS);
    for (let i = 0; i < shown; i++) {
      const row = body.insertRow();
      const t = answer.times[i] as number;
      const time = document.createElement('time');
      time.dateTime = new Date(t).toISOString();
      time.textContent = formatLocal(t, timeZone);
      rowHeader(row, time);
      answer.series.forEach((s) => td(row, s.values[i]));
    }
    caption.textContent =
      answer.times.length > shown
        ? `The first ${shown.toLocaleString()} of ${answer.times.length.toLocaleString()} buckets; the CSV download has all of them.`
        : `${answer.times.length.toLocaleString()} buckets, ${answer.series.length.toLocaleString()} series.`;
  } else {
    th('Series');
    th('Value');
    for (const [name, value] of answer.entries.slice(0, MAX_TABLE_ROWS)) {
      const row = body.insertRow();
      rowHeader(row, name);
      td(row, value);
    }
    caption.textContent = `${answer.entries.length.toLocaleString()} values.`;
  }
}
