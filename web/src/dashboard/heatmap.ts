import { WEEKDAYS } from '#shared/locations/model';
import { HOURS } from '../model/dashboard';
import { el, formatNumber } from './panel';

const LIGHT = [240, 246, 252];
const DARK = [8, 48, 107];

/** Relative luminance (WCAG) of an sRGB colour. */
const luminance = (rgb: readonly number[]) =>
  rgb
    .map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4))
    .reduce((sum, c, i) => sum + c * ([0.2126, 0.7152, 0.0722][i] as number), 0);

/**
 * The cell colour for a share of the largest count (0..1), between a light and a dark blue, and the
 * text colour, black or white, whichever contrasts more (at least 4.5:1 anywhere on the scale).
 */
export function heatColors(share: number): { background: string; color: string } {
  const rgb = LIGHT.map((l, i) => Math.round(l + (DARK[i]! - l) * share));
  const lum = luminance(rgb);
  const onBlack = (lum + 0.05) / 0.05;
  const onWhite = 1.05 / (lum + 0.05);
  return { background: `rgb(${rgb.join(' ')})`, color: onBlack >= onWhite ? '#000' : '#fff' };
}

/**
 * A weekday × hour grid as a table, each cell shaded by its count with the count written in it: a row
 * per weekday and a column per hour, or (`byHour`, on a narrow screen, where 24 columns cannot fit)
 * a row per hour and a column per weekday. The same cells either way.
 */
export function drawHeatmap(
  table: HTMLTableElement,
  grid: readonly (readonly number[])[],
  caption: string,
  byHour = false,
): void {
  table.classList.add('heat');
  const max = Math.max(1, ...grid.flat());
  (table.querySelector('caption') as HTMLElement).textContent = caption;
  const head = table.tHead as HTMLTableSectionElement;
  const body = table.tBodies[0] as HTMLTableSectionElement;
  const th = (text: string, scope: string, title?: string) => {
    const cell = el('th', { textContent: text, ...(title ? { title } : {}) });
    cell.scope = scope;
    return cell;
  };
  const day = (d: number) => WEEKDAYS[d]!.slice(0, 1).toUpperCase() + WEEKDAYS[d]!.slice(1, 3);
  const cell = (d: number, h: number) => {
    const n = grid[d]![h]!;
    const td = el('td', { textContent: formatNumber(n), title: `${WEEKDAYS[d]} ${HOURS[h]}: ${formatNumber(n)}` });
    const { background, color } = heatColors(n / max);
    td.style.background = background;
    td.style.color = color;
    return td;
  };
  if (byHour) {
    head.replaceChildren(
      el('tr', {}, th('Hour', 'col'), ...WEEKDAYS.map((_, d) => th(day(d).slice(0, 2), 'col', WEEKDAYS[d]))),
    );
    body.replaceChildren(...HOURS.map((h, k) => el('tr', {}, th(h, 'row'), ...WEEKDAYS.map((_, d) => cell(d, k)))));
    return;
  }
  head.replaceChildren(el('tr', {}, th('Day', 'col'), ...HOURS.map((h) => th(h.slice(0, 2), 'col', h))));
  body.replaceChildren(...grid.map((row, d) => el('tr', {}, th(day(d), 'row'), ...row.map((_, h) => cell(d, h)))));
}
