import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import {
  api,
  axeViolations,
  clippedTables,
  env,
  getJson,
  type Json,
  num,
  openPage,
  shot,
  shownRequest,
  seededExplorer,
} from './support/explorer-page';

/**
 * The dashboard of a location in Chromium against `npm start`'s seeded server: the headline tiles and
 * every panel against the API's own answers, fetched here directly for the instant the page names;
 * honest pictures (zero-based axes, last week in the same colour dashed, times in the location's zone
 * named, dates in the reader's locale), the refresh at the answer's max-age on a fake clock, tables
 * that fit, CSV in local time, each panel's report opened in the builder.
 */
const describeInBrowser = seededExplorer();

const ZONE = 'Europe/Berlin';
const iso = (d: DateTime) => d.toISO({ suppressMilliseconds: true }) as string;
const answer = async (body: unknown) => JSON.parse((await api(body)).text) as unknown;
const f = (n: number) => n.toLocaleString('en-US');
const signed = (n: number) => (n > 0 ? `+${f(n)}` : f(n));
const pct = (n: number) =>
  new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format(n);
/** A clock time as the page writes it for an en-US reader, on the zone's clock. */
const clock = (t: number, zone: string, locale = 'en-US') =>
  new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: zone }).format(t);
const spaces = (s: string | null) => (s ?? '').replace(/\s/g, ' ');

/** Waits until every panel and tile has answered (drawn, or said why not). */
const dashboardDone = (page: Page) =>
  page.waitForFunction(
    () =>
      ['dash-live', 'dash-occupancy', 'dash-entries', 'dash-week', 'dash-busiest'].every((id) => {
        const section = document.getElementById(id);
        return (
          section &&
          !section.hasAttribute('aria-busy') &&
          ((section.querySelector('.panel-status')?.textContent ?? '') !== '' || section.querySelector('.empty'))
        );
      }) &&
      [...document.querySelectorAll('.tile-note')].every((n) => n.textContent !== 'Loading…') &&
      document.querySelector('#dash-updated time') !== null,
  );

async function openDashboard(
  query = '?view=dashboard&location=berlin-mall',
  options: Parameters<typeof openPage>[0] = {},
) {
  const opened = await openPage({ query, wait: false, ...options });
  await dashboardDone(opened.page);
  return opened;
}

/** The instant the page's numbers count up to. */
const pageNow = async (page: Page) => Date.parse((await page.getAttribute('#dash-updated time', 'datetime')) as string);

/** Movement events of a location in [from, to), by the API. */
const countBetween = async (locationId: string, from: number, to: number) => {
  const range = {
    type: 'range',
    field: 'timestamp',
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  };
  return (
    (await answer({
      source: 'movementEvents',
      locationIds: [locationId],
      filters: [range],
      aggregations: [{ type: 'filter', filter: range }],
    })) as { count: number }
  ).count;
};

interface History {
  insights: { occupancy: { sensorGroup: { name: string }; buckets: { timestamp: string; occupancy?: number }[] }[] };
}
const historyOf = (locationId: string, day: DateTime, interval = '5m') =>
  getJson<History>(
    `/locations/${locationId}/insights/history?filter=occupancy&from=${encodeURIComponent(day.toUTC().toISO()!)}&to=${encodeURIComponent(day.plus({ days: 1 }).toUTC().toISO()!)}&interval=${interval}`,
  );

/**
 * A table's columns as names (a group heading and its column's label joined by a space) and its rows (the `<time>` of
 * each row's header).
 */
const groupedTable = (page: Page, selector: string) =>
  page.$eval(selector, (t) => {
    const [first, second] = [...t.querySelectorAll('thead tr')];
    const names: string[] = [];
    const labels = [...(second?.querySelectorAll('th') ?? [])].map((th) => th.textContent ?? '');
    for (const th of first?.querySelectorAll('th') ?? []) {
      const span = Number(th.getAttribute('colspan') ?? 1);
      if (th.getAttribute('scope') === 'colgroup')
        for (let i = 0; i < span; i++) names.push(`${th.textContent} ${labels.shift()}`);
      else names.push(th.textContent ?? '');
    }
    const rows = [...t.querySelectorAll('tbody tr')].map((tr) => [
      tr.querySelector('th time')?.getAttribute('datetime') ?? '',
      ...[...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
    ]);
    return { names, rows };
  });

const cells = (rows: string[][]) => rows.map(([t, ...rest]) => [t, ...rest.map((c) => (c === '' ? null : num(c)))]);

describeInBrowser('the dashboard of a location', () => {
  let page: Page;
  let problems: string[];
  let responses: { url: string }[];
  let now: number;
  let today: DateTime;

  beforeAll(async () => {
    ({ page, problems, responses } = await openDashboard());
    now = await pageNow(page);
    today = DateTime.fromMillis(now, { zone: ZONE }).startOf('day');
  });
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  test('shows people here now, today so far against last week up to the same time, and today’s peak, each as the API answers', async () => {
    const tile = async (id: string) => ({
      value: await page.textContent(`#tile-${id} .tile-value`),
      note: spaces(await page.textContent(`#tile-${id} .tile-note`)),
      href: await page.getAttribute(`#tile-${id}`, 'href'),
    });
    // People now: the live entries added up.
    const live = await getJson<{ insights: { occupancy: { occupancy: number }[] } }>(
      '/locations/berlin-mall/insights/live?filter=occupancy',
    );
    expect(num((await tile('now')).value!)).toBe(live.insights.occupancy.reduce((s, g) => s + g.occupancy, 0));
    // Today up to the page's now, against the same weekday a week before up to the same wall-clock time.
    const sameTime = DateTime.fromMillis(now, { zone: ZONE }).minus({ weeks: 1 });
    const [mine, theirs] = [
      await countBetween('berlin-mall', today.toMillis(), now),
      await countBetween('berlin-mall', today.minus({ weeks: 1 }).toMillis(), sameTime.toMillis()),
    ];
    expect(await tile('today')).toMatchObject({
      value: f(mine),
      note: `${signed(mine - theirs)}${theirs ? ` (${pct((mine - theirs) / theirs)})` : ''} against last week up to the same time (${f(theirs)})`,
    });
    // The peak: the largest sum of the areas at one 5-minute mark (a bucket's end) up to now.
    const history = await historyOf('berlin-mall', today);
    let best: { people: number; at: number } | undefined;
    history.insights.occupancy[0]!.buckets.forEach((b, i) => {
      const start = Date.parse(b.timestamp);
      const values = history.insights.occupancy
        .map((g) => g.buckets[i]!.occupancy)
        .filter((v): v is number => v !== undefined);
      if (start > now || values.length === 0) return;
      const people = values.reduce((a, v) => a + v, 0);
      if (!best || people > best.people) best = { people, at: Math.min(start + 300_000, now) };
    });
    expect(await tile('peak')).toEqual({
      value: f(best!.people),
      note: spaces(`at ${clock(best!.at, ZONE)} (${ZONE})`),
      href: '#dash-occupancy',
    });
    expect((await tile('now')).href).toBe('#dash-live');
  });

  test('opens the report behind each tile: today so far is today by the hour beside a week before, in the builder', async () => {
    const href = (await page.getAttribute('#tile-today', 'href')) as string;
    const builder = await openPage({ query: href });
    await builder.page.waitForSelector('#chart canvas');
    expect(await shownRequest(builder.page)).toEqual({
      source: 'movementEvents',
      locationIds: ['berlin-mall'],
      filters: [{ type: 'range', field: 'timestamp', from: iso(today), to: iso(today.plus({ days: 1 })) }],
      aggregations: [{ type: 'dateHistogram', interval: '1h', timeZone: ZONE }],
      compare: { offset: '1w' },
    });
    expect(builder.problems).toEqual([]);
    await builder.context.close();
    expect(await page.getAttribute('#tile-entries', 'href')).toBe(
      await page.getAttribute('#dash-entries a.open', 'href'),
    );
  });

  test('draws occupancy over today every 5 minutes beside the same day last week, from the history endpoint, nothing after now', async () => {
    const [mine, before] = [
      await historyOf('berlin-mall', today),
      await historyOf('berlin-mall', today.minus({ days: 7 })),
    ];
    const groups = mine.insights.occupancy;
    const { names, rows } = await groupedTable(page, '#dash-occupancy table');
    expect(names).toEqual([
      'Time',
      ...groups.flatMap((g) => [`${g.sensorGroup.name} today`, `${g.sensorGroup.name} a week before`]),
    ]);
    const expected = groups[0]!.buckets.map((b, i) => [
      b.timestamp,
      ...groups.flatMap((g, k) => [
        Date.parse(b.timestamp) > now ? null : (g.buckets[i]!.occupancy ?? null),
        before.insights.occupancy[k]!.buckets[i]!.occupancy ?? null,
      ]),
    ]);
    expect(cells(rows)).toEqual(expected);
    expect(expected.filter(([t]) => Date.parse(t as string) > now).every((r) => r[1] === null && r[3] === null)).toBe(
      true,
    );
    expect(expected.some(([t, , lastWeek]) => Date.parse(t as string) > now && lastWeek !== null)).toBe(true);
  });

  test('draws last week in the colour of today, dashed, and every count axis from zero', async () => {
    const swatches = await page.$$eval('#dash-occupancy .legend li, #dash-week .legend li', (items) =>
      items.map((li) => {
        const s = li.querySelector('.swatch') as HTMLElement;
        return {
          name: li.querySelector('.name')?.textContent,
          dashed: s.classList.contains('dashed'),
          color: s.classList.contains('dashed')
            ? getComputedStyle(s).borderTopColor
            : getComputedStyle(s).backgroundColor,
        };
      }),
    );
    const of = (name: string) => swatches.find((s) => s.name === name)!;
    expect([
      of('Main entrance, a week before').dashed,
      of('Main entrance').dashed,
      of('last week').dashed,
      of('this week').dashed,
    ]).toEqual([true, false, true, false]);
    expect(of('Main entrance, a week before').color).toBe(of('Main entrance').color);
    expect(of('Parking deck, a week before').color).toBe(of('Parking deck').color);
    expect(of('Parking deck').color).not.toBe(of('Main entrance').color);
    expect(of('last week').color).toBe(of('this week').color);
    // uPlot's own y range, as laid out: zero at the bottom of every chart.
    expect(
      await page.$$eval('#dashboard-view .chart', (charts) => charts.map((c) => (c as HTMLElement).dataset.yMin)),
    ).toEqual(['0', '0', '0']);
  });

  test('ticks the week’s chart at its days, never at hours between them', async () => {
    // Monday to Sunday of this week on Berlin's calendar, written as an en-US browser writes a day.
    const days = Array.from({ length: 7 }, (_, i) =>
      today.startOf('week').plus({ days: i }).setLocale('en-US').toFormat('ccc, LLL d'),
    );
    expect(JSON.parse((await page.getAttribute('#dash-week .chart', 'data-x-labels')) as string)).toEqual(days);
  });

  const entriesRequest = () => ({
    source: 'movementEvents',
    locationIds: ['berlin-mall'],
    filters: [{ type: 'range', field: 'timestamp', from: iso(today), to: iso(today.plus({ days: 1 })) }],
    aggregations: [
      { type: 'dateHistogram', interval: '1h', timeZone: ZONE },
      { type: 'terms', field: 'trackingCameraId' },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  });

  test('draws line crossings per hour today by camera, line and direction with the API’s numbers, hours after now left empty', async () => {
    const direct = (await answer(entriesRequest())) as Json[];
    const { names, rows } = await groupedTable(page, '#dash-entries table');
    const total = direct.reduce(
      (sum, b) => sum + Object.entries(b).reduce((s, [k, v]) => s + (k === 'timestamp' ? 0 : (v as number)), 0),
      0,
    );
    expect(spaces(await page.textContent('#dash-entries .panel-status'))).toBe(
      spaces(`${f(total)} crossings today up to ${clock(now, ZONE)} (${ZONE}). Hours after now are left empty.`),
    );
    const value = (b: Json, series: string) =>
      Date.parse(b.timestamp as string) > now ? null : ((b[series] as number | undefined) ?? 0);
    // The lines' in direction, as GET /locations/{id} says it.
    const { sensorGroups: groups } = await getJson<{
      sensorGroups: { name: string; lines: { trackingCameraId: string; lineId: string; inDirection: 'A' | 'B' }[] }[];
    }>('/locations/berlin-mall');
    // Each area's line (one each in the seeded data) as the area's "in" and "out", from its in direction.
    const columns = groups.flatMap((g) =>
      g.lines.flatMap((l) => [
        { name: `${g.name} in`, series: `${l.trackingCameraId} ${l.lineId} ${l.inDirection}`, entry: true },
        {
          name: `${g.name} out`,
          series: `${l.trackingCameraId} ${l.lineId} ${l.inDirection === 'A' ? 'B' : 'A'}`,
          entry: false,
        },
      ]),
    );
    expect(names.slice(1)).toEqual(columns.map((c) => c.name));
    expect(cells(rows)).toEqual(direct.map((b) => [b.timestamp, ...columns.map((c) => value(b, c.series))]));
    const entries = direct.reduce(
      (sum, b) => sum + columns.filter((c) => c.entry).reduce((s, c) => s + (value(b, c.series) ?? 0), 0),
      0,
    );
    expect(await page.textContent('#tile-entries .tile-value')).toBe(f(entries));
  });

  test('says so when which way is in cannot be read, and shows the crossings by camera, line and direction', async () => {
    // Prepare: GET /locations/berlin-mall fails (the reports answer as ever).
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const failing = await context.newPage();
    await failing.route(`${env.service.url}/locations/berlin-mall`, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/problem+json',
        body: JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'Try again.' }),
      }),
    );
    // Act
    await failing.goto(`${env.service.url}/?view=dashboard&location=berlin-mall`);
    await dashboardDone(failing);
    // Assess: no entries claimed; the crossings as the cameras name them.
    expect(await failing.textContent('#tile-entries .tile-value')).toBe('–');
    expect(spaces(await failing.textContent('#tile-entries .tile-note'))).toBe(
      'Which way is in could not be read for this location’s lines; the crossings are below.',
    );
    const { names } = await groupedTable(failing, '#dash-entries table');
    expect(names.slice(1).sort()).toEqual([
      'berlin-mall-cam-1 entrance A',
      'berlin-mall-cam-1 entrance B',
      'berlin-mall-cam-2 ramp A',
      'berlin-mall-cam-2 ramp B',
    ]);
    await context.close();
  });

  test('compares this week with last week day by day, today so far with last week up to the same time, never with its whole day', async () => {
    const monday = today.startOf('week');
    const daily = async (from: DateTime) =>
      (await answer({
        source: 'movementEvents',
        locationIds: ['berlin-mall'],
        filters: [{ type: 'range', field: 'timestamp', from: iso(from), to: iso(from.plus({ weeks: 1 })) }],
        aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: ZONE }],
      })) as { count?: number }[];
    const [mine, before] = [await daily(monday), await daily(monday.minus({ weeks: 1 }))];
    const days = Math.round(today.diff(monday, 'days').days) + 1;
    const sameTime = DateTime.fromMillis(now, { zone: ZONE }).minus({ weeks: 1 }).toMillis();
    const todaySoFar = await countBetween('berlin-mall', today.toMillis(), now);
    const [sameDay, weekSoFar, sameWeek] = [
      await countBetween('berlin-mall', today.minus({ weeks: 1 }).toMillis(), sameTime),
      await countBetween('berlin-mall', monday.toMillis(), now),
      await countBetween('berlin-mall', monday.minus({ weeks: 1 }).toMillis(), sameTime),
    ];
    const { rows } = await page.$eval('#dash-week details[open] table', (t) => ({
      rows: [...t.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('th, td')].map((c) => c.textContent ?? ''),
      ),
    }));
    const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    const at = (a: { count?: number }[], i: number) => a[i]!.count ?? 0;
    const change = (a: number, b: number) => `${signed(a - b)}${b ? ` ${pct((a - b) / b)}` : ''}`;
    expect(rows.slice(0, 7)).toEqual(
      weekdays.map((d, i) =>
        i < days - 1
          ? [d, f(at(mine, i)), f(at(before, i)), change(at(mine, i), at(before, i))]
          : i === days - 1
            ? [
                `${d}, today so far`,
                f(todaySoFar),
                `${f(sameDay)} of ${f(at(before, i))} all day`,
                change(todaySoFar, sameDay),
              ]
            : [d, '', f(at(before, i)), ''],
      ),
    );
    expect(rows[7]!.map(spaces)).toEqual([
      spaces(`Week up to ${clock(now, ZONE)} (${ZONE})`),
      f(weekSoFar),
      f(sameWeek),
      change(weekSoFar, sameWeek),
    ]);
    expect(rows[8]).toEqual(['Last week, whole week', '', f(before.reduce((s, b) => s + (b.count ?? 0), 0)), '']);
    // One table, one toggle: the chart has no second table of the same numbers.
    expect(await page.$$eval('#dash-week summary', (s) => s.length)).toBe(1);
  });

  test('shows the busiest hours as a weekday × hour table of the API’s profile counts', async () => {
    const direct = (await answer({
      source: 'movementEvents',
      locationIds: ['berlin-mall'],
      filters: [{ type: 'range', field: 'timestamp', from: iso(today.minus({ days: 28 })), to: iso(today) }],
      aggregations: [
        { type: 'profile', unit: 'weekday', timeZone: ZONE },
        { type: 'profile', unit: 'hour', timeZone: ZONE },
      ],
    })) as Record<string, number>;
    const { header, rows } = await page.$eval('#dash-busiest table', (t) => ({
      header: [...t.querySelectorAll('thead th')].map((th) => th.textContent ?? ''),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.querySelectorAll('th, td')].map((c) => c.textContent ?? ''),
      ),
    }));
    expect(header).toEqual(['Day', ...Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'))]);
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    expect(rows.map(([d, ...c]) => [d, ...c.map(num)])).toEqual(
      days.map((d) => [
        d[0]!.toUpperCase() + d.slice(1, 3),
        ...header.slice(1).map((h) => direct[`${d} ${h}:00`] ?? 0),
      ]),
    );
  });

  test('downloads what a panel shows as CSV, each time in UTC and on the location’s clock', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#dash-occupancy button:text("Download CSV")'),
    ]);
    const lines = readFileSync((await download.path()) as string, 'utf8').split('\r\n');
    expect(lines[0]).toBe(
      'timestamp,localTime,Main entrance,"Main entrance, a week before",Parking deck,"Parking deck, a week before"',
    );
    // Today's first 5 minutes start at Berlin's midnight: 23:00Z or 22:00Z the day before.
    expect(lines[1]!.split(',').slice(0, 2)).toEqual([today.toUTC().toISO(), iso(today)]);
    expect(lines).toHaveLength(1 + 288 + 1);
  });

  test('opens a panel’s report in the builder, which runs the same request', async () => {
    const href = (await page.getAttribute('#dash-entries a.open', 'href')) as string;
    const builder = await openPage({ query: href });
    await builder.page.waitForSelector('#chart canvas');
    expect(await shownRequest(builder.page)).toEqual(entriesRequest());
    expect(await builder.page.inputValue('#preset')).toBe('today');
    expect(builder.problems).toEqual([]);
    await builder.context.close();
    const week = new URL((await page.getAttribute('#dash-week a.open', 'href')) as string, env.service.url)
      .searchParams;
    expect([week.get('compare'), week.get('interval'), week.get('from'), week.get('to')]).toEqual([
      '1w',
      '1d',
      today.startOf('week').toISODate(),
      today.endOf('week').toISODate(),
    ]);
  });

  test('puts the developer’s words behind a help link, and loads no sign-in code where no one signs in', async () => {
    expect(await page.$$eval('header p', (ps) => ps.length)).toBe(0);
    expect(await page.getAttribute('#nav-help', 'href')).toBe('#help');
    expect(await page.textContent('#help')).toContain('Everything on this page goes through the service');
    expect(responses.some((r) => /\/assets\/auth-[A-Z0-9]+\.js$/.test(r.url))).toBe(false);
  });

  test('fits every table in its panel at 1280 px and on a 390 px phone, where the heat map turns', async () => {
    expect(await clippedTables(page)).toEqual([]);
    const phone = await openDashboard('?view=dashboard&location=berlin-mall', { width: 390, height: 844 });
    expect(await clippedTables(phone.page)).toEqual([]);
    expect(await phone.page.$eval('#dash-busiest thead tr', (tr) => tr.children.length)).toBe(8); // Hour + 7 weekdays
    await shot(phone.page, 'dashboard-narrow', { fullPage: false });
    expect(phone.problems).toEqual([]);
    await phone.context.close();
  });

  test('follows the chosen location in the URL, and back', async () => {
    // The title is the location's name where the service gives one, its id until then.
    const names = new Map(
      (await getJson<{ id: string; name?: string }[]>('/locations')).map((l) => [l.id, l.name || l.id]),
    );
    const titled = (name: string) =>
      page.waitForFunction((n) => (document.getElementById('dash-title')?.textContent ?? '').startsWith(n), name);
    await page.selectOption('#dash-location', 'tokyo-station');
    await titled(names.get('tokyo-station')!);
    expect(new URL(page.url()).searchParams.get('location')).toBe('tokyo-station');
    await page.goBack();
    await titled(names.get('berlin-mall')!);
    expect(await page.inputValue('#dash-location')).toBe('berlin-mall');
    await dashboardDone(page);
  });

  test('is usable by keyboard: every stop shows a focus ring, a chart’s values read with the arrow keys', async () => {
    await page.focus('#dash-location');
    const stops: { id: string; tag: string; chart: boolean; outline: string }[] = [];
    for (let i = 0; i < 80 && !stops.some((s) => s.tag === 'A' && s.id === 'entries-open'); i++) {
      await page.keyboard.press('Tab');
      const stop = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return {
          id: el.closest('section')?.id === 'dash-entries' && el.classList.contains('open') ? 'entries-open' : el.id,
          tag: el.tagName,
          chart: el.getAttribute('aria-roledescription') === 'chart',
          outline: `${style.outlineStyle} ${style.outlineWidth}`,
        };
      });
      stops.push(stop);
      if (stop.chart && stops.filter((s) => s.chart).length === 1) {
        await page.keyboard.press('End');
        const last = today.plus({ days: 1 }).minus({ minutes: 5 }).toMillis();
        const expected = new Intl.DateTimeFormat('en-US', {
          dateStyle: 'medium',
          timeStyle: 'short',
          timeZone: ZONE,
        }).format(last);
        expect(spaces(await page.textContent('#dash-occupancy .cursor'))).toBe(spaces(`${expected} (${ZONE})`));
      }
    }
    expect(stops.slice(0, 4).map((s) => s.id)).toEqual(['tile-now', 'tile-today', 'tile-peak', 'tile-entries']);
    expect(stops.filter((s) => s.chart).length).toBe(2); // occupancy, then entries
    expect(stops.some((s) => s.id === 'entries-open')).toBe(true);
    expect(stops.filter((s) => s.outline !== 'solid 3px')).toEqual([]);
  });

  test('passes axe’s accessibility rules', async () => {
    await shot(page, 'dashboard');
    expect(await axeViolations(page)).toEqual([]);
  });
});

describeInBrowser('the dashboard opened from another zone and locale', () => {
  test('names the location’s zone with every clock time, on its clock, and writes dates as the reader’s browser does', async () => {
    // A reader in New York with a German browser opens Tokyo's dashboard.
    const { page, context, problems } = await openDashboard('?view=dashboard&location=tokyo-station', {
      timezoneId: 'America/New_York',
      locale: 'de-DE',
    });
    const zone = 'Asia/Tokyo';
    const now = await pageNow(page);
    const full = new Intl.DateTimeFormat('de-DE', { dateStyle: 'full', timeZone: zone }).format(now);
    expect(await page.textContent('#dash-when')).toBe(`${full} · times in ${zone}`);
    expect(spaces(await page.textContent('#dash-updated'))).toBe(
      spaces(`Updated ${clock(now, zone, 'de-DE')} (${zone})`),
    );
    // The peak's time on Tokyo's clock, not New York's.
    const today = DateTime.fromMillis(now, { zone }).startOf('day');
    const history = await historyOf('tokyo-station', today);
    let best: { people: number; at: number } | undefined;
    history.insights.occupancy[0]!.buckets.forEach((b, i) => {
      const start = Date.parse(b.timestamp);
      const values = history.insights.occupancy
        .map((g) => g.buckets[i]!.occupancy)
        .filter((v): v is number => v !== undefined);
      const people = values.reduce((a, v) => a + v, 0);
      if (start <= now && values.length > 0 && (!best || people > best.people))
        best = { people, at: Math.min(start + 300_000, now) };
    });
    expect(spaces(await page.textContent('#tile-peak .tile-note'))).toBe(
      spaces(`at ${clock(best!.at, zone, 'de-DE')} (${zone})`),
    );
    // The chart's first point, read with the keyboard: Tokyo's midnight, in German.
    await page.focus('#dash-occupancy .chart');
    await page.keyboard.press('Home');
    const midnight = new Intl.DateTimeFormat('de-DE', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: zone,
    }).format(today.toMillis());
    expect(spaces(await page.textContent('#dash-occupancy .cursor'))).toBe(spaces(`${midnight} (${zone})`));
    expect(problems).toEqual([]);
    await context.close();
  });
});

describeInBrowser('the dashboard, live', () => {
  test('asks everything of today again when the answer’s max-age runs out, not while the tab is hidden, and says when it last did', async () => {
    const { page, context, problems, responses } = await openDashboard('?view=dashboard&location=berlin-mall', {
      clock: true,
    });
    const asked = () => ({
      live: responses.filter((r) => r.url.endsWith('/locations/berlin-mall/insights/live?filter=occupancy')).length,
      history: responses.filter((r) => r.url.includes('/locations/berlin-mall/insights/history')).length,
      reports: responses.filter((r) => r.url.endsWith('/reports:query')).length,
    });
    const first = asked();
    // Live, two history days, and four reports: crossings, so far, the week, the busiest hours (asked once a day).
    expect(first).toEqual({ live: 1, history: 2, reports: 4 });
    const maxAge = Number(
      /max-age=(\d+)/.exec(responses.find((r) => r.url.endsWith('/insights/live?filter=occupancy'))!.cacheControl)?.[1],
    );
    const updated = await page.getAttribute('#dash-updated time', 'datetime');
    // Hidden: nothing is asked when the time comes.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.clock.fastForward(Math.max(5, maxAge) * 1000 + 1000);
    await new Promise((r) => setTimeout(r, 500));
    expect(asked()).toEqual(first);
    // Shown again: it asks at once, all of today but not last week's day or the busiest hours (the same day), and says
    // so.
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.waitForFunction(
      (before) => document.querySelector('#dash-updated time')?.getAttribute('datetime') !== before,
      updated,
    );
    await dashboardDone(page);
    expect(asked()).toEqual({ live: 2, history: 3, reports: 7 });
    expect(
      Date.parse((await page.getAttribute('#dash-updated time', 'datetime')) as string) - Date.parse(updated!),
    ).toBeGreaterThanOrEqual(Math.max(5, maxAge) * 1000);
    expect(problems).toEqual([]);
    await context.close();
  });
});
