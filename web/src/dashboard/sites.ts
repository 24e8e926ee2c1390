import type { Location } from '#shared/locations/model';
import { type ExplorerApi, ProblemError } from '../model/api';
import { clockTimeIn } from '../model/clock';
import { firstOrder, type SiteRow, siteRows, type SortKey, type SortOrder, sortRows } from '../model/overview';
import { nameOf } from '../model/names';
import { toQuery } from '../model/url-state';
import { el, formatNumber } from './panel';
import { RefreshClock } from './refresh';
import { changeContent } from './week';

const byId = (id: string) => document.getElementById(id) as HTMLElement;
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
const SVG = 'http://www.w3.org/2000/svg';

interface Column {
  readonly key: SortKey | 'hourly';
  readonly label: string;
  readonly cell: (row: SiteRow) => Node | string | (Node | string)[];
}

const COLUMNS: readonly Column[] = [
  {
    key: 'name',
    label: 'Site',
    cell: (r) => el('a', { href: toQuery({ view: 'dashboard', location: r.id }), textContent: r.name }),
  },
  {
    key: 'people',
    label: 'People now',
    cell: (r) =>
      r.people === undefined ? el('span', { className: 'muted', textContent: 'closed' }) : formatNumber(r.people),
  },
  {
    key: 'utilization',
    label: '% of capacity',
    cell: (r) => (r.utilization === undefined ? '' : howFull(r)),
  },
  { key: 'today', label: 'Today so far', cell: (r) => formatNumber(r.today) },
  { key: 'change', label: 'vs. last week', cell: (r) => changeContent(r.change) },
  { key: 'hourly', label: 'By hour (last week dashed)', cell: (r) => sparkline(r.hourly, r.hourlyLastWeek) },
  {
    key: 'silentSensors',
    label: 'Silent sensors',
    cell: (r) => (r.silentSensors === undefined ? '' : formatNumber(r.silentSensors)),
  },
];

/**
 * How full a site is: `25% of 8`; `(some areas)` when open areas without a capacity are left out of
 * the share (the service divides the people of the areas with one by their capacities together).
 */
function howFull(r: SiteRow): Node | string | (Node | string)[] {
  const share = `${percent.format(r.utilization as number)} of ${formatNumber(r.capacity as number)}`;
  if (!r.partialCapacity) return share;
  const note = el('span', { className: 'muted', textContent: ' (some areas)' });
  note.title = 'Open areas without a capacity are not in this share.';
  return [share, note];
}

/**
 * Every site at a glance (`?view=sites`): a row per location from one `GET /insights/overview`,
 * sortable by each column (a button in its header; `aria-sort` says which and how), asked again when
 * the answer's max-age runs out. A site's name opens its dashboard.
 */
export function startSites(api: ExplorerApi, locations: readonly Location[]): void {
  const names = new Map(locations.map((l) => [l.id, nameOf(l)]));
  const table = byId('sites-table') as HTMLTableElement;
  const status = byId('sites-status');
  let rows: SiteRow[] = [];
  let sort: { key: SortKey; order: SortOrder } = { key: 'name', order: 'ascending' };
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const draw = () => {
    // A column no site has a value for says nothing: shown only when some site has a capacity, or silent sensors.
    const shown = COLUMNS.filter(
      (c) =>
        (c.key !== 'silentSensors' || rows.some((r) => r.silentSensors !== undefined)) &&
        (c.key !== 'utilization' || rows.some((r) => r.utilization !== undefined)),
    );
    (table.tHead as HTMLTableSectionElement).replaceChildren(el('tr', {}, ...shown.map((c) => header(c))));
    const body = table.tBodies[0] as HTMLTableSectionElement;
    body.replaceChildren(
      ...sortRows(rows, sort.key, sort.order).map((r) => {
        const tr = el('tr', {});
        tr.dataset.location = r.id;
        shown.forEach((c, i) => {
          const content = [c.cell(r)].flat();
          const cell =
            i === 0
              ? el('th', {}, ...content, el('span', { className: 'sub', textContent: r.timezone }))
              : el('td', { className: c.key === 'hourly' ? 'spark-cell' : '' }, ...content);
          if (i === 0) (cell as HTMLTableCellElement).scope = 'row';
          if (c.key === 'change' && r.change.delta !== 0) cell.dataset.tone = r.change.delta > 0 ? 'up' : 'down';
          tr.append(cell);
        });
        return tr;
      }),
    );
    (table.caption as HTMLElement).textContent =
      `${rows.length} ${rows.length === 1 ? 'site' : 'sites'}, sorted by ${shown.find((c) => c.key === sort.key)?.label.toLowerCase()} (${sort.order}). Today is each site's own day, in its time zone: movement events up to now, against the same weekday last week up to the same time of day.`;
  };

  const header = (c: Column): HTMLTableCellElement => {
    const th = el('th', {});
    th.scope = 'col';
    if (c.key === 'hourly') {
      th.textContent = c.label;
      th.className = 'spark-cell';
      return th;
    }
    const key = c.key;
    if (sort.key === key) th.setAttribute('aria-sort', sort.order);
    const button = el('button', { type: 'button', className: 'sort', textContent: c.label });
    button.addEventListener('click', () => {
      sort = {
        key,
        order: sort.key === key ? (sort.order === 'ascending' ? 'descending' : 'ascending') : firstOrder(key),
      };
      draw();
      (table.querySelector(`th[aria-sort] button`) as HTMLElement | null)?.focus();
    });
    th.append(button);
    return th;
  };

  const clock = new RefreshClock(async () => {
    try {
      const { body, maxAgeSeconds } = await api.overview();
      const arrived = performance.now();
      rows = siteRows(body, names);
      draw();
      // From the answer's arrival to the frame after the table was laid out and painted (npm run bench -- explorer
      // reads it).
      requestAnimationFrame(() => setTimeout(() => (table.dataset.drawnMs = (performance.now() - arrived).toFixed(1))));
      status.replaceChildren(
        'Updated ',
        el('time', { dateTime: body.at, textContent: clockTimeIn(Date.parse(body.at), here) }),
        '.',
      );
      return maxAgeSeconds;
    } catch (e) {
      status.textContent =
        e instanceof ProblemError
          ? `Could not be loaded: ${e.problem.title}: ${e.problem.detail}`
          : 'Could not be loaded: the service could not be reached.';
      throw e;
    }
  });
  clock.start();
}

/**
 * Today's hours so far (solid) and last week's same day (dashed, the same colour) as two lines on one
 * zero-based scale: decorative beside the numbers, so hidden from screen readers.
 */
function sparkline(today: readonly number[], lastWeek: readonly number[]): SVGSVGElement {
  const width = 96;
  const height = 28;
  const hours = Math.max(24, today.length, lastWeek.length);
  const max = Math.max(1, ...today, ...lastWeek);
  const points = (values: readonly number[]) =>
    values
      .map((v, i) => `${((i + 0.5) * width) / hours},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`)
      .join(' ');
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('class', 'spark');
  svg.setAttribute('aria-hidden', 'true');
  const base = document.createElementNS(SVG, 'line');
  for (const [k, v] of [
    ['x1', '0'],
    ['x2', String(width)],
    ['y1', String(height - 2)],
    ['y2', String(height - 2)],
    ['class', 'spark-zero'],
  ])
    base.setAttribute(k as string, v as string);
  svg.append(base);
  for (const [values, cls] of [
    [lastWeek, 'spark-before'],
    [today, 'spark-today'],
  ] as const) {
    if (values.length === 0) continue;
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', points(values));
    line.setAttribute('class', cls);
    svg.append(line);
  }
  return svg;
}
