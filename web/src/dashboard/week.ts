import type { WeekComparison } from '../model/dashboard';
import { el, formatNumber } from './panel';

const signed = (n: number) => (n > 0 ? `+${formatNumber(n)}` : formatNumber(n));
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });

/** The week-over-week table: a row per weekday, then the totals so far and their change. */
export function drawWeekTable(table: HTMLTableElement, c: WeekComparison): void {
  (table.querySelector('caption') as HTMLElement).textContent = 'Movement events per day, this week beside last week.';
  const th = (text: string, scope: string) => {
    const cell = el('th', { textContent: text });
    cell.scope = scope;
    return cell;
  };
  (table.tHead as HTMLTableSectionElement).replaceChildren(el('tr', {}, th('Day', 'col'), th('This week', 'col'), th('Last week', 'col'), th('Change', 'col')));
  const rows = c.rows.map((r) =>
    el(
      'tr',
      {},
      th(`${r.weekday[0]!.toUpperCase()}${r.weekday.slice(1)}${r.today ? ' (today, so far)' : ''}`, 'row'),
      el('td', { textContent: r.thisWeek === null ? '' : formatNumber(r.thisWeek) }),
      el('td', { textContent: formatNumber(r.lastWeek) }),
      el('td', { textContent: r.change === null ? '' : `${signed(r.change)}${r.today ? ' *' : ''}` }),
    ),
  );
  const share = c.deltaShare === undefined ? '' : ` (${percent.format(c.deltaShare)})`;
  const so = el('tr', { className: 'total' }, upToNow(c.now), el('td', { textContent: formatNumber(c.thisWeekTotal) }), el('td', { textContent: formatNumber(c.lastWeekSameTime) }), el('td', { textContent: `${signed(c.delta)}${share}` }));
  const whole = el('tr', { className: 'total' }, th('Last week, whole week', 'row'), el('td'), el('td', { textContent: formatNumber(c.lastWeekTotal) }), el('td'));
  (table.tBodies[0] as HTMLTableSectionElement).replaceChildren(...rows, so, whole);
  const note = table.querySelector('caption') as HTMLElement;
  note.textContent += ' * Today so far against last week’s same day up to the same time.';
}

/** The totals' row header, the instant they count up to in a `<time>`. */
function upToNow(now: number): HTMLTableCellElement {
  const cell = el('th', {}, 'Up to now (', el('time', { dateTime: new Date(now).toISOString(), textContent: new Date(now).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) }), '), and a week before');
  cell.scope = 'row';
  return cell;
}

/** One line for the status: the totals so far and the change. */
export function weekSummary(c: WeekComparison): string {
  const share = c.deltaShare === undefined ? '' : ` (${percent.format(c.deltaShare)})`;
  return `This week up to now ${formatNumber(c.thisWeekTotal)}, last week up to the same time ${formatNumber(c.lastWeekSameTime)}: ${signed(c.delta)}${share}. Today, not over, is in the table only.`;
}
