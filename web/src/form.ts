import type { Location } from '#shared/locations/model';
import type { Collection } from '#shared/documents/fields';
import { nameOf } from './model/names';
import { BREAKDOWNS, COLLECTION_LABELS, COLLECTIONS, STAT_NAMES, type StatName, statsFields } from './model/catalog';
import type { PlacedProblem } from './model/problems';
import type { Control, ReportForm } from './model/request';
import { isTimeZone, parseDay } from './model/time';

const byId = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
};

/** The form's controls. */
export const controls = {
  form: byId<HTMLFormElement>('report-form'),
  token: byId<HTMLInputElement>('token'),
  locationList: byId<HTMLElement>('location-list'),
  source: byId<HTMLSelectElement>('source'),
  firstDay: byId<HTMLInputElement>('firstDay'),
  lastDay: byId<HTMLInputElement>('lastDay'),
  timeZone: byId<HTMLInputElement>('timeZone'),
  timeZones: byId<HTMLDataListElement>('time-zones'),
  overTime: byId<HTMLInputElement>('overTime'),
  interval: byId<HTMLInputElement>('interval'),
  breakdown: byId<HTMLSelectElement>('breakdown'),
  statsField: byId<HTMLSelectElement>('statsField'),
  stats: byId<HTMLFieldSetElement>('stats'),
  percentiles: byId<HTMLInputElement>('percentiles'),
  compare: byId<HTMLSelectElement>('compare'),
  splitField: byId<HTMLElement>('split-field'),
  split: byId<HTMLInputElement>('split'),
  splitHint: byId<HTMLElement>('split-hint'),
  run: byId<HTMLButtonElement>('run'),
  download: byId<HTMLButtonElement>('download'),
  formError: byId<HTMLElement>('form-error'),
};

/** The element that takes focus for a control, and the one its error goes in. */
const CONTROL_INPUT: Readonly<Record<Control | 'token', () => HTMLElement | null>> = {
  token: () => controls.token,
  locations: () => controls.locationList.querySelector('input'),
  source: () => controls.source,
  firstDay: () => controls.firstDay,
  lastDay: () => controls.lastDay,
  interval: () => controls.interval,
  timeZone: () => controls.timeZone,
  breakdown: () => controls.breakdown,
  statsField: () => controls.statsField,
  percentiles: () => controls.percentiles,
  compare: () => controls.compare,
  split: () => controls.split,
};

const option = (value: string, label: string): HTMLOptionElement => {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  return o;
};

/** Fills what does not depend on data: the collections and the time zones the browser knows. */
export function initControls(): void {
  controls.source.replaceChildren(...COLLECTIONS.map((c) => option(c, COLLECTION_LABELS[c])));
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  controls.timeZones.replaceChildren(...['UTC', ...zones].map((z) => option(z, '')));
  fillCollectionChoices(controls.source.value as Collection);
}

/** The breakdowns and measures a collection has; keeps the current choice where it still exists. */
export function fillCollectionChoices(source: Collection): void {
  const keep = (select: HTMLSelectElement, options: HTMLOptionElement[]) => {
    const before = select.value;
    select.replaceChildren(...options);
    if (options.some((o) => o.value === before)) select.value = before;
  };
  keep(controls.breakdown, [option('', 'None (one series)'), ...BREAKDOWNS[source].map((b) => option(b.id, b.label))]);
  keep(controls.statsField, [
    option('', 'Count'),
    ...statsFields(source).map((f) => option(f.name, `Stats of ${f.name}`)),
  ]);
  controls.stats.hidden = controls.statsField.value === '';
}

/** One checkbox per location; the first is checked. */
export function fillLocations(locations: readonly Location[]): void {
  controls.locationList.replaceChildren(
    ...locations.map((l, i) => {
      const wrap = document.createElement('span');
      wrap.className = 'check';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = `location-${i}`;
      box.value = l.id;
      box.checked = i === 0;
      box.dataset.timezone = l.timezone;
      const label = document.createElement('label');
      label.htmlFor = box.id;
      label.textContent = `${nameOf(l)} (${l.timezone})`;
      wrap.append(box, label);
      return wrap;
    }),
  );
}

export const checkedLocations = (): HTMLInputElement[] => [
  ...controls.locationList.querySelectorAll<HTMLInputElement>('input:checked'),
];

/** The form's values, or the problems that keep the page from building a request (before asking the service). */
export function readForm(): { form: ReportForm } | { problems: Map<Control, string> } {
  const problems = new Map<Control, string>();
  const timeZone = controls.timeZone.value.trim();
  if (!isTimeZone(timeZone))
    problems.set('timeZone', 'is not a time zone this browser knows; use an IANA name such as Europe/Berlin or UTC');
  if (!parseDay(controls.firstDay.value)) problems.set('firstDay', 'is required');
  if (!parseDay(controls.lastDay.value)) problems.set('lastDay', 'is required');
  const percentiles = parsePercentiles(controls.percentiles.value);
  if (!percentiles) problems.set('percentiles', 'must be numbers from 0 to 100, separated by commas (e.g. 90, 99.9)');
  if (problems.size > 0 || !percentiles) return { problems };
  const stats = [...controls.stats.querySelectorAll<HTMLInputElement>('input:checked')]
    .map((b) => b.value as StatName)
    .filter((s) => STAT_NAMES.includes(s));
  return {
    form: {
      locationIds: checkedLocations().map((b) => b.value),
      source: controls.source.value as Collection,
      firstDay: controls.firstDay.value,
      lastDay: controls.lastDay.value,
      overTime: controls.overTime.checked,
      interval: controls.interval.value.trim(),
      timeZone,
      breakdown: controls.breakdown.value,
      statsField: controls.statsField.value,
      stats,
      percentiles,
      compare: controls.compare.value,
      split: !controls.splitField.hidden && controls.split.checked,
    },
  };
}

/** `90, 99.9` as percents; undefined when a part is not a number from 0 to 100 (the service checks the rest). */
export function parsePercentiles(text: string): number[] | undefined {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const values = parts.map(Number);
  return values.every((v) => Number.isFinite(v) && v >= 0 && v <= 100) ? values : undefined;
}

/** Removes every error shown on the form. */
export function clearErrors(): void {
  for (const [control, input] of Object.entries(CONTROL_INPUT)) {
    const error = document.getElementById(`${control}-error`);
    if (error) {
      error.hidden = true;
      error.textContent = '';
    }
    input()?.removeAttribute('aria-invalid');
  }
  controls.formError.hidden = true;
  controls.formError.textContent = '';
}

/**
 * Shows a problem: each message next to its control (which is marked invalid), the summary above the
 * buttons; focus goes to the first control named, else stays where it was.
 */
export function showProblem(
  placed: PlacedProblem | { summary: string; atControls: ReadonlyMap<Control | 'token', readonly string[]> },
  focus = true,
): void {
  clearErrors();
  let first: HTMLElement | null = null;
  for (const [control, messages] of placed.atControls) {
    const error = document.getElementById(`${control}-error`);
    if (error) {
      error.textContent = messages.join(' ');
      error.hidden = false;
    }
    const input = CONTROL_INPUT[control]();
    if (control !== 'locations') input?.setAttribute('aria-invalid', 'true');
    first ??= input;
  }
  controls.formError.textContent = placed.summary;
  controls.formError.hidden = false;
  if (focus) (first ?? controls.formError).focus();
}
