import type { Collection } from '#shared/documents/fields';
import './explorer.css';
import { type Chart, type ChartKind, drawChart } from './chart';
import {
  checkedLocations,
  clearErrors,
  controls,
  fillCollectionChoices,
  fillLocations,
  initControls,
  readForm,
  showProblem,
} from './form';
import { livePanel } from './live';
import { type Answer, readAnswer } from './model/answer';
import { ExplorerApi, ProblemError } from './model/api';
import { curlCommand } from './model/curl';
import { placeProblem } from './model/problems';
import { type BuiltRequest, buildRequest, estimateBuckets, SPLIT_OFFER_BUCKETS } from './model/request';
import { shiftDay, startOfDay } from './model/time';
import { toQuery } from './model/url-state';
import { drawTable } from './table';
import { showSource } from './source-note';
import { emptyReason, failureNote, withoutFuture } from './model/honest';
import { chartPng, downloadBlob } from './export';
import { startDashboard } from './dashboard/dashboard';
import { startSites } from './dashboard/sites';
import { findSignIn } from './sign-in-probe';
import { showAdminLink, showView, type View, viewInUrl } from './view';
import { type AdminScreen, startAdmin } from './admin/admin';
import { roleOfToken } from './model/role';
import { nameOf } from './model/names';
import {
  applyPreset,
  applyReport,
  chosenPreset,
  copyLink,
  currentReport,
  initPresets,
  leavePreset,
  pushReport,
  reportInUrl,
} from './share';

const TOKEN_KEY = 'lrs-explorer-token';
const byId = (id: string) => document.getElementById(id) as HTMLElement;

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 });
const formatNumber = (n: number) => numberFormat.format(n);

/** The development token the local server fills in, else the one pasted earlier in this tab. */
function initialToken(): string {
  const filled = document.querySelector<HTMLMetaElement>('meta[name="lrs-token"]')?.content ?? '';
  return filled || sessionStorage.getItem(TOKEN_KEY) || '';
}

const state: {
  built?: BuiltRequest;
  answer?: Answer;
  answerZone: string;
  chart?: Chart;
  zoneTouched: boolean;
  tooManyBuckets: boolean;
} = { answerZone: 'UTC', zoneTouched: false, tooManyBuckets: false };

/**
 * The page's view; the bare address shows every site until the locations say the caller has only one; the admin screen
 * is an admin's only.
 */
const resolveView = (count = 2, admin = false): View => {
  const named = viewInUrl();
  if (named === 'admin') return admin ? 'admin' : count === 1 ? 'dashboard' : 'sites';
  return named === 'home' ? (count === 1 ? 'dashboard' : 'sites') : named;
};
let view = showView(resolveView());
const started = new Set<View>();
/** The admin screen, drawn once an admin opens it. */
let admin: AdminScreen | undefined;

/** The sign-in code, loaded only where the page signs people in (sign-in-probe.ts). */
let auth: typeof import('./auth') | undefined;
const api = new ExplorerApi(async () => (auth ? await auth.sessionToken() : '') || controls.token.value);
const live = livePanel(api, { body: byId('live-body'), status: byId('live-status') });
const liveLocation = byId('live-location') as HTMLSelectElement;

function failure(e: unknown): void {
  if (e instanceof ProblemError) {
    const placed = placeProblem(e.problem, state.built?.pointers ?? []);
    if (/\/too-many-buckets$/.test(e.problem.type)) {
      state.tooManyBuckets = true;
      refreshRequest();
    }
    showProblem(placed);
  } else {
    showProblem({
      summary: `The service could not be reached: ${e instanceof Error ? e.message : String(e)}`,
      atControls: new Map(),
    });
  }
}

/** The zone of the first checked location (else the first location): the default time zone. */
function locationZone(): string | undefined {
  const box = checkedLocations()[0] ?? controls.locationList.querySelector<HTMLInputElement>('input');
  return box?.dataset.timezone;
}

/** Rebuilds the request shown under the form from the controls, and offers slices for long ranges. */
function refreshRequest(): void {
  controls.stats.hidden = controls.statsField.value === '';
  controls.interval.disabled = !controls.overTime.checked;
  const read = readForm();
  const json = byId('request-json');
  const curl = byId('curl');
  if ('problems' in read) {
    state.built = undefined;
    json.textContent = `Not built yet: ${[...read.problems].map(([c, m]) => `${c} ${m}`).join('; ')}.`;
    curl.textContent = '';
    return;
  }
  const { form } = read;
  const buckets = form.overTime
    ? estimateBuckets(
        form.interval,
        startOfDay(form.firstDay, form.timeZone),
        startOfDay(shiftDay(form.lastDay, 1), form.timeZone),
      )
    : undefined;
  const offer = form.overTime && ((buckets ?? 0) > SPLIT_OFFER_BUCKETS || state.tooManyBuckets);
  controls.splitField.hidden = !offer;
  controls.splitHint.textContent = offer
    ? `${buckets ? `About ${buckets.toLocaleString()} buckets per series. ` : ''}The service can run a long range as several smaller queries and merge them exactly.`
    : '';
  state.built = buildRequest({ ...form, split: offer && controls.split.checked });
  json.textContent = JSON.stringify(state.built.request, null, 2);
  curl.textContent = curlCommand(location.origin, state.built.request, 'application/json');
}

function chartKind(): ChartKind {
  return (document.querySelector<HTMLInputElement>('input[name="kind"]:checked')?.value as ChartKind) ?? 'lines';
}

/** Takes the previous result off the page, so a failed or running report never shows an older one as its own. */
function clearResult(): void {
  state.chart?.destroy();
  state.chart = undefined;
  state.answer = undefined;
  byId('chart-area').hidden = true;
  byId('table-area').hidden = true;
  byId('truncated').hidden = true;
  showSource(byId('answer-source'), undefined);
  byId('empty').hidden = true;
  byId('result-actions').hidden = true;
}

/** On one column (phones, narrow windows) the result is below the form and the request: bring it into view. */
function bringResultIntoView(): void {
  if (window.matchMedia('(max-width: 63.99rem)').matches) byId('result').scrollIntoView({ block: 'start' });
}

function draw(): void {
  if (!state.answer) return;
  state.chart?.destroy();
  byId('result-actions').hidden = false;
  byId('download-png').hidden = !byId('empty').hidden;
  if (!byId('empty').hidden) return;
  byId('chart-area').hidden = false;
  byId('table-area').hidden = false;
  state.chart = drawChart({ chart: byId('chart'), legend: byId('legend'), cursor: byId('cursor') }, state.answer, {
    kind: chartKind(),
    timeZone: state.answerZone,
    formatNumber,
  });
  drawTable(byId('table') as HTMLTableElement, state.answer, state.answerZone, formatNumber);
}

/**
 * Each run's number: runs can overlap (the Run button, back/forward, a new token reloading the
 * locations), and only the latest may draw, say how it went or end the busy state, so a late answer
 * never lands over a newer run's failure.
 */
let latestRun = 0;

/** Runs the report the form shows; `push` adds it to the history (not when back/forward brought it). */
async function run({ push = true } = {}): Promise<void> {
  clearErrors();
  refreshRequest();
  const built = state.built;
  const read = readForm();
  if (!built || 'problems' in read) {
    if ('problems' in read)
      showProblem({
        summary: 'Some fields need a value first.',
        atControls: new Map([...read.problems].map(([c, m]) => [c, [m]])),
      });
    return;
  }
  const status = byId('result-status');
  const result = byId('result');
  const runNumber = ++latestRun;
  const superseded = () => runNumber !== latestRun;
  controls.run.disabled = true;
  result.setAttribute('aria-busy', 'true');
  status.textContent = 'Running the report…';
  clearResult();
  const started = performance.now();
  try {
    const { body, truncated, source } = await api.report(built.request);
    if (superseded()) return;
    state.tooManyBuckets = false;
    const now = Date.now();
    const { answer, future } = withoutFuture(readAnswer(body, built.stats ? 'gap' : 'zero'), now);
    state.answer = answer;
    state.answerZone = read.form.timeZone;
    byId('truncated').hidden = !truncated;
    showSource(byId('answer-source'), source);
    const { firstDay, lastDay, timeZone } = read.form;
    const why = emptyReason(
      answer,
      { from: startOfDay(firstDay, timeZone), to: startOfDay(shiftDay(lastDay, 1), timeZone) },
      now,
    );
    const empty = byId('empty');
    empty.textContent = why ?? '';
    empty.hidden = why === undefined;
    draw();
    const size =
      answer.kind === 'timeSeries'
        ? `${answer.times.length.toLocaleString()} buckets × ${answer.series.length} series`
        : `${answer.entries.length} values`;
    const later =
      future > 0
        ? ` ${future.toLocaleString()} ${future === 1 ? 'bucket starts' : 'buckets start'} after now and ${future === 1 ? 'is' : 'are'} left empty, not drawn as 0.`
        : '';
    status.textContent = `Answered in ${Math.round(performance.now() - started).toLocaleString()} ms: ${size}.${later}`;
    refreshRequest();
    const report = currentReport(chartKind());
    if (push && report) pushReport(report);
    bringResultIntoView();
  } catch (e) {
    if (superseded()) return;
    status.textContent = failureNote(e instanceof ProblemError ? e.problem.status : undefined);
    failure(e);
  } finally {
    if (!superseded()) {
      controls.run.disabled = false;
      result.removeAttribute('aria-busy');
    }
  }
}

async function downloadCsv(): Promise<void> {
  clearErrors();
  refreshRequest();
  const built = state.built;
  if (!built) return void run();
  controls.download.disabled = true;
  try {
    const { body } = await api.reportCsv(built.request);
    downloadBlob(new Blob([body], { type: 'text/csv' }), `${fileStem(built)}.csv`);
  } catch (e) {
    failure(e);
  } finally {
    controls.download.disabled = false;
  }
}

const fileStem = (built: BuiltRequest) =>
  `report-${built.request.source}-${controls.firstDay.value}-to-${controls.lastDay.value}`;

async function downloadPng(): Promise<void> {
  if (!state.chart || !state.built) return;
  const title = `${controls.source.selectedOptions[0]?.textContent ?? ''}, ${controls.firstDay.value} to ${controls.lastDay.value} (${state.answerZone})`;
  downloadBlob(await chartPng(byId('chart'), state.chart.legend, title), `${fileStem(state.built)}.png`);
}

async function copyCurl(): Promise<void> {
  const status = byId('copy-status');
  try {
    await navigator.clipboard.writeText(byId('curl').textContent ?? '');
    status.textContent = 'Copied. Set TOKEN in your shell first.';
  } catch {
    status.textContent = 'Copying is not allowed here; select the command and copy it.';
  }
}

/** Days and zone from the location: the last 7 days up to today. */
function defaultRange(): void {
  applyPreset('last7');
}

/** Whether the page's token is an admin's (what it shows; the service decides what it allows). */
async function isAdmin(): Promise<boolean> {
  return roleOfToken((auth ? await auth.sessionToken() : '') || controls.token.value) === 'admin';
}

/** The locations by name in the builder and the live panel. */
function fillLocationNames(locations: Awaited<ReturnType<ExplorerApi['locations']>>): void {
  fillLocations(locations);
  liveLocation.replaceChildren(
    ...locations.map((l) => {
      const o = document.createElement('option');
      o.value = l.id;
      o.textContent = nameOf(l);
      o.dataset.timezone = l.timezone;
      return o;
    }),
  );
}

async function loadLocations(): Promise<void> {
  const adminToken = await isAdmin();
  showAdminLink(adminToken);
  view = showView(resolveView(2, adminToken)); // the sign-in puts back the address it started from
  clearErrors();
  if (view === 'admin') {
    admin ??= startAdmin(api, byId('admin-view'), () => void api.locations().then(fillLocationNames, () => undefined));
    admin.show();
  }
  try {
    const locations = await api.locations();
    fillLocationNames(locations);
    if (locations.length === 0) controls.locationList.textContent = 'Your organization has no locations yet.';
    controls.timeZone.value = locationZone() ?? 'UTC';
    defaultRange();
    const linked = reportInUrl();
    if (linked) applyReport(linked);
    refreshRequest();
    if (linked) void run({ push: false });
    view = showView(resolveView(locations.length, adminToken));
    if ((view === 'sites' || view === 'dashboard') && !started.has(view))
      (view === 'sites' ? startSites : startDashboard)(api, locations);
    started.add(view);
    if (view === 'report' && locations[0]) live.show(locations[0].id, locations[0].timezone);
  } catch (e) {
    controls.locationList.textContent = 'The locations could not be loaded.';
    failure(e);
  }
}

function wire(): void {
  controls.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  controls.form.addEventListener('input', (event) => {
    const target = event.target as HTMLElement;
    if (target === controls.timeZone) state.zoneTouched = true;
    if (target === controls.firstDay || target === controls.lastDay) leavePreset();
    const preset = chosenPreset();
    if (target.id === 'preset' || (target === controls.timeZone && preset)) {
      if (preset) applyPreset(preset);
    }
    if (target === controls.token) {
      sessionStorage.setItem(TOKEN_KEY, controls.token.value);
      return;
    }
    refreshRequest();
  });
  controls.form.addEventListener('change', (event) => {
    const target = event.target as HTMLElement;
    if (target === controls.source) fillCollectionChoices(controls.source.value as Collection);
    if (target.closest('#location-list') && !state.zoneTouched) {
      controls.timeZone.value = locationZone() ?? controls.timeZone.value;
      const preset = chosenPreset();
      if (preset) applyPreset(preset);
    }
    if (target === controls.token) {
      void loadLocations();
      return;
    }
    if ((target as HTMLInputElement).name === 'kind') {
      const report = state.answer && currentReport(chartKind());
      if (report && reportInUrl()) history.replaceState(null, '', toQuery({ view: 'report', report }));
      return draw();
    }
    refreshRequest();
  });
  controls.download.addEventListener('click', () => void downloadCsv());
  byId('copy-curl').addEventListener('click', () => void copyCurl());
  byId('copy-link').addEventListener('click', () => void copyLink(byId('link-status')));
  byId('download-png').addEventListener('click', () => void downloadPng());
  window.addEventListener('popstate', () => {
    const linked = reportInUrl();
    if (!linked) return;
    applyReport(linked);
    void run({ push: false });
  });
  liveLocation.addEventListener('change', () => {
    const chosen = liveLocation.selectedOptions[0];
    live.show(liveLocation.value, chosen?.dataset.timezone ?? 'UTC');
  });
}

initControls();
initPresets();
controls.interval.value = '1h';
controls.breakdown.value = 'label';
controls.token.value = initialToken();
wire();
void start();

/** The development token the local server filled in, else the sign-in (lib/sign-in.ts), else a pasted token. */
async function start(): Promise<void> {
  if (!document.querySelector<HTMLMetaElement>('meta[name="lrs-token"]')?.content) {
    try {
      const config = await findSignIn();
      if (config) {
        auth = await import('./auth');
        await auth.startSignIn(config, {
          onSignedIn: () => void loadLocations(),
          onSignedOut: (message) => void (controls.locationList.textContent = message),
        });
        controls.token.value = '';
        return void ((controls.token.closest('.field') as HTMLElement).hidden = true);
      }
    } catch (e) {
      return showProblem(
        {
          summary: `The sign-in could not start: ${e instanceof Error ? e.message : String(e)}`,
          atControls: new Map(),
        },
        false,
      );
    }
  }
  if (controls.token.value) void loadLocations();
  else
    showProblem(
      { summary: 'Paste a bearer token to start.', atControls: new Map([['token', ['is required']]]) },
      false,
    );
}
