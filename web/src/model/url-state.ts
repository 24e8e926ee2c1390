import { COLLECTIONS, STAT_NAMES, type StatName } from './catalog';
import { isPreset, type PresetId } from './presets';
import type { ReportForm } from './request';

/**
 * The page's state in its URL, so a link, a bookmark, back/forward and a reload show the same thing:
 * `?view=sites`, `?view=dashboard&location=…`, `?view=admin` or `?view=report&…` with every control of the report form
 * (none: the home page). Short,
 * readable parameter names; the token is never in it. A `preset` makes the link relative ("today"
 * opened tomorrow is tomorrow's today); without one the days are fixed.
 */

export type ChartKind = 'lines' | 'stacked';

/** A report as a link names it: any part of the form may be left out. */
export interface ReportState {
  readonly form: Partial<ReportForm>;
  readonly kind?: ChartKind;
  readonly preset?: PresetId;
}

export type PageState =
  | { readonly view: 'home' }
  | { readonly view: 'sites' }
  | { readonly view: 'dashboard'; readonly location?: string }
  | { readonly view: 'report'; readonly report?: ReportState }
  | { readonly view: 'admin' };

export function toQuery(state: PageState): string {
  const q = new URLSearchParams();
  if (state.view === 'home') return '?';
  q.set('view', state.view);
  if (state.view === 'sites' || state.view === 'admin') return `?${q}`;
  if (state.view === 'dashboard') {
    if (state.location) q.set('location', state.location);
    return `?${q}`;
  }
  const r = state.report;
  const f = r?.form;
  if (!r || !f) return `?${q}`;
  if (f.locationIds?.length) q.set('locations', f.locationIds.join(','));
  if (f.source) q.set('source', f.source);
  if (r.preset) q.set('preset', r.preset);
  if (f.firstDay) q.set('from', f.firstDay);
  if (f.lastDay) q.set('to', f.lastDay);
  if (f.timeZone) q.set('tz', f.timeZone);
  if (f.overTime !== undefined) q.set('overTime', f.overTime ? '1' : '0');
  if (f.interval) q.set('interval', f.interval);
  // An empty breakdown is a choice (a plain count), not a gap: written, so the builder does not put its default in.
  if (f.breakdown !== undefined) q.set('by', f.breakdown);
  if (f.statsField) q.set('measure', f.statsField);
  if (f.statsField && f.stats?.length) q.set('stats', f.stats.join(','));
  if (f.statsField && f.percentiles?.length) q.set('percentiles', f.percentiles.join(','));
  if (f.compare) q.set('compare', f.compare);
  if (f.split) q.set('split', '1');
  if (r.kind && r.kind !== 'lines') q.set('kind', r.kind);
  return `?${q}`;
}

/** The state a query string names; what it leaves out (or names wrongly) is left to the page's defaults. */
export function fromQuery(search: string): PageState {
  const q = new URLSearchParams(search);
  const view = q.get('view');
  if (view === 'sites') return { view: 'sites' };
  if (view === 'admin') return { view: 'admin' };
  if (view !== 'report') {
    const location = q.get('location') ?? undefined;
    // The bare address is the home page: every site, or the one site a caller has (main.ts decides).
    if (view !== 'dashboard' && !location) return { view: 'home' };
    return { view: 'dashboard', ...(location ? { location } : {}) };
  }
  const form: { -readonly [K in keyof ReportForm]?: ReportForm[K] } = {};
  const text = (name: string) => q.get(name)?.trim() || undefined;
  const locations = text('locations');
  if (locations) form.locationIds = locations.split(',').filter(Boolean);
  const source = text('source');
  if (source && (COLLECTIONS as readonly string[]).includes(source)) form.source = source as ReportForm['source'];
  if (text('from')) form.firstDay = text('from');
  if (text('to')) form.lastDay = text('to');
  if (text('tz')) form.timeZone = text('tz');
  if (q.has('overTime')) form.overTime = q.get('overTime') !== '0';
  if (text('interval')) form.interval = text('interval');
  if (q.has('by')) form.breakdown = q.get('by') ?? '';
  if (q.has('measure')) form.statsField = q.get('measure') ?? '';
  if (text('stats'))
    form.stats = (text('stats') as string)
      .split(',')
      .filter((s): s is StatName => (STAT_NAMES as readonly string[]).includes(s));
  if (text('percentiles'))
    form.percentiles = (text('percentiles') as string)
      .split(',')
      .map(Number)
      .filter((n) => Number.isFinite(n));
  if (text('compare')) form.compare = text('compare');
  if (q.has('split')) form.split = q.get('split') === '1';
  const preset = text('preset');
  const kind = q.get('kind') === 'stacked' ? 'stacked' : 'lines';
  return { view: 'report', report: { form, kind, ...(preset && isPreset(preset) ? { preset } : {}) } };
}
