import type { Page } from 'playwright-core';
import { api, openPage, run, seededExplorer, shownRequest } from './support/explorer-page';

/**
 * The explorer says beside the result whether the rollups answered it ("Accelerated") or why not, in
 * words, from the answer's `Server-Timing` (docs/rollups.md); it says nothing when the service says
 * nothing (rollups off). In Chromium against `npm start`'s seeded server, which keeps rollups.
 */
const describeInBrowser = seededExplorer();

/** The note beside the result: shown or not, its words, and the source it was drawn for. */
const sourceNote = (page: Page) =>
  page.$eval('#answer-source', (p) => ({
    hidden: (p as HTMLElement).hidden,
    text: p.textContent?.replace(/\s+/g, ' ').trim() ?? '',
    source: (p as HTMLElement).dataset.source,
  }));

/** The server rebuilds the seeded grains in the background after start: wait until a report reads them. */
async function untilAccelerated(request: unknown): Promise<string> {
  for (let tries = 0; ; tries++) {
    const timing = (await api(request)).headers.get('server-timing') ?? '';
    if (timing.startsWith('source;desc="rollup"') || tries > 240) return timing;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describeInBrowser('which rows answered, in the explorer', () => {
  test('says the default report was accelerated: answered from the rollups', async () => {
    const { page, context, problems } = await openPage();
    expect(await untilAccelerated(await shownRequest(page))).toMatch(/^source;desc="rollup"/);
    await run(page);
    expect(await sourceNote(page)).toEqual({
      hidden: false,
      source: 'rollup',
      text: expect.stringMatching(/^Accelerated: answered from the rollups/),
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  test.each([
    {
      // By line and direction, with a stat of the zones' values: the request climbs back to the document
      // (reverseNested) and goes down into the zones, a second nested stage, which only the documents count.
      report: 'by line with a stat of the zones (reverseNested)',
      form: { breakdown: 'crossedPaths', statsField: 'polygons.value' },
      expected: { stage: '"reverseNested"', reason: 'more than one nested stage' },
    },
    {
      report: 'in 5-minute buckets',
      form: { interval: '5m' },
      expected: { stage: '"5m"', reason: 'a 5m interval is not a multiple of the grain' },
    },
  ])('says why a report $report was read from the documents', async ({ form, expected }) => {
    // Prepare
    const { page, context, problems } = await openPage();
    if (form.breakdown) await page.selectOption('#breakdown', form.breakdown);
    if (form.statsField) await page.selectOption('#statsField', form.statsField);
    if (form.interval) await page.fill('#interval', form.interval);
    const request = await shownRequest(page);
    expect(JSON.stringify(request)).toContain(expected.stage);
    // Act
    await run(page);
    // Assess: the words are the service's own reason.
    expect((await api(request)).headers.get('server-timing')).toBe(
      `source;desc="raw", raw-reason;desc="${expected.reason}"`,
    );
    expect(await sourceNote(page)).toEqual({
      hidden: false,
      source: 'raw',
      text: `Not accelerated: read from the documents, because ${expected.reason}.`,
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  test('says nothing when the service says nothing of the rows (rollups off)', async () => {
    // Prepare: a first answer that says which rows answered it.
    const { page, context, problems } = await openPage();
    await run(page);
    expect((await sourceNote(page)).hidden).toBe(false);
    // The answer as `npm start -- --no-rollups` gives it: the same body, no Server-Timing.
    await page.route('**/reports:query', async (route) => {
      const response = await route.fetch();
      const headers = Object.fromEntries(
        Object.entries(response.headers()).filter(([name]) => name !== 'server-timing'),
      );
      await route.fulfill({ response, headers });
    });
    // Act
    await page.fill('#interval', '1d');
    await run(page);
    // Assess: the new result is drawn, and nothing of the earlier answer's source stays beside it.
    expect(await page.isVisible('#chart canvas')).toBe(true);
    expect(await sourceNote(page)).toMatchObject({ hidden: true, text: '' });
    expect(problems).toEqual([]);
    await context.close();
  });
});
