import type { Collection } from '#shared/documents/fields';
import { controls, fillCollectionChoices, readForm } from './form';
import { PRESETS, type PresetId, isPreset, presetRange } from './model/presets';
import { todayIn } from './model/time';
import { type ChartKind, fromQuery, type ReportState, toQuery } from './model/url-state';

/**
 * The report form's link: presets that fill the days in the report's time zone, the form written to
 * the URL at each run (a history entry, so back and forward step through the reports run), and a form
 * filled back from a URL (a reload, a shared link, back/forward).
 */

const preset = () => document.getElementById('preset') as HTMLSelectElement;

export function initPresets(): void {
  const option = (value: string, label: string) => {
    const o = document.createElement('option');
    o.value = value;
    o.textContent = label;
    return o;
  };
  preset().replaceChildren(option('', 'Custom days'), ...PRESETS.map((p) => option(p.id, p.label)));
}

/** Fills the days (and interval) of the chosen preset, counted from today in the form's time zone. */
export function applyPreset(id: PresetId, now = Date.now()): void {
  const zone = controls.timeZone.value.trim() || 'UTC';
  let today: string;
  try {
    today = todayIn(zone, now);
  } catch {
    return; // an unknown zone: the form says so when it is read
  }
  const { firstDay, lastDay } = presetRange(id, today);
  controls.firstDay.value = firstDay;
  controls.lastDay.value = lastDay;
  controls.interval.value = PRESETS.find((p) => p.id === id)?.interval ?? controls.interval.value;
  preset().value = id;
}

/** The preset chosen, if the days were not changed by hand since. */
export const chosenPreset = (): PresetId | undefined =>
  isPreset(preset().value) ? (preset().value as PresetId) : undefined;

/** Typing a day by hand leaves the preset. */
export const leavePreset = (): void => {
  preset().value = '';
};

const chartKindInput = (kind: ChartKind) => document.getElementById(`kind-${kind}`) as HTMLInputElement;

/** The report state the form shows now (undefined while the form cannot be read). */
export function currentReport(kind: ChartKind): ReportState | undefined {
  const read = readForm();
  if ('problems' in read) return undefined;
  const id = chosenPreset();
  return { form: read.form, kind, ...(id ? { preset: id } : {}) };
}

/** Puts a report state into the controls; what it leaves out keeps its current value. */
export function applyReport(state: ReportState): void {
  const f = state.form;
  if (f.locationIds) {
    const ids = new Set(f.locationIds);
    for (const box of controls.locationList.querySelectorAll<HTMLInputElement>('input'))
      box.checked = ids.has(box.value);
  }
  if (f.source) {
    controls.source.value = f.source;
    fillCollectionChoices(f.source as Collection);
  }
  if (f.timeZone) controls.timeZone.value = f.timeZone;
  if (f.overTime !== undefined) controls.overTime.checked = f.overTime;
  if (f.interval) controls.interval.value = f.interval;
  if (f.breakdown !== undefined) controls.breakdown.value = f.breakdown;
  if (f.statsField !== undefined) {
    controls.statsField.value = f.statsField;
    controls.stats.hidden = controls.statsField.value === '';
  }
  if (f.stats)
    for (const box of controls.stats.querySelectorAll<HTMLInputElement>('input'))
      box.checked = f.stats.includes(box.value as never);
  if (f.percentiles) controls.percentiles.value = f.percentiles.join(', ');
  if (f.compare !== undefined) controls.compare.value = f.compare;
  if (f.split !== undefined) controls.split.checked = f.split;
  if (f.firstDay) controls.firstDay.value = f.firstDay;
  if (f.lastDay) controls.lastDay.value = f.lastDay;
  if (state.preset) applyPreset(state.preset);
  else if (f.firstDay || f.lastDay) leavePreset();
  if (f.interval) controls.interval.value = f.interval;
  chartKindInput(state.kind ?? 'lines').checked = true;
}

/** A history entry for a report just run, unless the URL already names exactly it. */
export function pushReport(state: ReportState): void {
  const query = toQuery({ view: 'report', report: state });
  if (query !== location.search) history.pushState(null, '', query);
}

/** The report a URL names, if it names one. */
export function reportInUrl(): ReportState | undefined {
  const state = fromQuery(location.search);
  return state.view === 'report' && state.report && Object.keys(state.report.form).length > 0
    ? state.report
    : undefined;
}

/** Copies the page's link (the URL, with the report last run) to the clipboard. */
export async function copyLink(status: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(location.href);
    status.textContent = 'Link copied. It opens this report; the token is not in it.';
  } catch {
    status.textContent = 'Copying is not allowed here; copy the address bar instead.';
  }
}
