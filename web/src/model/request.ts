import type { Collection, NestedPath } from '#shared/documents/fields';
import type { AggregationInput } from '#shared/report/schema/aggregations';
import type { ReportRequest } from '#shared/report/schema/request';
import { AUTO_BUCKETS_PER_SLICE } from '#shared/report/split/run-split';
import { findBreakdown, STAT_NAMES, type StatName, statsFields } from './catalog';
import { isoWithOffset, shiftDay, startOfDay } from './time';

/** The controls of the form a report is built from, as plain values. */
export interface ReportForm {
  /** None: every location of the caller's organization. */
  readonly locationIds: readonly string[];
  readonly source: Collection;
  /** First and last day of the range (`YYYY-MM-DD`, both included), in `timeZone`. */
  readonly firstDay: string;
  readonly lastDay: string;
  /** A time series (dateHistogram first) or one answer for the whole range. */
  readonly overTime: boolean;
  readonly interval: string;
  readonly timeZone: string;
  /** A breakdown id of catalog.ts, or '' for none. */
  readonly breakdown: string;
  /** A number field to take stats of, or '' to count. */
  readonly statsField: string;
  readonly stats: readonly StatName[];
  /** Also the same report over an earlier period: an offset such as `1w`, or none. */
  readonly compare?: string;
  /** Percentiles of the stats field (percents, e.g. 90, 99.9); none when left out. */
  readonly percentiles?: readonly number[];
  /** Send `splitInterval: "auto"` (time series only). */
  readonly split: boolean;
}

/** The controls a problem's JSON Pointer can land on. */
export type Control =
  | 'locations'
  | 'source'
  | 'firstDay'
  | 'lastDay'
  | 'interval'
  | 'timeZone'
  | 'breakdown'
  | 'statsField'
  | 'percentiles'
  | 'compare'
  | 'split';

/** Which control made which part of the request: JSON Pointer prefix → control, longest prefix wins. */
export type PointerMap = readonly (readonly [pointer: string, control: Control])[];

export interface BuiltRequest {
  readonly request: ReportRequest;
  readonly pointers: PointerMap;
  /** Series of the answer are stats (an absent value is a gap), not counts (an absent value is 0). */
  readonly stats: boolean;
}

/**
 * The report request for a form, and where each part of it came from, so that a 400 naming
 * `/aggregations/1/field` lands next to the breakdown it came from. The time zone must be one `Intl`
 * knows (the page checks it first): the days are turned into instants in it.
 */
export function buildRequest(form: ReportForm): BuiltRequest {
  const pointers: [string, Control][] = [
    ['/locationIds', 'locations'],
    ['/source', 'source'],
    ['/filters/0', 'firstDay'],
    ['/filters/0/from', 'firstDay'],
    ['/filters/0/to', 'lastDay'],
    ['/splitInterval', 'split'],
    ['/compare', 'compare'],
  ];
  const from = isoWithOffset(startOfDay(form.firstDay, form.timeZone), form.timeZone);
  const to = isoWithOffset(startOfDay(shiftDay(form.lastDay, 1), form.timeZone), form.timeZone);
  const range = { type: 'range' as const, field: 'timestamp', from, to };

  const aggregations: AggregationInput[] = [];
  const add = (control: Control, ...stages: readonly AggregationInput[]) => {
    for (const stage of stages) {
      pointers.push([`/aggregations/${aggregations.length}`, control]);
      aggregations.push(stage);
    }
  };
  if (form.overTime) {
    const at = aggregations.length;
    add('interval', { type: 'dateHistogram', interval: form.interval, timeZone: form.timeZone });
    pointers.push([`/aggregations/${at}/timeZone`, 'timeZone']);
  }
  const breakdown = form.breakdown ? findBreakdown(form.source, form.breakdown) : undefined;
  let inside: NestedPath | undefined;
  if (breakdown) {
    add('breakdown', ...breakdown.stages.map((s) => (s.type === 'profile' ? { ...s, timeZone: form.timeZone } : s)));
    inside = breakdown.stages.reduce<NestedPath | undefined>(
      (path, s) => (s.type === 'nested' ? (s.path as NestedPath) : path),
      undefined,
    );
  }
  const field = form.statsField ? statsFields(form.source).find((f) => f.name === form.statsField) : undefined;
  if (form.statsField && field) {
    if (inside && inside !== field.nestedPath) add('statsField', { type: 'reverseNested' });
    if (field.nestedPath && inside !== field.nestedPath) add('statsField', { type: 'nested', path: field.nestedPath });
    const percentiles = form.percentiles ?? [];
    // Percentiles alone drop the default avg, as the service does.
    const asked = new Set<string>(form.stats.length > 0 || percentiles.length > 0 ? form.stats : ['avg']);
    pointers.push([`/aggregations/${aggregations.length}/percentiles`, 'percentiles']);
    add('statsField', {
      type: 'stats',
      field: field.name,
      ...Object.fromEntries(STAT_NAMES.filter((s) => s !== 'median').map((s) => [s, asked.has(s)])),
      ...(asked.has('median') ? { median: true } : {}),
      ...(percentiles.length > 0 ? { percentiles: [...percentiles] } : {}),
    });
  }
  // One answer for the whole range with nothing to split it by: count what the range holds.
  if (aggregations.length === 0) add('breakdown', { type: 'filter', filter: range });

  const request: ReportRequest = {
    source: form.source,
    ...(form.locationIds.length > 0 ? { locationIds: [...form.locationIds] } : {}),
    filters: [range],
    aggregations,
    ...(form.split && form.overTime ? { splitInterval: 'auto' } : {}),
    // Without a histogram the offset follows the form's calendar too (the service's default is UTC).
    ...(form.compare
      ? { compare: { offset: form.compare, ...(form.overTime ? {} : { timeZone: form.timeZone }) } }
      : {}),
  };
  return { request, pointers, stats: Boolean(field) };
}

/** The control a JSON Pointer of a problem names (longest matching prefix), if any. */
export function controlFor(pointers: PointerMap, pointer: string): Control | undefined {
  let best: readonly [string, Control] | undefined;
  for (const entry of pointers) {
    const [prefix] = entry;
    const matches = pointer === prefix || pointer.startsWith(`${prefix}/`);
    if (matches && (!best || prefix.length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Above this many buckets `splitInterval: "auto"` makes more than one slice: the page offers it. */
export const SPLIT_OFFER_BUCKETS = AUTO_BUCKETS_PER_SLICE;

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  M: 30.44 * 86_400_000,
  q: 91.31 * 86_400_000,
  y: 365.25 * 86_400_000,
};

/** About how many histogram buckets a range makes at an interval; undefined for an interval the page cannot read. */
export function estimateBuckets(interval: string, fromMs: number, toMs: number): number | undefined {
  const m = /^([1-9]\d*)([smhdwMqy])$/.exec(interval.trim());
  if (!m || !(toMs > fromMs)) return undefined;
  return Math.ceil((toMs - fromMs) / (Number(m[1]) * (UNIT_MS[m[2] as string] as number)));
}
