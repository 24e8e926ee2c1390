import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { loadOrCreateDevKey } from '../../bin/local/auth/dev-key';
import { mintDevToken } from '../../bin/local/auth/tokens';
import { LOCAL_ORGANIZATION_ID } from '../../bin/local/config';
import { axeViolations, env, getJson, openPage, seededExplorer, shot } from './support/explorer-page';

/**
 * The admin screen in Chromium against `npm start`'s seeded server (three sites, each with a Main
 * entrance of capacity 120 and a Parking deck of 40, group ids 1 and 2; the page's token is an
 * admin's): an admin creates a location and finds it by name on the dashboard; changes a group's
 * capacity and the dashboard divides by the new one; a change someone else saved meanwhile is a 412
 * the form explains and reloads; the API's error is shown at its field; a gateway is registered and
 * revoked; a viewer has no admin screen and no write controls.
 */
const describeInBrowser = seededExplorer();

type Stored = {
  name: string;
  type: string;
  timezone: string;
  sensorGroups: {
    id: number;
    name: string;
    capacity?: number;
    capacityHistory?: { capacity: number | null }[];
    lines: unknown[];
    openingHours: unknown;
  }[];
};

/** The capacity field of the sensor group named `group` in the admin form. */
const capacityOf = (page: Page, group: string) =>
  page.locator('fieldset.admin-group', { hasText: `Sensor group ${group}` }).getByLabel('Capacity', { exact: true });

/** The admin screen, with a location's form open. */
async function editing(name: string): Promise<Page> {
  const { page } = await openPage({ query: '?view=admin', wait: false });
  await page.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
  // Drawn whole once its change log has answered.
  await page.waitForFunction(() =>
    /^Change log(?!Loading)/.test(document.getElementById('admin-changes')?.textContent ?? ''),
  );
  return page;
}

/** A viewer's token, as `npm run token -- --role viewer` mints it. */
async function viewerToken(): Promise<string> {
  const key = await loadOrCreateDevKey(join(env.service.dataDir, 'dev-key.json'));
  return mintDevToken(key, {
    organizationId: LOCAL_ORGANIZATION_ID,
    claimName: 'custom:organizationId',
    groups: { claimName: 'cognito:groups', names: ['viewer'] },
  });
}

describeInBrowser('the admin screen', () => {
  test('an admin creates a location, and the dashboard calls it by its name', async () => {
    // Prepare
    const { page, problems } = await openPage({ query: '?view=admin', wait: false });
    await page.getByRole('button', { name: 'New location' }).click();
    const form = page.locator('#admin-location-form');
    // Act
    await form.getByLabel('Id', { exact: true }).fill('lisbon-store');
    await form.getByLabel('Name', { exact: true }).fill('Lisbon Store');
    await form.getByLabel('Time zone').fill('Europe/Lisbon');
    await form.getByLabel('Group name').fill('Floor');
    await form.getByLabel('Capacity', { exact: true }).fill('30');
    await form.getByLabel('Camera').fill('lisbon-cam-1');
    await form.getByLabel('Line', { exact: true }).fill('door');
    await page.getByRole('button', { name: 'Create location' }).click();
    // Assess: saved as typed, with its first change log entry; the dashboard names it.
    await page.getByText('Saved Lisbon Store (revision 1).').waitFor();
    await page.locator('#admin-changes', { hasText: 'Created (revision 1)' }).waitFor();
    const stored = await getJson<Stored>('/locations/lisbon-store');
    expect([stored.name, stored.timezone, stored.sensorGroups.map((g) => [g.id, g.name, g.capacity])]).toEqual([
      'Lisbon Store',
      'Europe/Lisbon',
      [[1, 'Floor', 30]],
    ]);
    await page.goto(`${env.service.url}/?view=dashboard&location=lisbon-store`);
    await page.waitForFunction(() => document.getElementById('dash-title')?.textContent === 'Lisbon Store');
    expect(await page.$eval('#dash-location', (s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe(
      'Lisbon Store (Europe/Lisbon)',
    );
    expect(problems).toEqual([]);
  });

  test('deletes a location only once the admin confirms, and the API has it no more', async () => {
    // Prepare: the location the test before created.
    const page = await editing('Lisbon Store');
    const status = async () =>
      (
        await fetch(`${env.service.url}/locations/lisbon-store`, {
          headers: { authorization: `Bearer ${env.service.token}` },
        })
      ).status;
    // Act and assess: cancelled, nothing happens; confirmed, it is gone from the list and the API.
    const asked: string[] = [];
    page.once('dialog', (d) => void (asked.push(d.message()), d.dismiss()));
    await page.getByRole('button', { name: 'Delete location' }).click();
    expect(asked).toHaveLength(1);
    expect(await status()).toBe(200);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete location' }).click();
    await page.locator('#admin-editor').waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Edit Lisbon Store' }).waitFor({ state: 'detached' });
    expect(asked[0]).toMatch(/^Delete Lisbon Store\? /);
    expect(await status()).toBe(404);
  });

  test('an admin changes a group’s capacity in the page, and the dashboard shows the new utilization', async () => {
    // Prepare: the seeded deck holds 40.
    const page = await editing('Berlin Mall');
    await expect(capacityOf(page, 'Parking deck').inputValue()).resolves.toBe('40');
    // Act: 80 spots from now on.
    await capacityOf(page, 'Parking deck').fill('80');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // Assess: the API has it, with its history; the change log says what went from what to what.
    await page.getByText('Saved Berlin Mall (revision 2).').waitFor();
    await page.locator('#admin-changes li', { hasText: 'Changed (revision 2)' }).waitFor();
    expect(await page.textContent('#admin-changes li li')).toBe('/sensorGroups/2/capacity: 40 → 80');
    const deck = (await getJson<Stored>('/locations/berlin-mall')).sensorGroups.find((g) => g.id === 2)!;
    expect([deck.capacity, deck.capacityHistory?.map((c) => c.capacity)]).toEqual([80, [40, 80]]);
    // The dashboard divides the deck's people by 80 (the rule of docs/access.md: half up to 3 decimals).
    await page.goto(`${env.service.url}/?view=dashboard&location=berlin-mall`);
    await page.waitForSelector('#dash-live li');
    const live = await getJson<{ insights: { occupancy: { sensorGroup: { id: number }; occupancy: number }[] } }>(
      '/locations/berlin-mall/insights/live?filter=occupancy',
    );
    const people = live.insights.occupancy.find((g) => g.sensorGroup.id === 2)!.occupancy;
    const share = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 0 }).format(
      Math.round((people * 1000) / 80) / 1000,
    );
    const shown = await page.$$eval('#dash-live li', (items) =>
      items.map((li) => [li.querySelector('.name')?.textContent, li.querySelector('.share')?.textContent]),
    );
    expect(shown).toContainEqual(['Parking deck', `${share} of 80`]);
  });

  test('a change someone else saved meanwhile is not overwritten: the form says so, and reloads it', async () => {
    // Prepare: the form opened at revision 1; then another admin sets the entrance to 130 through the API.
    const page = await editing('Tokyo Station');
    const response = await fetch(`${env.service.url}/locations/tokyo-station`, {
      headers: { authorization: `Bearer ${env.service.token}` },
    });
    const stored = (await response.json()) as Stored;
    const body = {
      name: stored.name,
      type: stored.type,
      timezone: stored.timezone,
      sensorGroups: stored.sensorGroups.map(({ id, name, capacity, lines, openingHours }) => ({
        id,
        name,
        capacity: id === 1 ? 130 : capacity,
        lines,
        openingHours,
      })),
    };
    const put = await fetch(`${env.service.url}/locations/tokyo-station`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${env.service.token}`,
        'content-type': 'application/json',
        'if-match': response.headers.get('etag') as string,
      },
      body: JSON.stringify(body),
    });
    expect(put.status).toBe(200);
    // Act: this page still holds revision 1.
    await capacityOf(page, 'Main entrance').fill('125');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // Assess: refused and said so; nothing of this page's was written.
    const message = page.locator('#admin-form-error');
    await message.getByRole('button', { name: 'Reload this location' }).waitFor();
    expect(await message.locator('p').textContent()).toBe(
      'Someone else changed Tokyo Station since you opened it, so nothing was saved. Reload it to see their change, then make yours again.',
    );
    const entrance = (await getJson<Stored>('/locations/tokyo-station')).sensorGroups.find((g) => g.id === 1)!;
    expect(entrance.capacity).toBe(130);
    // Reloading shows their change, at revision 2.
    await message.getByRole('button', { name: 'Reload this location' }).click();
    await page.locator('#admin-changes li', { hasText: 'Changed (revision 2)' }).waitFor();
    await expect(capacityOf(page, 'Main entrance').inputValue()).resolves.toBe('130');
  });

  test('shows the API’s error at its field, and writes nothing', async () => {
    const page = await editing('Berlin Mall');
    await capacityOf(page, 'Main entrance').fill('0');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('[data-error-for="/sensorGroups/0/capacity"]:not([hidden])').waitFor();
    expect(await page.textContent('[data-error-for="/sensorGroups/0/capacity"]')).toBe(
      'must be an integer from 1 to 1000000',
    );
    expect(await capacityOf(page, 'Main entrance').getAttribute('aria-invalid')).toBe('true');
    expect(await page.textContent('#admin-form-error')).toContain('Invalid request');
    expect((await getJson<Stored>('/locations/berlin-mall')).sensorGroups[0]!.capacity).toBe(120);
  });

  test('registers a gateway, shows its secret once, and revokes it', async () => {
    const { page } = await openPage({ query: '?view=admin', wait: false });
    await page.getByLabel('Gateway name').fill('Berlin door');
    await page.getByRole('button', { name: 'Register gateway' }).click();
    const secret = await page.locator('#admin-gateway-secret-value').textContent();
    expect(secret).toMatch(/^[\w-]{43}$/);
    await page.getByRole('button', { name: 'Revoke Berlin door' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke Berlin door' }).click();
    await page.locator('#admin-gateway-list li', { hasText: /· revoked \d{4}-\d\d-\d\d \d\d:\d\d UTC/ }).waitFor();
    const clients = await getJson<{ clients: { name: string; revokedAt: string | null }[] }>('/ingest-clients');
    expect(clients.clients.map((c) => [c.name, c.revokedAt !== null])).toEqual([['Berlin door', true]]);
  });

  test('fits at 1280 px and on a 390 px phone, and passes axe', async () => {
    // Pages of their own, with a location's form and change log open and the gateway of the test before listed.
    for (const width of [1280, 390]) {
      const { page, problems, context } = await openPage({ query: '?view=admin', wait: false, width, height: 844 });
      await page.getByRole('button', { name: 'Edit Berlin Mall', exact: true }).click();
      await page.locator('#admin-changes li').first().waitFor();
      await page.locator('#admin-gateway-list li').first().waitFor();
      // Nothing wider than the window: no sideways scrolling.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await shot(page, width === 390 ? 'admin-narrow' : 'admin', { fullPage: width !== 390 });
      if (width === 1280) expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  test('a viewer has no admin screen and no write controls; the API refuses a viewer’s write anyway', async () => {
    // Prepare: the page with a viewer's token in place of the admin's the server fills in.
    const viewer = await viewerToken();
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.route(`${env.service.url}/?view=admin`, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(/(<meta name="lrs-token" content=")[^"]*"/, `$1${viewer}"`);
      await route.fulfill({ response, body: html });
    });
    // Act
    await page.goto(`${env.service.url}/?view=admin`);
    await page.waitForSelector('#sites-table tbody tr');
    // Assess: the home page instead (every site), no Admin link, nothing drawn of the admin screen.
    expect(await page.textContent('#page-h')).toBe('Every site');
    expect(await page.isVisible('#nav-admin')).toBe(false);
    expect(await page.isVisible('#admin-view')).toBe(false);
    expect(await page.locator('#admin-view *').count()).toBe(0);
    const post = await fetch(`${env.service.url}/locations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${viewer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'viewer-store', type: 'store', timezone: 'UTC', sensorGroups: [] }),
    });
    expect(post.status).toBe(403);
    await context.close();
  });
});
