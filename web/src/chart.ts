import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Answer, NamedNumbersAnswer, TimeSeriesAnswer } from './model/answer';
import { stack } from './model/answer';
import { axisLabel, dateTime, tickSteps } from './model/clock';
import { colorOf, seriesStyles } from './model/palette';

export type ChartKind = 'lines' | 'stacked';

export interface ChartOptions {
  readonly kind: ChartKind;
  readonly timeZone: string;
  readonly formatNumber: (n: number) => string;
}

/** A legend entry: a series' name and how it is drawn. */
export interface LegendEntry {
  readonly name: string;
  readonly color: string;
  readonly dash?: readonly number[];
}

export interface Chart {
  /** The series drawn, with their colours (for an exported image). */
  readonly legend: readonly LegendEntry[];
  destroy(): void;
}

const AXIS = { stroke: '#1a1a1a', grid: { stroke: '#e5e5e5', width: 1 }, ticks: { stroke: '#c4c4c4', width: 1 } };

/**
 * Draws an answer with uPlot: a time series as lines or stacked bars (each bar stacked on the one
 * below it through a uPlot band), named numbers as bars. The legend is ours (buttons that show or hide
 * a series, each with the value at the cursor), and the chart takes the arrow keys, Home and End to
 * move the cursor from point to point, so the values can be read without a mouse.
 */
export function drawChart(
  area: { chart: HTMLElement; legend: HTMLElement; cursor: HTMLElement },
  answer: Answer,
  options: ChartOptions,
): Chart {
  area.chart.replaceChildren();
  area.legend.replaceChildren();
  area.cursor.textContent = '';
  const spec = answer.kind === 'timeSeries' ? timeSeriesSpec(answer, options) : namedNumbersSpec(answer, options);
  const width = Math.max(240, area.chart.clientWidth);
  // What the y axis starts at and what the time axis says, as uPlot laid them out at each drawing: counts
  // start at zero, ticks are never finer than the buckets (the browser tests read them).
  const drawn = (u: uPlot) => {
    area.chart.dataset.yMin = String(u.scales.y?.min);
    if (spec.xLabels) area.chart.dataset.xLabels = JSON.stringify(spec.xLabels());
  };
  const plot = new uPlot(
    { ...spec.options, width, height: chartHeight(width), legend: { show: false }, hooks: { draw: [drawn] } },
    spec.data,
    area.chart,
  );
  area.chart.setAttribute('aria-label', spec.label);

  const shown = spec.legend.map(() => true);
  const legendValues = spec.legend.map((entry, i) =>
    legendItem(area.legend, entry, () => {
      shown[i] = !shown[i];
      // Stacked bars are stacked again with the hidden series at zero, so the others keep their heights;
      // (hiding a uPlot series would leave the band above it drawn from the hidden one's values).
      if (spec.restack) plot.setData(spec.restack(shown));
      else plot.setSeries(i + 1, { show: shown[i] as boolean });
      return shown[i] as boolean;
    }),
  );
  const showAt = (idx: number | null | undefined) => {
    area.cursor.textContent = idx === null || idx === undefined ? '' : spec.describe(idx);
    legendValues.forEach((set, i) => set(idx === null || idx === undefined ? '' : spec.valueAt(i, idx)));
  };
  plot.hooks.setCursor = [(u) => showAt(u.cursor.idx)];
  showAt(null);

  const points = spec.data[0].length;
  let idx = -1;
  const onKey = (event: KeyboardEvent) => {
    const moves: Record<string, number> = {
      ArrowRight: idx + 1,
      ArrowLeft: idx - 1,
      Home: 0,
      End: points - 1,
      PageUp: idx - 10,
      PageDown: idx + 10,
    };
    const next = moves[event.key];
    if (next === undefined || points === 0) return;
    event.preventDefault();
    idx = Math.max(0, Math.min(points - 1, idx < 0 && event.key === 'ArrowLeft' ? points - 1 : next));
    const x = spec.data[0][idx] as number;
    plot.setCursor({ left: plot.valToPos(x, 'x'), top: plot.bbox.height / devicePixelRatio / 2 });
    showAt(idx);
  };
  area.chart.addEventListener('keydown', onKey);

  const resize = new ResizeObserver(() => {
    const w = Math.max(240, area.chart.clientWidth);
    if (w !== plot.width) plot.setSize({ width: w, height: chartHeight(w) });
  });
  resize.observe(area.chart);

  return {
    legend: spec.legend,
    destroy() {
      resize.disconnect();
      area.chart.removeEventListener('keydown', onKey);
      plot.destroy();
    },
  };
}

const chartHeight = (width: number): number => (width < 480 ? 240 : 320);

/**
 * The y range: always from zero (or from below it, for negative values, up to zero), so that a bar's
 * or a line's height is its value and a change of 3% never looks like a collapse; the top a round
 * number above the largest value.
 */
export function zeroBasedRange(min: number | null, max: number | null): [number, number] {
  const nice = (v: number) => {
    const p = 10 ** Math.floor(Math.log10(v));
    return (Math.ceil(((v * 1.05) / p) * 2) / 2) * p;
  };
  const lo = min !== null && min < 0 ? -nice(-min) : 0;
  const hi = max !== null && max > 0 ? nice(max) : lo < 0 ? 0 : 1;
  return [lo, hi];
}

const Y_SCALE: uPlot.Scale = { range: (_u, min, max) => zeroBasedRange(min, max) };

interface Spec {
  readonly options: Omit<uPlot.Options, 'width' | 'height'>;
  readonly data: uPlot.AlignedData;
  readonly legend: readonly LegendEntry[];
  readonly label: string;
  /** The cursor line: which bucket or name the cursor is on. */
  describe(idx: number): string;
  /** The time axis' labels as last drawn (none for named numbers). */
  xLabels?(): readonly string[];
  /** Legend entry i's value at a point, formatted. */
  valueAt(i: number, idx: number): string;
  /** The data again with only the shown series stacked (stacked bars only). */
  restack?(shown: readonly boolean[]): uPlot.AlignedData;
}

function timeSeriesSpec(answer: TimeSeriesAnswer, options: ChartOptions): Spec {
  const stacked = options.kind === 'stacked';
  const values = stacked ? stack(answer.series) : answer.series.map((s) => [...s.values]);
  const bars = uPlot.paths.bars!({ size: [0.8, 48], align: 0 });
  const step = answer.times.length > 1 ? ((answer.times[1] as number) - (answer.times[0] as number)) / 1000 : 3600;
  const styles = seriesStyles(answer.series);
  const series: uPlot.Series[] = answer.series.map((s, i) => ({
    label: s.name,
    stroke: styles[i]!.color,
    width: stacked ? 0 : 2,
    ...(stacked
      ? { fill: styles[i]!.color, paths: bars, points: { show: false } }
      : { points: { show: answer.times.length <= 60 } }),
    ...(styles[i]!.dash && !stacked ? { dash: [...styles[i]!.dash!] } : {}),
    spanGaps: false,
  }));
  const format = (v: number | null | undefined) => (v === null || v === undefined ? '–' : options.formatNumber(v));
  const zone = options.timeZone;
  let xLabels: string[] = [];
  return {
    options: {
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
      // Room on the right for the last tick's label (a day's `Sun, Nov 29` is wider than uPlot's default gap).
      padding: [null, 40, null, null],
      // Bars need half a bucket of room at both ends, or the first and last are cut in half.
      scales: {
        x: stacked ? { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] } : { time: true },
        y: Y_SCALE,
      },
      series: [{}, ...series],
      bands: stacked ? answer.series.slice(1).map((_, i) => ({ series: [i + 2, i + 1] as [number, number] })) : [],
      // Ticks in the zone of the data and the reader's own way of writing dates (uPlot's own labels are American).
      // Ticks never finer than the buckets (a chart of days ticks at midnights only).
      axes: [
        {
          ...AXIS,
          size: 50,
          incrs: tickSteps(answer.times),
          values: (_u, splits, _axis, _space, incr) =>
            (xLabels = splits.map((t, i) => axisLabel(t * 1000, incr, i === 0, zone))),
        },
        { ...AXIS, size: 60 },
      ],
      cursor: { points: { show: !stacked } },
    },
    data: [answer.times.map((t) => t / 1000), ...values],
    legend: answer.series.map((s, i) => ({ name: s.name, ...styles[i]! })),
    label: `${stacked ? 'Stacked bar' : 'Line'} chart of ${answer.series.length} series over ${answer.times.length} points in time (${zone}), from zero; the table below lists the values.`,
    describe: (idx) => `${dateTime(answer.times[idx] as number, zone)} (${zone})`,
    xLabels: () => xLabels,
    valueAt: (i, idx) => format(answer.series[i]?.values[idx]),
    ...(stacked
      ? {
          restack: (shown: readonly boolean[]) => [
            answer.times.map((t) => t / 1000),
            ...stack(answer.series.map((s, i) => (shown[i] ? s : { ...s, values: s.values.map(() => 0) }))),
          ],
        }
      : {}),
  };
}

function namedNumbersSpec(answer: NamedNumbersAnswer, options: ChartOptions): Spec {
  const names = answer.entries.map(([name]) => name);
  const slanted = names.length > 4;
  return {
    options: {
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, names.length - 0.5)] }, y: Y_SCALE },
      series: [
        {},
        {
          label: 'value',
          stroke: colorOf(0),
          fill: colorOf(0),
          width: 0,
          paths: uPlot.paths.bars!({ size: [0.7, 96], align: 0 }),
          points: { show: false },
        },
      ],
      axes: [
        {
          ...AXIS,
          splits: () => names.map((_, i) => i),
          values: (_u, splits) => splits.map((i) => shorten(names[i] ?? '')),
          rotate: slanted ? -40 : 0,
          size: slanted ? 90 : 40,
          grid: { show: false },
        },
        { ...AXIS, size: 60 },
      ],
      cursor: { points: { show: false } },
    },
    data: [names.map((_, i) => i), answer.entries.map(([, v]) => v)],
    legend: [{ name: 'value', color: colorOf(0) }],
    label: `Bar chart of ${names.length} values; the table below lists them.`,
    describe: (idx) => names[idx] ?? '',
    valueAt: (_i, idx) => options.formatNumber(answer.entries[idx]?.[1] as number),
  };
}

const shorten = (s: string): string => (s.length > 18 ? `${s.slice(0, 17)}…` : s);

/** One legend entry: a button that shows or hides its series; returns a setter for its value. */
function legendItem(list: HTMLElement, entry: LegendEntry, toggle: () => boolean): (value: string) => void {
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.setAttribute('aria-pressed', 'true');
  const swatch = document.createElement('span');
  swatch.className = entry.dash ? 'swatch dashed' : 'swatch';
  // A dashed series has a dashed swatch (a border in its colour), a solid one a solid bar.
  if (entry.dash) swatch.style.borderTopColor = entry.color;
  else swatch.style.background = entry.color;
  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = entry.name;
  const value = document.createElement('span');
  value.className = 'value';
  button.append(swatch, name, value);
  button.addEventListener('click', () => button.setAttribute('aria-pressed', String(toggle())));
  item.append(button);
  list.append(item);
  return (text) => {
    value.textContent = text;
  };
}
