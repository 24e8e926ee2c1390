import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { chromiumPath, launchChromium, noChromium } from '../../bin/dev/chromium';
import {
  api,
  axeViolations,
  env,
  type Json,
  keyTo,
  legend,
  num,
  openPage,
  pixelsOf,
  run,
  shot,
  shownRequest,
  table,
} from './support/explorer-page';
import { startLocalService } from '../../bin/dev/local-service';

/**
 * The report explorer in a real headless Chromium against `npm start`'s own server with its seeded data
 * (30 days, 3 locations). What the page shows is checked against the API's answer fetched directly
 * with the token the server prints. REPORT_TERMS_CAP=30 makes a breakdown by parking spot (40 spots
 * per lot) a truncated one. Set EXPLORER_SCREENSHOTS_DIR=docs to refresh the README's screenshots.
 */
const executablePath = chromiumPath();
if (!executablePath) console.warn(`Browser tests skipped: ${noChromium()}.`);
const describeInBrowser = executablePath
  ? describe
  : (name: string, fn: () => void) => describe.skip(`${name} (skipped: ${noChromium()})`, fn);
const TERMS_CAP = 30;

beforeAll(async () => {
  if (!executablePath) return;
  [env.service, env.browser] = await Promise.all([
    startLocalService({ REPORT_TERMS_CAP: String(TERMS_CAP) }),
    launchChromium(executablePath),
  ]);
}, 240_000);

afterAll(async () => {
  await env.browser?.close();
  await env.service?.stop();
});

describeInBrowser('the report explorer in Chromium', () => {
  // Seven whole days in Berlin, up to yesterday: every label occurs on each of them.
  const today = DateTime.now().setZone('Europe/Berlin').startOf('day');
  const first = today.minus({ days: 7 });
  const iso = (d: DateTime) => d.toISO({ suppressMilliseconds: true }) as string;
  const dailyByLabel = {
    source: 'movementEvents',
    locationIds: ['berlin-mall'],
    filters: [{ type: 'range', field: 'timestamp', from: iso(first), to: iso(today) }],
    aggregations: [
      { type: 'dateHistogram', interval: '1d', timeZone: 'Europe/Berlin' },
      { type: 'terms', field: 'label' },
    ],
  };

  let page: Page;
  let problems: string[];
  let answer: Json[];
  let csv: string;

  beforeAll(async () => {
    ({ page, problems } = await openPage());
    const direct = await api(dailyByLabel);
    expect(direct.status).toBe(200);
    answer = JSON.parse(direct.text) as Json[];
    csv = (await api(dailyByLabel, 'text/csv')).text;
  });
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  test('starts with the development token filled in, the first location checked and its time zone', async () => {
    expect(await page.inputValue('#token')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(
      await page.$$eval('#location-list input', (boxes) =>
        boxes.map((b) => [(b as HTMLInputElement).value, (b as HTMLInputElement).checked]),
      ),
    ).toEqual([
      ['berlin-mall', true],
      ['nyc-garage', false],
      ['tokyo-station', false],
    ]);
    expect(await page.inputValue('#timeZone')).toBe('Europe/Berlin');
    // The zone follows the locations until one is typed.
    await page.uncheck('#location-0');
    await page.check('#location-1');
    expect(await page.inputValue('#timeZone')).toBe('America/New_York');
    await page.uncheck('#location-1');
    await page.check('#location-0');
    expect(await page.inputValue('#timeZone')).toBe('Europe/Berlin');
  });

  test('builds the report request from the controls and shows it', async () => {
    await page.fill('#firstDay', first.toISODate() as string);
    await page.fill('#lastDay', today.minus({ days: 1 }).toISODate() as string);
    await page.fill('#interval', '1d');
    await page.selectOption('#breakdown', 'label');
    expect(await shownRequest(page)).toEqual(dailyByLabel);
  });

  test('draws the API’s answer: a legend entry and a line per series, the values at the cursor, a table of the same numbers', async () => {
    await run(page);
    const names = (csv.split('\r\n')[0] as string).split(',').slice(2); // timestamp, localTime
    expect(names).toEqual(['bicycle', 'car', 'person', 'truck']);
    expect(answer).toHaveLength(7);

    const entries = await legend(page);
    expect(entries.map((e) => e.name)).toEqual(names);
    expect(
      (
        await pixelsOf(
          page,
          entries.map((e) => e.color),
        )
      ).every((n) => n > 20),
    ).toBe(true);

    const valuesAt = (i: number) =>
      Object.fromEntries(names.map((n) => [n, (answer[i]![n] as number | undefined) ?? 0]));
    // The bucket on Berlin's clock, written as the browser (en-US) writes a date and time.
    const at = (d: DateTime) =>
      `${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(d.toMillis())} (Europe/Berlin)`.replace(
        /\s/g,
        ' ',
      );
    const home = await keyTo(page, 'Home');
    expect({ ...home, cursor: home.cursor.replace(/\s/g, ' ') }).toEqual({ cursor: at(first), values: valuesAt(0) });
    expect((await keyTo(page, 'ArrowRight')).values).toEqual(valuesAt(1));
    const end = await keyTo(page, 'End');
    expect({ ...end, cursor: end.cursor.replace(/\s/g, ' ') }).toEqual({
      cursor: at(today.minus({ days: 1 })),
      values: valuesAt(6),
    });

    const { header, rows } = await table(page);
    expect(header).toEqual(['Bucket start (Europe/Berlin)', ...names]);
    expect(rows.map(([t, ...cells]) => [t, ...cells.map(num)])).toEqual(
      answer.map((bucket) => [bucket.timestamp, ...names.map((n) => (bucket[n] as number | undefined) ?? 0)]),
    );
    await shot(page, 'lines');
  });

  test('hides and shows a series from its legend entry', async () => {
    const [bicycle] = await legend(page);
    await page.click('#legend li:first-child button');
    expect((await legend(page))[0]!.pressed).toBe('false');
    expect(await pixelsOf(page, [bicycle!.color])).toEqual([0]);
    await page.click('#legend li:first-child button');
    expect((await pixelsOf(page, [bicycle!.color]))[0]).toBeGreaterThan(20);
  });

  test('stacks the series as bars, the legend still giving each series its own value', async () => {
    await page.check('#kind-stacked');
    const entries = await legend(page);
    expect(
      (
        await pixelsOf(
          page,
          entries.map((e) => e.color),
        )
      ).every((n) => n > 20),
    ).toBe(true);
    const { values } = await keyTo(page, 'Home');
    expect(values).toEqual(
      Object.fromEntries(entries.map((e) => [e.name, (answer[0]![e.name] as number | undefined) ?? 0])),
    );
    await shot(page, 'stacked');
    // Hiding the bottom series stacks the others again: each keeps its own height (car against person),
    // rather than stretching down over the hidden one.
    const [, carBefore, personBefore] = await pixelsOf(
      page,
      entries.map((e) => e.color),
    );
    await page.click('#legend li:first-child button');
    const [bicycleAfter, carAfter, personAfter] = await pixelsOf(
      page,
      entries.map((e) => e.color),
    );
    expect(bicycleAfter).toBe(0);
    expect(carAfter! / personAfter!).toBeCloseTo(carBefore! / personBefore!, 1);
    await page.click('#legend li:first-child button');
    await page.check('#kind-lines');
  });

  test('downloads the API’s CSV of the report', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    expect(download.suggestedFilename()).toBe(
      `report-movementEvents-${first.toISODate()}-to-${today.minus({ days: 1 }).toISODate()}.csv`,
    );
    const body = readFileSync((await download.path()) as string, 'utf8');
    expect(body).toBe(csv);
    expect(body.split('\r\n')).toHaveLength(1 + 7 + 1);
    // Beside each UTC start, the Berlin day it begins, on Berlin's clock with its offset.
    const rows = body
      .split('\r\n')
      .slice(1, -1)
      .map((r) => r.split(','));
    expect(rows.map((r) => [r[0], r[1]])).toEqual(
      Array.from({ length: 7 }, (_, i) => [first.plus({ days: i }).toUTC().toISO(), iso(first.plus({ days: i }))]),
    );
  });

  test('shows the request as a curl command that answers the same when run as shown, and copies it', async () => {
    const command = (await page.textContent('#curl')) as string;
    expect(command).not.toContain(env.service.token);
    const output = execFileSync('bash', ['-c', command], {
      env: { ...process.env, TOKEN: env.service.token },
    }).toString();
    expect(JSON.parse(output)).toEqual(answer);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.service.url });
    await page.click('#copy-curl');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
  });

  test('draws an answer without a time axis as bars, with the same numbers in the table', async () => {
    await page.uncheck('#overTime');
    const request = await shownRequest(page);
    expect(request.aggregations).toEqual([{ type: 'terms', field: 'label' }]);
    const direct = JSON.parse((await api(request)).text) as Record<string, number>;
    await run(page);
    const { header, rows } = await table(page);
    expect(header).toEqual(['Series', 'Value']);
    expect(rows.map(([name, value]) => [name, num(value as string)])).toEqual(Object.entries(direct));
    expect(Object.values(direct).reduce((a, b) => a + b)).toBe(
      answer.reduce(
        (sum, b) => sum + Object.entries(b).reduce((s, [k, v]) => s + (k === 'timestamp' ? 0 : (v as number)), 0),
        0,
      ),
    );
    const first = Object.keys(direct)[0] as string;
    expect(await keyTo(page, 'Home')).toEqual({ cursor: first, values: { value: direct[first] } });
    await shot(page, 'totals');
    await page.check('#overTime');
  });

  test('shows a 400 next to the field its pointer names, with the problem’s detail, and clears it once fixed', async () => {
    await page.fill('#interval', '7x');
    const direct = await api(await shownRequest(page));
    expect(direct.status).toBe(400);
    const problem = JSON.parse(direct.text) as { detail: string; errors: { path: string; message: string }[] };
    expect(problem.errors.map((e) => e.path)).toEqual(['/aggregations/0/interval']);

    await run(page);
    expect(await page.getAttribute('#interval', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#interval-error')).toBe(problem.errors[0]!.message);
    expect(await page.isVisible('#interval-error')).toBe(true);
    expect(await page.textContent('#form-error')).toBe(`Invalid request: ${problem.detail}`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('interval');
    expect(await page.$$eval('.error:not([hidden])', (els) => els.map((e) => e.id))).toEqual([
      'interval-error',
      'form-error',
    ]);
    await shot(page, 'error');

    await page.fill('#interval', '1d');
    await run(page);
    expect(await page.getAttribute('#interval', 'aria-invalid')).toBeNull();
    expect(await page.$$eval('.error:not([hidden])', (els) => els.length)).toBe(0);
  });

  test('offers splitInterval auto for a long range, and runs it', async () => {
    // 200 days of 15-minute buckets: about 19,200 (one more hour at the end of summer time), more than
    // one auto slice (16,384).
    const start = today.minus({ days: 200 });
    const buckets = today.diff(start, 'minutes').minutes / 15;
    await page.fill('#firstDay', start.toISODate() as string);
    await page.fill('#interval', '15m');
    expect(await page.isVisible('#split')).toBe(true);
    expect(await page.textContent('#split-hint')).toContain(`About ${buckets.toLocaleString('en-US')} buckets`);
    await page.check('#split');
    const request = await shownRequest(page);
    expect(request.splitInterval).toBe('auto');
    const direct = JSON.parse((await api(request)).text) as Json[];
    await run(page);
    const { rows } = await table(page);
    expect(direct.length).toBe(buckets);
    expect(rows).toHaveLength(1000);
    expect(await page.textContent('#table-caption')).toBe(
      `The first 1,000 of ${buckets.toLocaleString('en-US')} buckets; the CSV download has all of them.`,
    );
    expect(rows[0]![0]).toBe(direct[0]!.timestamp);
  });

  test('puts a 422 for too many buckets at the split option, whose detail suggests it', async () => {
    // 60 days of minutes: 86,400 buckets, over the local engine's 65,535.
    await page.fill('#firstDay', today.minus({ days: 60 }).toISODate() as string);
    await page.fill('#interval', '1m');
    await page.uncheck('#split');
    const direct = await api(await shownRequest(page));
    expect(direct.status).toBe(422);
    await run(page);
    expect(await page.textContent('#split-error')).toBe((JSON.parse(direct.text) as { detail: string }).detail);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('split');
  });

  test('flags a truncated answer (X-Report-Truncated) and shows the kept values', async () => {
    await page.uncheck('#overTime');
    await page.fill('#firstDay', first.toISODate() as string);
    await page.selectOption('#source', 'parkingEvents');
    await page.selectOption('#breakdown', 'spotId');
    const direct = await api(await shownRequest(page));
    expect(direct.headers.get('x-report-truncated')).toBe('true');
    await run(page);
    expect(await page.isVisible('#truncated')).toBe(true);
    const { rows } = await table(page);
    // 40 spots per lot, the 30 smallest keys kept.
    expect(rows.map(([name]) => name)).toEqual(
      Array.from({ length: TERMS_CAP }, (_, i) => `spot-${String(i + 1).padStart(2, '0')}`),
    );
    expect(rows.map(([name, value]) => [name, num(value as string)])).toEqual(
      Object.entries(JSON.parse(direct.text) as Json),
    );
  });

  test('passes axe’s accessibility rules (labels, names, contrast, landmarks)', async () => {
    expect(await axeViolations(page)).toEqual([]);
  });
});

describeInBrowser('the report explorer by keyboard and on a narrow screen', () => {
  test('runs a report with the keyboard alone, every stop showing a visible focus ring', async () => {
    const { page, context, problems } = await openPage();
    await page.focus('#token');
    const stops: { id: string; outline: string }[] = [];
    for (let i = 0; i < 40; i++) {
      const stop = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { id: el.id, outline: `${style.outlineStyle} ${style.outlineWidth}` };
      });
      stops.push(stop);
      if (stop.id === 'run') break;
      await page.keyboard.press('Tab');
    }
    expect(stops.map((s) => s.id)).toEqual(
      expect.arrayContaining([
        'token',
        'location-0',
        'source',
        'timeZone',
        'firstDay',
        'lastDay',
        'overTime',
        'interval',
        'breakdown',
        'statsField',
        'kind-lines',
        'run',
      ]),
    );
    expect(stops.filter((s) => s.outline !== 'solid 3px')).toEqual([]);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#chart canvas');
    expect(await page.textContent('#result-status')).toMatch(
      /^Answered in [\d,]+ ms: 168 buckets × 4 series\.( \d+ buckets? starts? after now and (is|are) left empty, not drawn as 0\.)?$/,
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  test('fits a 360 px wide screen without scrolling sideways', async () => {
    const { page, context, problems } = await openPage({ width: 360, height: 780 });
    await page.selectOption('#breakdown', 'label');
    await run(page);
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    const sticking = await page.$$eval('input, select, button, canvas, #legend, #live', (els) =>
      els
        .filter(
          (e) => !(e as HTMLElement).closest('[hidden]') && e.getBoundingClientRect().right > window.innerWidth + 0.5,
        )
        .map((e) => e.id || e.tagName),
    );
    expect(sticking).toEqual([]);
    await shot(page, 'narrow');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describeInBrowser('median and percentiles in the explorer', () => {
  test('asks for the median and percentiles of a number field and shows the API’s values in the table', async () => {
    const { page, context, problems } = await openPage();
    await page.uncheck('#overTime');
    await page.selectOption('#source', 'parkingEvents');
    await page.selectOption('#breakdown', 'parkingLotId');
    await page.selectOption('#statsField', 'duration');
    await page.uncheck('#stat-avg');
    await page.check('#stat-median');
    await page.fill('#percentiles', '90, 99.5');
    const request = await shownRequest(page);
    expect((request.aggregations as Json[]).at(-1)).toEqual({
      type: 'stats',
      field: 'duration',
      min: false,
      max: false,
      avg: false,
      sum: false,
      count: false,
      median: true,
      percentiles: [90, 99.5],
    });
    const direct = JSON.parse((await api(request)).text) as Record<string, number>;
    expect(Object.keys(direct)).toEqual(
      expect.arrayContaining(['berlin-mall-lot-1 median', 'berlin-mall-lot-1 p90', 'berlin-mall-lot-1 p99.5']),
    );
    await run(page);
    const { rows } = await table(page);
    // The table rounds to 3 decimals, as every value it shows.
    expect(rows.map(([name, value]) => [name, num(value as string)])).toEqual(
      Object.entries(direct).map(([k, v]) => [k, Math.round(v * 1000) / 1000]),
    );
    // A percent out of range is caught before asking.
    await page.fill('#percentiles', '90, 120');
    await run(page);
    expect(await page.textContent('#percentiles-error')).toBe(
      'must be numbers from 0 to 100, separated by commas (e.g. 90, 99.9)',
    );
    expect(problems).toEqual([]);
    await context.close();
  });
});

describeInBrowser('live occupancy in the explorer', () => {
  test('shows each open sensor group’s occupancy from the API and asks again when the answer’s max-age runs out', async () => {
    const { page, context, problems, responses } = await openPage({ clock: true });
    const asked = () =>
      responses.filter((r) => r.url.endsWith('/locations/berlin-mall/insights/live?filter=occupancy'));
    await page.waitForSelector('#live-status:not(:empty)');
    const direct = (await (
      await fetch(`${env.service.url}/locations/berlin-mall/insights/live?filter=occupancy`, {
        headers: { authorization: `Bearer ${env.service.token}` },
      })
    ).json()) as {
      insights: { occupancy: { sensorGroup: { name: string }; occupancy: number }[] };
    };
    const shown = await page.$$eval('#live-body li', (items) =>
      items.map((li) => [li.querySelector('.name')?.textContent, Number(li.querySelector('.count')?.textContent)]),
    );
    expect(shown).toEqual(direct.insights.occupancy.map((g) => [g.sensorGroup.name, g.occupancy]));
    // The parking deck is open around the clock.
    expect(shown.map(([name]) => name)).toContain('Parking deck');

    // The service says how long its answer stays current: until just after its next 5-minute refresh.
    expect(asked()).toHaveLength(1);
    const maxAge = Number(/max-age=(\d+)/.exec(asked()[0]!.cacheControl)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(360);
    // Never sooner than 5 s, even right at a refresh.
    const delay = Math.max(5, maxAge) * 1000;
    await page.clock.fastForward(delay - 2000);
    expect(asked()).toHaveLength(1);
    await page.clock.fastForward(4000);
    for (let waited = 0; asked().length === 1 && waited < 10_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
    expect(asked()).toHaveLength(2);
    expect(problems).toEqual([]);
    await context.close();
  });
});
