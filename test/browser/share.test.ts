import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { api, env, type Json, openPage, run, shownRequest, table, seededExplorer } from './support/explorer-page';

/** Presets in the location's zone, the report in the URL (reload, back, forward, a copied link), PNG export. */
const describeInBrowser = seededExplorer();

const iso = (d: DateTime) => d.toISO({ suppressMilliseconds: true }) as string;
const range = async (page: import('playwright-core').Page) => {
  const [filter] = (await shownRequest(page)).filters as { from: string; to: string }[];
  return [filter!.from, filter!.to];
};

describeInBrowser('presets and sharing', () => {
  test('presets count whole days from today in the location’s time zone', async () => {
    const { page, context, problems } = await openPage();
    const berlin = DateTime.now().setZone('Europe/Berlin').startOf('day');
    // The page starts on the last 7 days.
    expect(await page.inputValue('#preset')).toBe('last7');
    expect(await range(page)).toEqual([iso(berlin.minus({ days: 6 })), iso(berlin.plus({ days: 1 }))]);
    await page.selectOption('#preset', 'today');
    expect(await range(page)).toEqual([iso(berlin), iso(berlin.plus({ days: 1 }))]);
    await page.selectOption('#preset', 'lastWeek');
    const monday = berlin.startOf('week');
    expect(await range(page)).toEqual([iso(monday.minus({ weeks: 1 })), iso(monday)]);
    await page.selectOption('#preset', 'lastMonth');
    expect(await range(page)).toEqual([
      iso(berlin.startOf('month').minus({ months: 1 })),
      iso(berlin.startOf('month')),
    ]);
    expect(await page.inputValue('#interval')).toBe('1d');

    // Another location: its own zone's today.
    await page.selectOption('#preset', 'yesterday');
    await page.uncheck('#location-0');
    await page.check('#location-2');
    const tokyo = DateTime.now().setZone('Asia/Tokyo').startOf('day');
    expect(await page.inputValue('#timeZone')).toBe('Asia/Tokyo');
    expect(await range(page)).toEqual([iso(tokyo.minus({ days: 1 })), iso(tokyo)]);

    // A day typed by hand makes it custom.
    await page.fill('#firstDay', tokyo.minus({ days: 3 }).toISODate() as string);
    expect(await page.inputValue('#preset')).toBe('');
    expect(problems).toEqual([]);
    await context.close();
  });

  test('keeps the report in the URL: a reload, back and forward show the same report', async () => {
    const { page, context, problems } = await openPage();
    await page.selectOption('#preset', 'yesterday');
    await page.selectOption('#breakdown', 'label');
    await page.check('#kind-stacked');
    await run(page);
    const first = { url: page.url(), request: await shownRequest(page), table: await table(page) };
    expect(new URL(first.url).searchParams.get('preset')).toBe('yesterday');
    expect(new URL(first.url).searchParams.get('kind')).toBe('stacked');
    // The table is the API's answer to the request shown.
    const direct = JSON.parse((await api(first.request)).text) as Json[];
    expect(first.table.rows.map(([t]) => t)).toEqual(direct.map((b) => b.timestamp));

    await page.reload();
    await page.waitForSelector('#chart canvas');
    expect(await shownRequest(page)).toEqual(first.request);
    expect(await table(page)).toEqual(first.table);
    expect(await page.isChecked('#kind-stacked')).toBe(true);
    expect(await page.inputValue('#preset')).toBe('yesterday');

    await page.selectOption('#breakdown', '');
    await page.selectOption('#source', 'parkingEvents');
    await run(page);
    const second = { url: page.url(), request: await shownRequest(page), table: await table(page) };
    expect(second.request).not.toEqual(first.request);

    await page.goBack();
    await page.waitForFunction(
      (want) => document.querySelector('#request-json')?.textContent === want,
      JSON.stringify(first.request, null, 2),
    );
    await run(page); // the form is the first report's again; running it draws the same table
    expect(page.url()).toBe(first.url);
    expect(await table(page)).toEqual(first.table);
    await page.goForward();
    await page.waitForFunction(
      (want) => document.querySelector('#request-json')?.textContent === want,
      JSON.stringify(second.request, null, 2),
    );
    expect(page.url()).toBe(second.url);

    // The copied link is the page's URL, without the token.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.service.url });
    await page.waitForSelector('#copy-link');
    await page.click('#copy-link');
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(second.url);
    expect(link).not.toContain(env.service.token);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('a link opens its report in a fresh tab', async () => {
    const first = await openPage();
    await first.page.selectOption('#preset', 'today');
    await first.page.selectOption('#source', 'parkingEvents');
    await run(first.page);
    const url = new URL(first.page.url());
    const request = await shownRequest(first.page);
    await first.context.close();
    const { page, context, problems } = await openPage({ query: url.search });
    await page.waitForSelector('#chart canvas');
    expect(await shownRequest(page)).toEqual(request);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('compares with an earlier period: the API’s pairs as “previous” series, the earlier period drawn past now', async () => {
    const { page, context, problems } = await openPage();
    await page.selectOption('#preset', 'today');
    await page.selectOption('#breakdown', '');
    await page.selectOption('#compare', '1w');
    const request = await shownRequest(page);
    expect(request.compare).toEqual({ offset: '1w' });
    const pairs = JSON.parse((await api(request)).text) as { current?: Json; previous?: Json }[];
    const now = Date.now();
    await run(page);
    const { header, rows } = await table(page);
    expect(header).toEqual(['Bucket start (Europe/Berlin)', 'count', 'previous count']);
    const withCurrent = pairs.filter((p) => p.current);
    expect(
      rows.map(([t, a, b]) => [
        t,
        a === '' ? null : Number(a!.replace(/,/g, '')),
        b === '' ? null : Number(b!.replace(/,/g, '')),
      ]),
    ).toEqual(
      withCurrent.map((p) => [
        p.current!.timestamp,
        Date.parse(p.current!.timestamp as string) > now ? null : ((p.current!.count as number | undefined) ?? 0),
        p.previous ? ((p.previous.count as number | undefined) ?? 0) : null,
      ]),
    );
    // A week ago is past: its later hours are there while today's are not yet.
    expect(rows.some(([t, a, b]) => Date.parse(t as string) > now && a === '' && b !== '')).toBe(true);
    expect(new URL(page.url()).searchParams.get('compare')).toBe('1w');
    expect(problems).toEqual([]);
    await context.close();
  });

  test('exports the chart as a PNG image with its title and legend', async () => {
    const { page, context, problems } = await openPage();
    await page.selectOption('#breakdown', 'label');
    await run(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
    expect(download.suggestedFilename()).toMatch(/^report-movementEvents-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.png$/);
    const png = readFileSync((await download.path()) as string);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const canvas = await page.$eval('#chart canvas', (c) => ({
      width: (c as HTMLCanvasElement).width,
      height: (c as HTMLCanvasElement).height,
    }));
    // IHDR: width and height, then room for the title and the legend under the chart.
    expect(png.readUInt32BE(16)).toBe(canvas.width);
    expect(png.readUInt32BE(20)).toBeGreaterThan(canvas.height);
    expect(problems).toEqual([]);
    await context.close();
  });
});
