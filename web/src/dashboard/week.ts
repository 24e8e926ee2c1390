import type { Change, WeekComparison } from '../model/dashboard';
import { clockTimeIn } from '../model/clock';
import { el, formatNumber } from './panel';

const signed = (n: number) => (n > 0 ? `+${formatNumber(n)}` : formatNumber(n));
const percent = new Intl.NumberFormat(undefined, {
  style: 'percent',
  maximumFractionDigits: 1,
  signDisplay: 'exceptZero',
});

/** A change in words: `+30 (+6.7%)`, the share left out when the base is 0. */
export const changeText = (c: Change): string =>
  `${signed(c.delta)}${c.share === undefined ? '' : ` (${percent.format(c.share)})`}`;

/** A change in a table cell: the difference, and the share under it (so a narrow column fits). */
/** A change as a cell's content: the difference, and the share under it where there is one. */
export const changeContent = (c: Change): (Node | string)[] => [
  signed(c.delta),
  ...(c.share === undefined ? [] : [' ', el('span', { className: 'sub', textContent: percent.format(c.share) })]),
];

const changeCell = (c: Change | null): HTMLTableCellElement =>
  c === null ? el('td') : el('td', {}, ...changeContent(c));

const th = (text: string | Node, scope: string) => {
  const cell = el('th', {}, text);
  cell.scope = scope;
  return cell;
};

/**
 * The week-over-week table: a row per weekday, then the totals so far and last week's whole week.
 * Every row compares like with like: a past day with last week's same day, today so far with last
 * week's same day up to the same time (its whole day is said beside it), the week so far with last
 * week up to the same time.
 */
export function drawWeekTable(table: HTMLTableElement, c: WeekComparison, zone: string): void {
  const until = clockTimeIn(c.now, zone);
  (table.querySelector('caption') as HTMLElement).textContent =
    `Movement events per day, this week beside last week. Today and the totals count up to ${until}, last week up to the same time.`;
  (table.tHead as HTMLTableSectionElement).replaceChildren(
    el('tr', {}, th('Day', 'col'), th('This week', 'col'), th('Last week', 'col'), th('Change', 'col')),
  );
  const rows = c.rows.map((r) => {
    const day = `${r.weekday[0]!.toUpperCase()}${r.weekday.slice(1)}`;
    const lastWeek = r.today
      ? el(
          'td',
          {},
          formatNumber(r.lastWeek),
          ' ',
          el('span', { className: 'sub' }, `of ${formatNumber(r.lastWeekWhole)} all day`),
        )
      : el('td', { textContent: formatNumber(r.lastWeek) });
    return el(
      'tr',
      { className: r.today ? 'today' : '' },
      th(r.today ? `${day}, today so far` : day, 'row'),
      el('td', { textContent: r.thisWeek === null ? '' : formatNumber(r.thisWeek) }),
      lastWeek,
      changeCell(r.change),
    );
  });
  const so = el(
    'tr',
    { className: 'total' },
    upToNow(c.now, zone),
    el('td', { textContent: formatNumber(c.thisWeekTotal) }),
    el('td', { textContent: formatNumber(c.lastWeekSameTime) }),
    changeCell(c.total),
  );
  const whole = el(
    'tr',
    { className: 'total' },
    th('Last week, whole week', 'row'),
    el('td'),
    el('td', { textContent: formatNumber(c.lastWeekTotal) }),
    el('td'),
  );
  (table.tBodies[0] as HTMLTableSectionElement).replaceChildren(...rows, so, whole);
}

/** The totals' row header, the instant they count up to in a `<time>`, on the location's clock. */
function upToNow(now: number, zone: string): HTMLTableCellElement {
  return th(
    el(
      'span',
      {},
      'Week up to ',
      el('time', { dateTime: new Date(now).toISOString(), textContent: clockTimeIn(now, zone) }),
    ),
    'row',
  );
}

/** One line for the status: the totals so far and the change. */
export function weekSummary(c: WeekComparison): string {
  return `This week up to now ${formatNumber(c.thisWeekTotal)}, last week up to the same time ${formatNumber(c.lastWeekSameTime)}: ${changeText(c.total)}. Today, not over, is in the table only.`;
}
