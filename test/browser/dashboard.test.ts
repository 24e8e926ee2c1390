import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { api, env, type Json, num, openPage, shot, shownRequest, table, seededExplorer } from './support/explorer-page';

/**
 * The dashboard of a location in Chromium against `npm start`'s seeded server: every panel's numbers
 * against the API's own answers, fetched here directly; each panel's report opened in the builder.
 */
const describeInBrowser = seededExplorer();

const ZONE = 'Europe/Berlin';
const iso = (d: DateTime) => d.toISO({ suppressMilliseconds: true }) as string;
const get = async (path: string): Promise<Json> => (await (await fetch(`${env.service.url}${path}`, { headers: { authorization: `Bearer ${env.service.token}` } })).json()) as Json;
const answer = async (body: unknown) => JSON.parse((await api(body)).text) as unknown;

/** Waits until every panel has answered (drawn, or said why not). */
const panelsDone = (page: Page) =>
  page.waitForFunction(() => ['dash-occupancy', 'dash-entries', 'dash-week', 'dash-busiest'].every((id) => {
    const section = document.getElementById(id);
    return section && !section.hasAttribute('aria-busy') && section.querySelector('.panel-status, .empty') && (section.querySelector('.panel-status')?.textContent !== '' || section.querySelector('.empty'));
  }));

async function openDashboard(query = '?view=dashboard&location=berlin-mall', options: { width?: number } = {}) {
  const opened = await openPage({ query, wait: false, ...options });
  await panelsDone(opened.page);
  await opened.page.waitForSelector('#dash-live-status:not(:empty)');
  return opened;
}

const cells = (rows: string[][]) => rows.map(([t, ...rest]) => [t, ...rest.map((c) => (c === '' ? null : num(c)))]);

describeInBrowser('the dashboard of a location', () => {
  let page: Page;
  let problems: string[];
  const today = DateTime.now().setZone(ZONE).startOf('day');
  const now = Date.now();

  beforeAll(async () => {
    ({ page, problems } = await openDashboard());
  });
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  test('shows live occupancy per sensor group as the API does', async () => {
    const live = (await get('/locations/berlin-mall/insights/live?filter=occupancy')) as { insights: { occupancy: { sensorGroup: { name: string }; occupancy: number }[] } };
    const shown = await page.$$eval('#dash-live-body li', (items) => items.map((li) => [li.querySelector('.name')?.textContent, Number(li.querySelector('.count')?.textContent)]));
    expect(shown).toEqual(live.insights.occupancy.map((g) => [g.sensorGroup.name, g.occupancy]));
    expect(await page.textContent('#dash-title')).toBe(`berlin-mall: today, ${today.toISODate()} (${ZONE})`);
  });

  test('draws occupancy over today beside the same day last week, from the history endpoint, nothing after now', async () => {
    const history = async (day: DateTime) =>
      (await get(`/locations/berlin-mall/insights/history?filter=occupancy&from=${encodeURIComponent(day.toUTC().toISO()!)}&to=${encodeURIComponent(day.plus({ days: 1 }).toUTC().toISO()!)}&interval=15m`)) as {
        insights: { occupancy: { sensorGroup: { name: string }; buckets: { timestamp: string; occupancy?: number }[] }[] };
      };
    const [mine, before] = [await history(today), await history(today.minus({ days: 7 }))];
    const groups = mine.insights.occupancy;
    const { header, rows } = await table(page, '#dash-occupancy table');
    expect(header).toEqual([`Bucket start (${ZONE})`, ...groups.flatMap((g) => [g.sensorGroup.name, `${g.sensorGroup.name}, a week before`])]);
    const expected = groups[0]!.buckets.map((b, i) => [
      b.timestamp,
      ...groups.flatMap((g, k) => [Date.parse(b.timestamp) > now ? null : (g.buckets[i]!.occupancy ?? null), before.insights.occupancy[k]!.buckets[i]!.occupancy ?? null]),
    ]);
    expect(cells(rows)).toEqual(expected);
    // Every bucket of today after now is empty; last week's day is there in full.
    expect(expected.filter(([t]) => Date.parse(t as string) > now).every((r) => r[1] === null && r[3] === null)).toBe(true);
    expect(expected.some(([t, , lastWeek]) => Date.parse(t as string) > now && lastWeek !== null)).toBe(true);
  });

  const entriesRequest = {
    source: 'movementEvents',
    locationIds: ['berlin-mall'],
    filters: [{ type: 'range', field: 'timestamp', from: iso(today), to: iso(today.plus({ days: 1 })) }],
    aggregations: [
      { type: 'dateHistogram', interval: '1h', timeZone: ZONE },
      { type: 'nested', path: 'crossedPaths' },
      { type: 'terms', field: 'crossedPaths.id' },
      { type: 'terms', field: 'crossedPaths.end' },
    ],
  };

  test('draws line crossings per hour today with the API’s numbers, hours after now left empty', async () => {
    const direct = (await answer(entriesRequest)) as Json[];
    const { header, rows } = await table(page, '#dash-entries table');
    const names = header.slice(1);
    expect(names.sort()).toEqual(['entrance A', 'entrance B', 'ramp A', 'ramp B']);
    expect(cells(rows)).toEqual(direct.map((b) => [b.timestamp, ...header.slice(1).map((n) => (Date.parse(b.timestamp as string) > now ? null : ((b[n] as number | undefined) ?? 0)))]));
    const total = direct.reduce((sum, b) => sum + Object.entries(b).reduce((s, [k, v]) => s + (k === 'timestamp' ? 0 : (v as number)), 0), 0);
    expect(await page.textContent('#dash-entries .panel-status')).toBe(`${total.toLocaleString('en-US')} crossings today up to now. Hours after now are left empty.`);
  });

  test('compares this week with last week day by day, with totals and the change', async () => {
    const monday = today.startOf('week');
    const daily = async (from: DateTime) =>
      (await answer({
        source: 'movementEvents',
        locationIds: ['berlin-mall'],
        filters: [{ type: 'range', field: 'timestamp', from: iso(from), to: iso(from.plus({ weeks: 1 })) }],
        aggregations: [{ type: 'dateHistogram', interval: '1d', timeZone: ZONE }],
      })) as { count?: number }[];
    const [mine, before] = [await daily(monday), await daily(monday.minus({ weeks: 1 }))];
    const days = today.diff(monday, 'days').days + 1;
    // The page counts up to the instant it names; last week up to the same wall-clock time.
    const until = Date.parse((await page.getAttribute('#dash-week tr.total time', 'datetime')) as string);
    const lastDay = today.minus({ weeks: 1 });
    const untilLastWeek = lastDay.toMillis() + (until - today.toMillis());
    const count = async (from: DateTime) =>
      ((await answer({
        source: 'movementEvents',
        locationIds: ['berlin-mall'],
        filters: [{ type: 'range', field: 'timestamp', from: iso(from), to: new Date(untilLastWeek).toISOString() }],
        aggregations: [{ type: 'filter', filter: { type: 'range', field: 'timestamp', from: iso(from), to: new Date(untilLastWeek).toISOString() } }],
      })) as { count: number }).count;
    const [sameWeek, sameDay] = [await count(monday.minus({ weeks: 1 })), await count(lastDay)];
    const { rows } = await page.$eval('#dash-week details[open] table', (t) => ({ rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent ?? '')) }));
    const weekdays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    const f = (n: number) => n.toLocaleString('en-US');
    const signed = (n: number) => (n > 0 ? `+${f(n)}` : f(n));
    const at = (a: { count?: number }[], i: number) => a[i]!.count ?? 0;
    expect(rows.slice(0, 7)).toEqual(
      weekdays.map((d, i) =>
        i < days - 1
          ? [d, f(at(mine, i)), f(at(before, i)), signed(at(mine, i) - at(before, i))]
          : i === days - 1
            ? [`${d} (today, so far)`, f(at(mine, i)), f(at(before, i)), `${signed(at(mine, i) - sameDay)} *`]
            : [d, '', f(at(before, i)), ''],
      ),
    );
    const thisTotal = mine.slice(0, days).reduce((s, b) => s + (b.count ?? 0), 0);
    const share = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format((thisTotal - sameWeek) / sameWeek);
    expect(rows[7]).toEqual([expect.stringMatching(/^Up to now \(.+\), and a week before$/), f(thisTotal), f(sameWeek), `${signed(thisTotal - sameWeek)} (${share})`]);
    expect(rows[8]).toEqual(['Last week, whole week', '', f(before.reduce((s, b) => s + (b.count ?? 0), 0)), '']);
    // Today, not over, is not drawn against last week's whole day.
    expect(await page.textContent('#dash-week .panel-status')).toBe(`This week up to now ${f(thisTotal)}, last week up to the same time ${f(sameWeek)}: ${signed(thisTotal - sameWeek)} (${share}). Today, not over, is in the table only.`);
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
    const { header, rows } = await table(page, '#dash-busiest table');
    expect(header).toEqual(['Day', ...Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'))]);
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    expect(rows.map(([d, ...c]) => [d, ...c.map(num)])).toEqual(days.map((d) => [d[0]!.toUpperCase() + d.slice(1, 3), ...header.slice(1).map((h) => direct[`${d} ${h}:00`] ?? 0)]));
    await shot(page, 'dashboard');
  });

  test('opens a panel’s report in the builder, which runs the same request', async () => {
    const href = (await page.getAttribute('#dash-entries a.open', 'href')) as string;
    const builder = await openPage({ query: href });
    await builder.page.waitForSelector('#chart canvas');
    expect(await shownRequest(builder.page)).toEqual(entriesRequest);
    expect(await builder.page.inputValue('#preset')).toBe('today');
    expect(builder.problems).toEqual([]);
    await builder.context.close();
    // The week panel is one report compared with the week before.
    const week = new URL((await page.getAttribute('#dash-week a.open', 'href')) as string, env.service.url).searchParams;
    expect([week.get('compare'), week.get('interval'), week.get('from'), week.get('to')]).toEqual(['1w', '1d', today.startOf('week').toISODate(), today.endOf('week').toISODate()]);
  });

  test('follows the chosen location in the URL, and back', async () => {
    await page.selectOption('#dash-location', 'tokyo-station');
    await page.waitForFunction(() => /^tokyo-station/.test(document.getElementById('dash-title')?.textContent ?? ''));
    expect(new URL(page.url()).searchParams.get('location')).toBe('tokyo-station');
    await page.goBack();
    await page.waitForFunction(() => /^berlin-mall/.test(document.getElementById('dash-title')?.textContent ?? ''));
    expect(await page.inputValue('#dash-location')).toBe('berlin-mall');
    await panelsDone(page);
  });

  test('is usable by keyboard: every stop shows a focus ring, a chart’s values read with the arrow keys', async () => {
    await page.focus('#dash-location');
    const stops: { id: string; tag: string; chart: boolean; outline: string }[] = [];
    for (let i = 0; i < 60 && !stops.some((s) => s.tag === 'A' && s.id === 'entries-open'); i++) {
      await page.keyboard.press('Tab');
      const stop = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { id: el.closest('section')?.id === 'dash-entries' && el.classList.contains('open') ? 'entries-open' : el.id, tag: el.tagName, chart: el.getAttribute('aria-roledescription') === 'chart', outline: `${style.outlineStyle} ${style.outlineWidth}` };
      });
      stops.push(stop);
      if (stop.chart && stops.filter((s) => s.chart).length === 1) {
        await page.keyboard.press('End');
        expect(await page.textContent('#dash-occupancy .cursor')).toMatch(/^\d{4}-\d\d-\d\d 23:45 \(Europe\/Berlin\)$/);
      }
    }
    expect(stops.filter((s) => s.chart).length).toBe(2); // occupancy, then entries
    expect(stops.some((s) => s.id === 'entries-open')).toBe(true);
    expect(stops.filter((s) => s.outline !== 'solid 3px')).toEqual([]);
  });

  test('passes axe’s accessibility rules', async () => {
    await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      });
      return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    expect(violations).toEqual([]);
  });
});
