import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumPath, launchChromium, noChromium } from '../../../bin/dev/chromium';
import { startLocalService, type LocalService } from '../../../bin/dev/local-service';

/**
 * What the browser tests share: the service and browser of the running file (set in its beforeAll), the
 * API called directly, a fresh page, and readers of what the page shows.
 */
export const env = {} as { service: LocalService; browser: Browser };

/**
 * Starts `npm start`'s seeded server and the system's Chromium for the file (into `env`), stops them
 * after it, and answers its `describe`: skipped, saying why, where there is no Chromium.
 */
export function seededExplorer(): (name: string, fn: () => void) => void {
  const executablePath = chromiumPath();
  beforeAll(async () => {
    if (!executablePath) return;
    [env.service, env.browser] = await Promise.all([startLocalService(), launchChromium(executablePath)]);
  }, 240_000);
  afterAll(async () => {
    await env.browser?.close();
    await env.service?.stop();
  });
  return executablePath ? describe : (name, fn) => describe.skip(`${name} (skipped: ${noChromium()})`, fn);
}

const SHOTS = process.env.EXPLORER_SCREENSHOTS_DIR;

export type Json = Record<string, unknown>;

/** The API called directly, as any client would. */
export async function api(
  body: unknown,
  accept = 'application/json',
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${env.service.url}/reports:query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.service.token}`, 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export const num = (text: string): number => Number(text.replace(/,/g, ''));

/** Every page gets a fresh context; CSP violations and script errors fail the test that caused them. */
export async function openPage(
  options: {
    width?: number;
    height?: number;
    clock?: boolean;
    query?: string;
    wait?: boolean;
    locale?: string;
    timezoneId?: string;
  } = {},
): Promise<{
  page: Page;
  context: BrowserContext;
  problems: string[];
  responses: { url: string; cacheControl: string }[];
}> {
  const context = await env.browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    locale: options.locale ?? 'en-US',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const responses: { url: string; cacheControl: string }[] = [];
  page.on('response', (r) => responses.push({ url: r.url(), cacheControl: r.headers()['cache-control'] ?? '' }));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  // A paused clock: the page's timers fire only when the test moves time on.
  if (options.clock) await page.clock.pauseAt(Date.now() + 1000);
  await page.goto(`${env.service.url}/${options.query ?? '?view=report'}`);
  if (options.wait !== false) await page.waitForSelector('#location-list input');
  return { page, context, problems, responses };
}

/**
 * Writes a screenshot for the docs when EXPLORER_SCREENSHOTS_DIR is set: the whole page, or (`fullPage: false`) what a
 * screen shows first.
 */
export const shot = async (page: Page, name: string, options: { fullPage?: boolean } = {}) => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `explorer-${name}.png`), fullPage: options.fullPage ?? true });
};

export const shownRequest = async (page: Page): Promise<Json> =>
  JSON.parse((await page.textContent('#request-json')) as string) as Json;

export async function run(page: Page): Promise<void> {
  await page.click('#run');
  await page.waitForFunction(
    () =>
      document.querySelector('#result')?.getAttribute('aria-busy') !== 'true' &&
      !/Running/.test(document.querySelector('#result-status')?.textContent ?? ''),
  );
}

export const legend = (page: Page) =>
  page.$$eval('#legend li', (items) =>
    items.map((li) => ({
      name: li.querySelector('.name')?.textContent ?? '',
      value: li.querySelector('.value')?.textContent ?? '',
      color: getComputedStyle(li.querySelector('.swatch') as HTMLElement).backgroundColor,
      pressed: li.querySelector('button')?.getAttribute('aria-pressed'),
    })),
  );

export const table = (page: Page, selector = '#table') =>
  page.$eval(selector, (t) => ({
    header: [...t.querySelectorAll('thead th')].map((th) => th.textContent ?? ''),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => [
      tr.querySelector('th time')?.getAttribute('datetime') ?? tr.querySelector('th')?.textContent ?? '',
      ...[...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
    ]),
  }));

/** How many chart pixels have each legend colour: a series that is drawn has some. */
export const pixelsOf = (page: Page, colors: readonly string[]) =>
  page.$eval(
    '#chart canvas',
    (canvas, rgbs) => {
      const { data } = (canvas as HTMLCanvasElement)
        .getContext('2d')!
        .getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height);
      const targets = rgbs.map((c) => (c.match(/\d+/g) as string[]).map(Number));
      const counts = targets.map(() => 0);
      for (let i = 0; i < data.length; i += 4) {
        targets.forEach((t, k) => {
          if (
            Math.abs(data[i]! - t[0]!) < 24 &&
            Math.abs(data[i + 1]! - t[1]!) < 24 &&
            Math.abs(data[i + 2]! - t[2]!) < 24 &&
            data[i + 3]! > 200
          )
            counts[k]!++;
        });
      }
      return counts;
    },
    colors,
  );

/** Moves the chart's cursor with the keyboard and reads the cursor line and the legend's values. */
export async function keyTo(page: Page, key: string): Promise<{ cursor: string; values: Record<string, number> }> {
  await page.focus('#chart');
  await page.keyboard.press(key);
  const items = await legend(page);
  return {
    cursor: (await page.textContent('#cursor')) as string,
    values: Object.fromEntries(items.map((i) => [i.name, num(i.value)])),
  };
}

/** The API's GET answer, as any client would ask it. */
export const getJson = async <T = Json>(path: string): Promise<T> =>
  (await (
    await fetch(`${env.service.url}${path}`, { headers: { authorization: `Bearer ${env.service.token}` } })
  ).json()) as T;

/**
 * Every table of the visible view fits its box: nothing cut off at the side or below, no scrolling inside it (details
 * opened first).
 */
export const clippedTables = async (page: Page): Promise<string[]> => {
  await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  return page.$$eval('.table-wrap', (wraps) =>
    wraps
      .filter((w) => (w as HTMLElement).offsetParent !== null)
      .flatMap((w) => {
        const where = w.closest('section')?.id ?? '?';
        return [
          ...(w.scrollWidth > w.clientWidth + 1 ? [`${where}: ${w.scrollWidth} > ${w.clientWidth} wide`] : []),
          ...(w.scrollHeight > w.clientHeight + 1 ? [`${where}: ${w.scrollHeight} > ${w.clientHeight} high`] : []),
        ];
      }),
  );
};

/** axe-core's WCAG 2.2 AA and best-practice rules on the page as it is. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run: (c: unknown, o: unknown) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
