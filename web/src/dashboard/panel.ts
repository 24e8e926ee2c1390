import { type Chart, drawChart } from '../chart';
import { chartPng, downloadBlob } from '../export';
import type { Answer } from '../model/answer';
import { answerCsv } from '../model/csv';
import { type ReportState, toQuery } from '../model/url-state';
import { drawTable } from '../table';

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
export const formatNumber = (n: number): string => numberFormat.format(n);

const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};
export { el };

/**
 * One panel of the dashboard: a heading, a status line (loading, answered, or why it is empty or
 * failed), the drawing, the same numbers as a table, and its actions: open the report in the
 * builder, download what it shows as CSV and, for a chart, as PNG.
 */
export class Panel {
  readonly status: HTMLElement;
  readonly body: HTMLElement;
  private readonly actions: HTMLElement;
  private chart?: Chart;

  constructor(
    readonly section: HTMLElement,
    private readonly name: string,
  ) {
    this.status = el('p', { className: 'hint panel-status' });
    this.status.setAttribute('role', 'status');
    this.body = el('div', { className: 'panel-body' });
    this.actions = el('div', { className: 'actions' });
    section.append(this.status, this.body, this.actions);
  }

  /** A first load: nothing shown yet. A refresh keeps what is shown until the new answer replaces it. */
  loading(): void {
    this.clear();
    this.section.setAttribute('aria-busy', 'true');
    this.status.textContent = 'Loading…';
  }

  /** The panel shows an answer (drawn, or said why not). */
  get answered(): boolean {
    return (
      !this.section.hasAttribute('aria-busy') &&
      (this.status.textContent !== '' || this.body.querySelector('.empty') !== null)
    );
  }

  clear(): void {
    this.chart?.destroy();
    this.chart = undefined;
    this.body.replaceChildren();
    this.actions.replaceChildren();
  }

  /** Nothing to draw, and why (closed, no data, no access, failed). */
  empty(why: string): void {
    this.clear();
    this.section.removeAttribute('aria-busy');
    this.status.textContent = '';
    this.body.append(el('p', { className: 'empty' }, why));
  }

  done(status: string): void {
    this.section.removeAttribute('aria-busy');
    this.status.textContent = status;
  }

  /**
   * Draws a time series or named numbers with the builder's chart and, unless the panel has a table of
   * its own (`table: false`), the same numbers as a table below it: one table, one toggle.
   */
  drawChart(
    answer: Answer,
    timeZone: string,
    label: string,
    options: { readonly table?: boolean; readonly formatTime?: (instant: number, zone: string) => string } = {},
  ): void {
    this.clear();
    const chart = el('div', { className: 'chart', tabIndex: 0 });
    chart.setAttribute('role', 'group');
    chart.setAttribute('aria-roledescription', 'chart');
    chart.setAttribute('aria-describedby', 'dash-chart-keys');
    const cursor = el('p', { className: 'cursor' });
    cursor.setAttribute('aria-live', 'polite');
    const legend = el('ul', { className: 'legend' });
    legend.setAttribute('aria-label', `Series of ${label}`);
    this.body.append(chart, cursor, legend);
    this.chart = drawChart({ chart, legend, cursor }, answer, { kind: 'lines', timeZone, formatNumber });
    if (options.table !== false)
      this.appendTable((table) => drawTable(table, answer, timeZone, formatNumber, options.formatTime), label);
    const drawn = this.chart;
    this.action(
      el('button', { type: 'button', className: 'secondary', textContent: 'Download PNG' }),
      () => void chartPng(chart, drawn.legend, label).then((png) => downloadBlob(png, `${this.name}.png`)),
    );
    this.csv(answerCsv(answer, timeZone));
  }

  /** A table of the numbers, folded under the drawing. */
  appendTable(fill: (table: HTMLTableElement) => void, label: string, open = false): HTMLTableElement {
    const table = el('table', {}, el('caption'), el('thead'), el('tbody'));
    fill(table);
    const wrap = el('div', { className: 'table-wrap whole', tabIndex: 0 }, table);
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', `Table: ${label}`);
    this.body.append(el('details', { open }, el('summary', {}, 'The numbers as a table'), wrap));
    return table;
  }

  csv(text: string): void {
    this.action(el('button', { type: 'button', className: 'secondary', textContent: 'Download CSV' }), () =>
      downloadBlob(new Blob([text], { type: 'text/csv' }), `${this.name}.csv`),
    );
  }

  /** The link that opens the panel's report in the builder (first among the actions). */
  openInBuilder(report: ReportState, text = 'Open in the report builder'): void {
    const link = el('a', { href: toQuery({ view: 'report', report }), className: 'open', textContent: text });
    this.actions.prepend(link);
  }

  private action(button: HTMLButtonElement, onClick: () => void): void {
    button.addEventListener('click', onClick);
    this.actions.append(button);
  }
}
