import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { startLocalService } from '../bin/dev/local-service';
import { chromiumPath, launchChromium, noChromium } from '../bin/dev/chromium';
import { buildExplorer } from '../web/build';
import { machine, median } from './stats';

/**
 * `npm run bench -- explorer` (issue 25): the explorer's bundle sizes, and on `npm start`'s seeded data
 * in headless Chromium the dashboard's load (DOMContentLoaded), its first chart and all its panels, and
 * the builder's first chart from a link. The baseline, in the same run: the API requests the page made,
 * sent again from Node in parallel (what any client pays), so "page ÷ API" is the page's own cost.
 */
const RUNS = 9;

interface Timing {
  readonly loaded: number;
  readonly firstChart: number;
  readonly done: number;
}

export async function benchExplorer(): Promise<void> {
  const sizes = buildExplorer()
    .filter((f) => !f.path.endsWith('.map') && !f.path.endsWith('.txt'))
    .map((f) => `${f.path.replace(/-[A-Z0-9]{8}\./, '.')}: ${(f.body.length / 1000).toFixed(1)} kB (${(gzipSync(f.body).length / 1000).toFixed(1)} kB gzip)`);
  console.log(`bundle: ${sizes.join('; ')}`);
  const executablePath = chromiumPath();
  if (!executablePath) return console.log(`explorer timing skipped: ${noChromium()}`);
  const before = loadavg()[0]?.toFixed(1);
  const [service, browser] = await Promise.all([startLocalService(), launchChromium(executablePath)]);
  try {
    const measure = async (query: string, ready: string): Promise<{ timing: Timing; calls: { url: string; method: string; body: string | null; headers: Record<string, string> }[] }> => {
      // bypassCSP: the readiness checks are page code given as text (the page's CSP refuses eval).
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      const calls: { url: string; method: string; body: string | null; headers: Record<string, string> }[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'fetch') calls.push({ url: r.url(), method: r.method(), body: r.postData(), headers: r.headers() });
      });
      // Marks the first canvas drawn, from inside the page, on its own clock.
      await page.addInitScript(`new MutationObserver((_, observer) => {
        if (document.querySelector('.chart canvas')) { window.firstChart = performance.now(); observer.disconnect(); }
      }).observe(document, { childList: true, subtree: true });`);
      await page.goto(`${service.url}/${query}`);
      await page.waitForFunction(ready);
      // Page code as text: this file is compiled without the DOM's types.
      const timing = (await page.evaluate(`({ loaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd, firstChart: window.firstChart, done: performance.now() })`)) as Timing;
      await context.close();
      return { timing, calls };
    };
    const replay = async (calls: { url: string; method: string; body: string | null; headers: Record<string, string> }[]) => {
      const start = performance.now();
      await Promise.all(calls.map((c) => fetch(c.url, { method: c.method, headers: c.headers, body: c.body ?? undefined }).then((r) => r.arrayBuffer())));
      return performance.now() - start;
    };
    const pages = {
      dashboard: ['?view=dashboard&location=berlin-mall', `['dash-occupancy','dash-entries','dash-week','dash-busiest'].every((id) => !document.getElementById(id).hasAttribute('aria-busy') && (document.getElementById(id).querySelector('.panel-status')?.textContent ?? '') !== '')`],
      'builder from a link': ['?view=report&locations=berlin-mall&source=movementEvents&preset=last7&tz=Europe%2FBerlin&overTime=1&interval=1h&by=label', `document.querySelector('#table tbody tr') !== null`],
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
    console.log(`median of ${RUNS} fresh tabs after one warm-up; ${await machine()}; load average ${before} before, ${loadavg()[0]?.toFixed(1)} after`);
  } finally {
    await browser.close();
    await service.stop();
  }
}
