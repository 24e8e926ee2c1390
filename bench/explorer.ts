import { loadavg } from 'node:os';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { startLocalService } from '../bin/dev/local-service';
import { chromiumPath, launchChromium, noChromium } from '../bin/dev/chromium';
import { buildExplorer } from '../web/build';
import { manySites } from './overview-data';
import { machine, median } from './stats';

/**
 * `npm run bench -- explorer` (issues 25 and 34): the explorer's bundle sizes; on `npm start`'s seeded
 * data in headless Chromium the dashboard's load (DOMContentLoaded), its first chart and all its
 * panels, the builder's first chart from a link, and what the dashboard asks (requests and bytes);
 * then every site at a glance over 500 locations: the overview answer against the per-location calls
 * it replaces, and the table drawn after the answer arrives. Baselines in the same run: the API
 * requests the page made, sent again from Node in parallel (what any client pays).
 */
const RUNS = 9;
const SITES = 500;
/** `npm start` seeds three sites before the benchmark's are imported. */
const SEEDED_SITES = 3;
const EVENTS_PER_SITE_AND_DAY = 60;

interface Timing {
  readonly loaded: number;
  readonly firstChart: number;
  readonly done: number;
}

interface Call {
  readonly url: string;
  readonly method: string;
  readonly body: string | null;
  readonly headers: Record<string, string>;
}

/**
 * Every request a page made until it was ready and the network idle: by kind, and the bytes both ways (headers and
 * bodies as sent).
 */
export interface Traffic {
  readonly requests: number;
  readonly byKind: Record<string, number>;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

const DASHBOARD_READY = `['dash-occupancy','dash-entries','dash-week','dash-busiest'].every((id) => !document.getElementById(id).hasAttribute('aria-busy') && ((document.getElementById(id).querySelector('.panel-status')?.textContent ?? '') !== '' || document.getElementById(id).querySelector('.empty')))`;

/**
 * What the dashboard at `url` asks, counted by Chromium; `url` may be another build's server (the figures before a
 * change).
 */
export async function pageTraffic(browser: Browser, url: string, ready = DASHBOARD_READY): Promise<Traffic> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  const sizes: Promise<{ kind: string; in: number; out: number }>[] = [];
  page.on('requestfinished', (r) =>
    sizes.push(
      r.sizes().then((s) => ({
        kind: r.resourceType(),
        in: s.responseHeadersSize + s.responseBodySize,
        out: s.requestHeadersSize + s.requestBodySize,
      })),
    ),
  );
  await page.goto(url);
  await page.waitForFunction(ready);
  await page.waitForLoadState('networkidle');
  const all = await Promise.all(sizes);
  await context.close();
  const byKind: Record<string, number> = {};
  for (const s of all) byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
  return {
    requests: all.length,
    byKind,
    bytesIn: all.reduce((a, s) => a + s.in, 0),
    bytesOut: all.reduce((a, s) => a + s.out, 0),
  };
}

const SITES_DRAWN = `document.getElementById('sites-table').dataset.drawnMs !== undefined`;

/**
 * One load of every site at a glance: the table's own drawn time (answer to painted, wall clock) and the page's
 * main-thread CPU, navigation to drawn.
 */
interface SitesLoad {
  readonly rows: number;
  readonly drawnMs: number;
  /**
   * Chromium's main-thread task time in thread ticks (CPU, not wall clock: what a busy machine's other work does not
   * inflate).
   */
  readonly cpuMs: number;
  readonly layoutMs: number;
}

async function loadSites(browser: Browser, url: string): Promise<SitesLoad> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    const metrics = async () =>
      Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const before = await metrics();
    await page.goto(`${url}/?view=sites`);
    await page.waitForFunction(SITES_DRAWN);
    const after = await metrics();
    const ms = (k: string) => ((after[k] ?? 0) - (before[k] ?? 0)) * 1000;
    return {
      rows: (await page.evaluate(`document.querySelectorAll('#sites-table tbody tr').length`)) as number,
      drawnMs: Number(await page.evaluate(`document.getElementById('sites-table').dataset.drawnMs`)),
      cpuMs: ms('TaskDuration'),
      layoutMs: ms('LayoutDuration') + ms('RecalcStyleDuration'),
    };
  } finally {
    await context.close();
  }
}

/** The few sites of `npm start`'s seeded data (benchPages), against which the 500 are set. */
let fewSites: SitesLoad[] = [];

export const describeTraffic = (t: Traffic): string =>
  `${t.requests} requests (${Object.entries(t.byKind)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}), ${(t.bytesIn / 1000).toFixed(1)} kB in, ${(t.bytesOut / 1000).toFixed(1)} kB out`;

export async function benchExplorer(): Promise<void> {
  const sizes = buildExplorer()
    .filter((f) => !f.path.endsWith('.map') && !f.path.endsWith('.txt'))
    .map(
      (f) =>
        `${f.path.replace(/-[A-Z0-9]{8}\./, '.')}: ${(f.body.length / 1000).toFixed(1)} kB (${(gzipSync(f.body).length / 1000).toFixed(1)} kB gzip)`,
    );
  console.log(`bundle: ${sizes.join('; ')}`);
  const executablePath = chromiumPath();
  if (!executablePath) return console.log(`explorer timing skipped: ${noChromium()}`);
  const browser = await launchChromium(executablePath);
  try {
    await benchPages(browser);
    await benchOverview(browser);
  } finally {
    await browser.close();
  }
}

async function benchPages(browser: Browser): Promise<void> {
  const before = loadavg()[0]?.toFixed(1);
  const service = await startLocalService();
  try {
    const measure = async (query: string, ready: string): Promise<{ timing: Timing; calls: Call[] }> => {
      // bypassCSP: the readiness checks are page code given as text (the page's CSP refuses eval).
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      const calls: Call[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'fetch')
          calls.push({ url: r.url(), method: r.method(), body: r.postData(), headers: r.headers() });
      });
      // Marks the first canvas drawn, from inside the page, on its own clock.
      await page.addInitScript(`new MutationObserver((_, observer) => {
        if (document.querySelector('.chart canvas')) { window.firstChart = performance.now(); observer.disconnect(); }
      }).observe(document, { childList: true, subtree: true });`);
      await page.goto(`${service.url}/${query}`);
      await page.waitForFunction(ready);
      // Page code as text: this file is compiled without the DOM's types.
      const timing = (await page.evaluate(
        `({ loaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd, firstChart: window.firstChart, done: performance.now() })`,
      )) as Timing;
      await context.close();
      return { timing, calls };
    };
    const pages = {
      dashboard: ['?view=dashboard&location=berlin-mall', DASHBOARD_READY],
      'builder from a link': [
        '?view=report&locations=berlin-mall&source=movementEvents&preset=last7&tz=Europe%2FBerlin&overTime=1&interval=1h&by=label',
        `document.querySelector('#table tbody tr') !== null`,
      ],
    } as const;
    for (const [name, [query, ready]] of Object.entries(pages)) {
      await measure(query, ready); // warm-up: the server's caches and the browser's compile
      const timings: Timing[] = [];
      const api: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const { timing, calls } = await measure(query, ready);
        timings.push(timing);
        api.push(await replay(calls.filter((c) => !c.url.endsWith('/locations'))));
      }
      const m = (k: keyof Timing) => median(timings.map((t) => t[k]));
      const apiMs = median(api);
      console.log(
        `${name}: DOMContentLoaded ${m('loaded').toFixed(0)} ms, first chart ${m('firstChart').toFixed(0)} ms, all drawn ${m('done').toFixed(0)} ms; its API calls from Node in parallel ${apiMs.toFixed(0)} ms; (all drawn − loaded) ÷ API ${((m('done') - m('loaded')) / apiMs).toFixed(2)}×`,
      );
    }
    const dashboard = '/?view=dashboard&location=berlin-mall';
    console.log(`dashboard traffic: ${describeTraffic(await pageTraffic(browser, `${service.url}${dashboard}`))}`);
    // The same count on another build's `npm start` (BENCH_EXPLORER_BEFORE=http://127.0.0.1:3999): the figures before a
    // change.
    const otherBuild = process.env.BENCH_EXPLORER_BEFORE;
    if (otherBuild)
      console.log(
        `dashboard traffic on ${otherBuild}: ${describeTraffic(await pageTraffic(browser, `${otherBuild.replace(/\/$/, '')}${dashboard}`))}`,
      );
    await loadSites(browser, service.url);
    fewSites = [];
    for (let i = 0; i < 5; i++) fewSites.push(await loadSites(browser, service.url));
    console.log(
      `median of ${RUNS} fresh tabs after one warm-up; ${await machine()}; load average ${before} before, ${loadavg()[0]?.toFixed(1)} after`,
    );
  } finally {
    await service.stop();
  }
}

async function replay(calls: readonly Call[], concurrency = calls.length): Promise<number> {
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const c = calls[next++]!;
      await fetch(c.url, { method: c.method, headers: c.headers, body: c.body ?? undefined }).then((r) =>
        r.arrayBuffer(),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, calls.length)) }, worker));
  return performance.now() - start;
}

/**
 * Every site at a glance over 500 locations in ten zones: `GET /insights/overview` against what a
 * page without it would ask per location (its live answer and one report of today's and last week's
 * counts so far: 1,000 requests, six at a time as a browser sends them to one host), alternating,
 * median of 5; then the page (`?view=sites`) in Chromium: its requests, and the time from the answer's
 * arrival to the table drawn (the frame after it was laid out), median of 5 fresh tabs.
 */
async function benchOverview(browser: Browser): Promise<void> {
  const before = loadavg()[0]?.toFixed(1);
  const sites = await manySites(SITES, EVENTS_PER_SITE_AND_DAY);
  try {
    const { url, token } = sites.service;
    const auth = { authorization: `Bearer ${token}` };
    const overviewCall: Call = { url: `${url}/insights/overview`, method: 'GET', body: null, headers: auth };
    const perLocation = (): Call[] => {
      const now = new Date().toISOString();
      const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
      const weekAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
      const range = (from: string, to: string) => ({ type: 'range', field: 'timestamp', from, to });
      return sites.ids.flatMap((id) => [
        { url: `${url}/locations/${id}/insights/live?filter=occupancy`, method: 'GET', body: null, headers: auth },
        {
          url: `${url}/reports:query`,
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            source: 'movementEvents',
            locationIds: [id],
            filters: [range(weekAgo, now)],
            aggregations: [
              { type: 'filters', filters: { today: range(dayAgo, now), lastWeek: range(weekAgo, dayAgo) } },
            ],
          }),
        },
      ]);
    };
    await replay([overviewCall]);
    await replay(perLocation(), 6);
    const one: number[] = [];
    const many: number[] = [];
    for (let i = 0; i < 5; i++) {
      one.push(await replay([overviewCall]));
      many.push(await replay(perLocation(), 6));
    }
    // fetch decompresses: the size as sent is brotli's of the body (what the service's br gives, near enough).
    const body = Buffer.from(await (await fetch(overviewCall.url, { headers: auth })).arrayBuffer());
    const bytes = brotliCompressSync(body).length;
    console.log(
      `overview of ${SITES + SEEDED_SITES} sites (${sites.events.toLocaleString('en')} events on the ${SITES}): GET /insights/overview ${median(one).toFixed(0)} ms (1 request, ${(body.length / 1000).toFixed(1)} kB, ${(bytes / 1000).toFixed(1)} kB br); ` +
        `per location, live + a report each, 6 at a time: ${median(many).toFixed(0)} ms (${perLocation().length} requests); ratio ${(median(many) / median(one)).toFixed(1)}×`,
    );
    await loadSites(browser, url); // warm-up
    const loads: SitesLoad[] = [];
    for (let i = 0; i < 5; i++) {
      const load = await loadSites(browser, url);
      if (load.rows !== sites.ids.length + SEEDED_SITES)
        throw new Error(`the overview drew ${load.rows} rows, not ${sites.ids.length + SEEDED_SITES}`);
      loads.push(load);
    }
    const traffic = await pageTraffic(browser, `${url}/?view=sites`, SITES_DRAWN);
    const of = (loads: readonly SitesLoad[], k: keyof SitesLoad) => median(loads.map((l) => l[k])).toFixed(0);
    console.log(
      `overview page: ${SITES + SEEDED_SITES} rows drawn ${of(loads, 'drawnMs')} ms after the answer arrived (wall clock, median of 5, goal ≤ 500 ms); ${describeTraffic(traffic)}`,
    );
    if (fewSites.length > 0) {
      console.log(
        `overview page, main-thread CPU from navigation to drawn (thread ticks, median of 5): ${SITES + SEEDED_SITES} rows ${of(loads, 'cpuMs')} ms (layout and style ${of(loads, 'layoutMs')} ms), ` +
          `${fewSites[0]!.rows} rows ${of(fewSites, 'cpuMs')} ms (layout and style ${of(fewSites, 'layoutMs')} ms): the ${SITES} more rows cost ${(Number(of(loads, 'cpuMs')) - Number(of(fewSites, 'cpuMs'))).toFixed(0)} ms of CPU`,
      );
    }
    console.log(`${await machine()}; load average ${before} before, ${loadavg()[0]?.toFixed(1)} after`);
  } finally {
    await sites.stop();
  }
}
