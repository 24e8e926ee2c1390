import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import {
  api,
  axeViolations,
  clippedTables,
  getJson,
  num,
  openPage,
  shot,
  seededExplorer,
} from './support/explorer-page';

/**
 * Every site at a glance in Chromium against `npm start`'s seeded server (three locations in three
 * zones): one request for the whole table, each row against the API's own per-location answers for
 * the instant the page names, sortable, fitting a phone, asked again at the answer's max-age.
 */
const describeInBrowser = seededExplorer();

const f = (n: number) => n.toLocaleString('en-US');
const signed = (n: number) => (n > 0 ? `+${f(n)}` : f(n));
const pct = (n: number) =>
  new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format(n);

const sitesDone = (page: Page) =>
  page.waitForFunction(
    () =>
      document.querySelector('#sites-status time') !== null &&
      document.querySelectorAll('#sites-table tbody tr').length > 0,
  );

const rowsOf = (page: Page) =>
  page.$$eval('#sites-table tbody tr', (trs) =>
    trs.map((tr) => ({
      id: (tr as HTMLElement).dataset.location,
      cells: [...tr.children].map((c) => (c.querySelector('a')?.textContent ?? c.textContent ?? '').trim()),
      lines: [...tr.querySelectorAll('svg polyline')].map((p) => p.getAttribute('class')),
      href: tr.querySelector('a')?.getAttribute('href'),
    })),
  );

/** The column headers' words (a sort button's label, or the header's text). */
const headersOf = (page: Page) =>
  page.$$eval('#sites-table thead th', (ths) => ths.map((th) => (th.textContent ?? '').trim()));

describeInBrowser('every site at a glance', () => {
  let page: Page;
  let problems: string[];
  let responses: { url: string; cacheControl: string }[];

  beforeAll(async () => {
    ({ page, problems, responses } = await openPage({ query: '', wait: false, clock: true }));
    await sitesDone(page);
  });
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  test('is the home page of an organization with several sites, drawn from one request', async () => {
    expect(await page.textContent('#page-h')).toBe('Every site');
    const asked = responses
      .filter((r) => /\/insights\/|\/reports:query/.test(r.url))
      .map((r) => new URL(r.url).pathname);
    expect(asked).toEqual(['/insights/overview']);
  });

  test('shows each site’s people now, how full it is, today so far and the change against last week up to the same time, as the API answers per location', async () => {
    const at = Date.parse((await page.getAttribute('#sites-status time', 'datetime')) as string);
    // Called by name (by id where a location has none); A to Z.
    const named = (l: { id: string; name?: string }) => l.name || l.id;
    const collator = new Intl.Collator('en-US', { numeric: true, sensitivity: 'base' });
    const locations = (await getJson<{ id: string; name?: string; timezone: string }[]>('/locations')).sort((a, b) =>
      collator.compare(named(a), named(b)),
    );
    const rows = await rowsOf(page);
    const headers = await headersOf(page);
    expect(await page.$$eval('#sites-table td td, #sites-table td th', (nested) => nested.length)).toBe(0);
    expect(rows.map((r) => r.id)).toEqual(locations.map((l) => l.id));
    for (const l of locations) {
      const live = await getJson<{ insights: { occupancy: { occupancy: number; capacity?: number }[] } }>(
        `/locations/${l.id}/insights/live?filter=occupancy`,
      );
      const open = live.insights.occupancy;
      const today = DateTime.fromMillis(at, { zone: l.timezone }).startOf('day');
      const sameTime = DateTime.fromMillis(at, { zone: l.timezone }).minus({ weeks: 1 });
      const range = (from: number, to: number) => ({
        type: 'range',
        field: 'timestamp',
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
      });
      const counts = JSON.parse(
        (
          await api({
            source: 'movementEvents',
            locationIds: [l.id],
            filters: [range(today.minus({ weeks: 1 }).toMillis(), at)],
            aggregations: [
              {
                type: 'filters',
                filters: {
                  today: range(today.toMillis(), at),
                  lastWeek: range(today.minus({ weeks: 1 }).toMillis(), sameTime.toMillis()),
                },
              },
            ],
          })
        ).text,
      ) as { today: number; lastWeek: number };
      const row = rows.find((r) => r.id === l.id)!;
      // The columns by their headers (a share of capacity comes between them once capacities are set).
      expect(['Site', 'People now', 'Today so far', 'vs. last week'].map((h) => row.cells[headers.indexOf(h)])).toEqual(
        [
          named(l),
          open.length === 0 ? 'closed' : f(open.reduce((s, g) => s + g.occupancy, 0)),
          f(counts.today),
          `${signed(counts.today - counts.lastWeek)}${counts.lastWeek ? ` ${pct((counts.today - counts.lastWeek) / counts.lastWeek)}` : ''}`,
        ],
      );
      // How full: the people of the open areas with a capacity over their capacities together, half up to 3 decimals.
      const sized = open.filter((g) => g.capacity !== undefined);
      const capacity = sized.reduce((s, g) => s + (g.capacity as number), 0);
      const people = sized.reduce((s, g) => s + g.occupancy, 0);
      const share = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 0 });
      expect(row.cells[headers.indexOf('% of capacity')]).toBe(
        sized.length === 0
          ? ''
          : `${share.format(Math.round((people * 1000) / capacity) / 1000)} of ${f(capacity)}${sized.length < open.length ? ' (some areas)' : ''}`,
      );
      // Today's hours so far and last week's day, one colour, the earlier dashed.
      expect(row.lines).toEqual(['spark-before', 'spark-today']);
      expect(row.href).toBe(`?view=dashboard&location=${l.id}`);
    }
  });

  test('sorts by a column when its header is pressed, and says how', async () => {
    const header = '#sites-table th:has(button:text-is("Today so far"))';
    await page.click(`${header} button`); // largest first
    expect(await page.getAttribute(header, 'aria-sort')).toBe('descending');
    const column = (await headersOf(page)).indexOf('Today so far');
    const today = (await rowsOf(page)).map((r) => num(r.cells[column]!));
    expect(today).toEqual([...today].sort((a, b) => b - a));
    await page.click(`${header} button`);
    expect(await page.getAttribute(header, 'aria-sort')).toBe('ascending');
    expect((await rowsOf(page)).map((r) => num(r.cells[column]!))).toEqual([...today].reverse());
    expect(await page.$$eval('#sites-table th[aria-sort]', (ths) => ths.length)).toBe(1);
    await page.click('#sites-table th:nth-child(1) button');
  });

  test('asks again when the answer’s max-age runs out', async () => {
    const overview = () => responses.filter((r) => r.url.endsWith('/insights/overview'));
    const maxAge = Number(/max-age=(\d+)/.exec(overview()[0]!.cacheControl)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    await page.clock.fastForward(Math.max(5, maxAge) * 1000 - 2000);
    expect(overview()).toHaveLength(1);
    await page.clock.fastForward(3000);
    for (let waited = 0; overview().length === 1 && waited < 10_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
    expect(overview()).toHaveLength(2);
  });

  test('fits at 1280 px and on a 390 px phone, and passes axe', async () => {
    // Pages of their own, on the real clock (axe waits on timers).
    const wide = await openPage({ query: '?view=sites', wait: false });
    await sitesDone(wide.page);
    expect(await clippedTables(wide.page)).toEqual([]);
    await shot(wide.page, 'sites');
    const phone = await openPage({ query: '?view=sites', wait: false, width: 390, height: 844 });
    await sitesDone(phone.page);
    expect(await clippedTables(phone.page)).toEqual([]);
    await shot(phone.page, 'sites-narrow', { fullPage: false });
    expect([...phone.problems, ...wide.problems]).toEqual([]);
    await phone.context.close();
    const { page } = wide;
    expect(await axeViolations(page)).toEqual([]);
    await wide.context.close();
  });
});
