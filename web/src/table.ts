import type { Answer } from './model/answer';
import { dateTime } from './model/clock';

/** Rows drawn at most; the CSV download has all of them. */
export const MAX_TABLE_ROWS = 1000;

/**
 * The answer as a table under the chart: one row per bucket (or one per name), the API's numbers.
 * A bucket's start is written on the zone's clock in the reader's way (`formatTime`, by default the
 * date and the time; a dashboard panel of one day gives the time alone), its instant in `<time>`.
 */
export function drawTable(
  table: HTMLTableElement,
  answer: Answer,
  timeZone: string,
  formatNumber: (n: number) => string,
  formatTime: (instant: number, zone: string) => string = dateTime,
): void {
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

  if (answer.kind === 'timeSeries' && answer.series.some((s) => s.heading)) {
    // Two header rows: a group over its columns (an area over "today" and "a week before"), so a
    // narrow screen fits short headers instead of long names.
    const second = head.insertRow();
    const cell = (row: HTMLTableRowElement, text: string, scope: string, span: Record<string, number>) => {
      const c = document.createElement('th');
      c.scope = scope;
      c.textContent = text;
      for (const [k, v] of Object.entries(span)) if (v > 1) c.setAttribute(k, String(v));
      row.append(c);
    };
    cell(header, 'Time', 'col', { rowspan: 2 });
    answer.series.forEach((s, i) => {
      if (!s.heading) return cell(header, s.name, 'col', { rowspan: 2 });
      if (answer.series[i - 1]?.heading?.group !== s.heading.group) {
        let n = 1;
        while (answer.series[i + n]?.heading?.group === s.heading.group) n++;
        cell(header, s.heading.group, 'colgroup', { colspan: n });
      }
      cell(second, s.heading.label, 'col', {});
    });
  } else if (answer.kind === 'timeSeries') {
    th(`Bucket start (${timeZone})`);
    answer.series.forEach((s) => th(s.name));
  }
  if (answer.kind === 'timeSeries') {
    const shown = Math.min(answer.times.length, MAX_TABLE_ROWS);
    for (let i = 0; i < shown; i++) {
      const row = body.insertRow();
      const t = answer.times[i] as number;
      const time = document.createElement('time');
      time.dateTime = new Date(t).toISOString();
      time.textContent = formatTime(t, timeZone);
      rowHeader(row, time);
      answer.series.forEach((s) => td(row, s.values[i]));
    }
    caption.textContent =
      answer.times.length > shown
        ? `The first ${shown.toLocaleString()} of ${answer.times.length.toLocaleString()} buckets; the CSV download has all of them.`
        : `${answer.times.length.toLocaleString()} buckets, ${answer.series.length.toLocaleString()} series${answer.series.some((s) => s.heading) ? `, times in ${timeZone}` : ''}.`;
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
