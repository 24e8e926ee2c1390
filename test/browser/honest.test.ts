import { DateTime } from 'luxon';
import { api, type Json, num, openPage, run, shownRequest, table, seededExplorer } from './support/explorer-page';

/**
 * The three ways the explorer used to mislead, and its empty and loading states, in Chromium against
 * `npm start`'s seeded server: future buckets drawn as 0, an older chart left under a failed request,
 * a result out of sight on a phone.
 */
const describeInBrowser = seededExplorer();

const berlinToday = () => DateTime.now().setZone('Europe/Berlin').startOf('day');

describeInBrowser('honest drawing', () => {
  test('leaves buckets that start after now empty instead of drawing them as 0', async () => {
    const { page, context, problems } = await openPage();
    const today = berlinToday();
    // Today and tomorrow by hour: tomorrow's 24 buckets at least are after now, whatever the hour.
    await page.fill('#firstDay', today.toISODate() as string);
    await page.fill('#lastDay', today.plus({ days: 1 }).toISODate() as string);
    await page.fill('#interval', '1h');
    await page.selectOption('#breakdown', '');
    const request = await shownRequest(page);
    const direct = JSON.parse((await api(request)).text) as Json[];
    const now = Date.now();
    const future = direct.filter((b) => Date.parse(b.timestamp as string) > now);
    expect(future.length).toBeGreaterThanOrEqual(24);
    // The service answers a future bucket as an empty one: only its timestamp (a count of 0).
    expect(future.every((b) => Object.keys(b).length === 1)).toBe(true);

    await run(page);
    const { rows } = await table(page);
    expect(rows.map(([t]) => t)).toEqual(direct.map((b) => b.timestamp));
    rows.forEach(([t, cell], i) => {
      if (Date.parse(t as string) > now) expect(cell).toBe('');
      else expect(num(cell as string)).toBe((direct[i]!.count as number | undefined) ?? 0);
    });
    expect(await page.textContent('#result-status')).toContain(
      `${future.length} buckets start after now and are left empty, not drawn as 0.`,
    );
    await page.focus('#chart');
    await page.keyboard.press('End');
    expect(await page.textContent('#legend .value')).toBe('–');
    expect(problems).toEqual([]);
    await context.close();
  });

  test('clears the previous result when a report fails, and says so', async () => {
    const { page, context, problems } = await openPage();
    await run(page);
    expect(await page.isVisible('#chart canvas')).toBe(true);
    await page.fill('#interval', '7x');
    await run(page);
    expect(await page.isVisible('#chart-area')).toBe(false);
    expect(await page.isVisible('#table-area')).toBe(false);
    expect(await page.textContent('#result-status')).toBe(
      'The report failed; see the message in the form. The previous result was cleared.',
    );

    // A refused token reads as no access, not as a mistake in the form.
    await page.fill('#interval', '1h');
    await run(page);
    expect(await page.isVisible('#chart canvas')).toBe(true);
    await page.fill('#token', 'not-a-token');
    await run(page);
    expect(await page.isVisible('#chart-area')).toBe(false);
    expect(await page.textContent('#result-status')).toMatch(/^No access: the token was refused/);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('an older run that answers late never draws over a newer run that failed', async () => {
    const { page, context, problems } = await openPage();
    // Two reports in the history: 1h (older) and 1d (newer).
    await page.fill('#interval', '1h');
    await run(page);
    await page.fill('#interval', '1d');
    await run(page);
    expect(await page.isVisible('#chart canvas')).toBe(true);
    // From now on the first report asked answers late (2 s) and well, the second at once with a 422.
    let asked = 0;
    const late = new Promise<void>((resolve) => setTimeout(resolve, 2_000));
    await page.route('**/reports:query', async (route) => {
      if (++asked === 1) {
        await late;
        return route.continue();
      }
      return route.fulfill({
        status: 422,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: '/problems#invalid-report',
          title: 'Invalid report',
          status: 422,
          detail: 'Refused.',
        }),
      });
    });
    // Back (runs the 1h report: it answers late), then at once forward (runs the 1d report: it fails).
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForFunction(() => document.querySelector('#result')?.getAttribute('aria-busy') === 'true');
    await page.goForward({ waitUntil: 'commit' });
    await page.waitForFunction(() => !/Running/.test(document.querySelector('#result-status')?.textContent ?? ''));
    await late;
    await page.waitForTimeout(500);
    // The newer run's failure stands: the late answer of the older run is not drawn.
    expect(asked).toBe(2);
    expect(await page.isVisible('#chart-area')).toBe(false);
    expect(await page.textContent('#result-status')).toBe(
      'The report failed; see the message in the form. The previous result was cleared.',
    );
    expect(await page.getAttribute('#result', 'aria-busy')).toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });

  test('says why there is nothing to draw: a range after now, a range without data', async () => {
    const { page, context, problems } = await openPage();
    const today = berlinToday();
    await page.fill('#firstDay', today.plus({ days: 10 }).toISODate() as string);
    await page.fill('#lastDay', today.plus({ days: 11 }).toISODate() as string);
    await run(page);
    expect(await page.textContent('#empty')).toBe('Nothing yet: the range starts after now.');
    expect(await page.isVisible('#chart-area')).toBe(false);

    // The seed holds 30 days: a year ago has nothing.
    await page.fill('#firstDay', today.minus({ years: 1 }).toISODate() as string);
    await page.fill('#lastDay', today.minus({ years: 1 }).plus({ days: 1 }).toISODate() as string);
    const direct = JSON.parse((await api(await shownRequest(page))).text) as Json[];
    expect(direct.every((b) => Object.keys(b).length === 1)).toBe(true);
    await run(page);
    expect(await page.textContent('#empty')).toMatch(/^No data: nothing was recorded in this range/);
    expect(await page.isVisible('#chart-area')).toBe(false);

    await page.fill('#lastDay', today.toISODate() as string);
    await run(page);
    expect(await page.isVisible('#empty')).toBe(false);
    expect(await page.isVisible('#chart canvas')).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('brings the result into view on a narrow screen', async () => {
    const { page, context, problems } = await openPage({ width: 360, height: 780 });
    await page.focus('#run');
    await run(page);
    const top = await page.$eval('#result', (el) => el.getBoundingClientRect().top);
    expect(top).toBeGreaterThanOrEqual(-1);
    expect(top).toBeLessThan(100);
    expect(problems).toEqual([]);
    await context.close();
  });
});
