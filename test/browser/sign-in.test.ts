import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { chromiumPath, launchChromium, noChromium } from '../../bin/dev/chromium';
import { type LocalService, startLocalService } from '../../bin/dev/local-service';
import { LOCAL_ORGANIZATION_ID } from '../../bin/local/config';
import { axeViolations } from './support/explorer-page';

/**
 * Signing in to the explorer end to end: a real OpenID Connect provider on this machine
 * (support/oidc-provider.mts: panva's oidc-provider, PKCE required of the public client), `npm start
 * -- --jwt-issuer <it> --jwt-client-id explorer`, and Chromium going through the provider's login
 * and consent pages. The ID tokens live 65 s, so the page renews its session (a minute before expiry)
 * while the test watches.
 */
const executablePath = chromiumPath();
const describeInBrowser = executablePath
  ? describe
  : (name: string, fn: () => void) => describe.skip(`${name} (skipped: ${noChromium()})`, fn);
const ROOT = join(__dirname, '../..');
const CLIENT_ID = 'explorer';
const ID_TOKEN_TTL_S = 65;
const EMAIL = 'operator@example.com';

let provider: { child: ChildProcess; issuer: string } | undefined;
let service: LocalService;
let browser: Browser;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function startProvider(redirectUri: string): Promise<{ child: ChildProcess; issuer: string }> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      'test/browser/support/oidc-provider.mts',
      redirectUri,
      CLIENT_ID,
      LOCAL_ORGANIZATION_ID,
      String(ID_TOKEN_TTL_S),
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      const found = /^issuer (\S+)$/m.exec(output);
      if (found) resolve(found[1] as string);
    });
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited (${code}):\n${output}`)));
  });
  return { child, issuer };
}

beforeAll(async () => {
  if (!executablePath) return;
  const port = await freePort();
  provider = await startProvider(`http://localhost:${port}/`);
  [service, browser] = await Promise.all([
    startLocalService({ PORT: String(port) }, ['--jwt-issuer', provider.issuer, '--jwt-client-id', CLIENT_ID]),
    launchChromium(executablePath),
  ]);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  provider?.child.kill('SIGTERM');
});

/** Through the provider's login and consent pages (development interactions: any password), back to the page. */
async function signInThrough(page: Page): Promise<void> {
  await page.click('#sign-in');
  await page.waitForURL(`${provider!.issuer}/**`);
  await page.fill('input[name="login"]', EMAIL);
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  await page.click('button:has-text("Continue")');
  await page.waitForURL(`${service.url}/**`);
  await page.waitForSelector('#location-list input');
}

async function runReport(page: Page): Promise<void> {
  await page.click('#run');
  await page.waitForFunction(() => /^Answered in/.test(document.querySelector('#result-status')?.textContent ?? ''));
}

const session = (page: Page) =>
  page.evaluate(
    () =>
      JSON.parse(sessionStorage.getItem('lrs-session') ?? 'null') as { idToken: string; refreshToken?: string } | null,
  );
const locationIds = (page: Page) =>
  page.$$eval('#location-list input', (boxes) => boxes.map((b) => (b as HTMLInputElement).value));

describeInBrowser('signing in to the explorer with an OpenID Connect provider', () => {
  let page: Page;
  const problems: string[] = [];
  /** The bearer tokens the page sent to the API, in order. */
  const sent: string[] = [];

  beforeAll(async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    page = await context.newPage();
    // The explorer's own errors only: the provider's pages ask for a web font this closed network refuses.
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && m.location().url.startsWith(service.url)) problems.push(`console: ${m.text()}`);
    });
    page.on('request', (r) => {
      const auth = r.headers().authorization;
      if (r.url().startsWith(service.url) && auth) sent.push(auth.replace(/^Bearer /, ''));
    });
  });
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  test('without a session, the page offers to sign in and asks the API nothing', async () => {
    await page.goto(`${service.url}/?view=report&keep=1#report`);
    await page.waitForSelector('#sign-in:visible');
    expect(await page.textContent('#account-status')).toBe('Sign in to see your organization’s data.');
    expect(await page.isHidden('#token')).toBe(true);
    expect(await locationIds(page)).toEqual([]);
    expect(sent).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
  });

  test('signs in through the provider’s login and consent pages, then shows the organization’s data with the ID token', async () => {
    await signInThrough(page);
    // Back where the sign-in started, without the code and state in the address.
    expect(page.url()).toBe(`${service.url}/?view=report&keep=1#report`);
    expect(await page.textContent('#account-status')).toBe(`Signed in as ${EMAIL}`);

    const direct = (await (
      await fetch(`${service.url}/locations`, { headers: { authorization: `Bearer ${service.token}` } })
    ).json()) as { id: string }[];
    expect(await locationIds(page)).toEqual(direct.map((l) => l.id));
    // What the API got: the provider's ID token for this client, carrying the organization.
    const stored = await session(page);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set([stored!.idToken]));
    expect(decodeJwt(stored!.idToken)).toMatchObject({
      iss: provider!.issuer,
      aud: CLIENT_ID,
      sub: EMAIL,
      'custom:organizationId': LOCAL_ORGANIZATION_ID,
    });
    expect(stored!.refreshToken).toEqual(expect.any(String));
    expect(await axeViolations(page)).toEqual([]);

    await runReport(page);
  });

  test('renews the ID token with the refresh token before it expires; the API takes the new one', async () => {
    const before = (await session(page))!.idToken;
    await page.waitForFunction(
      (old) => JSON.parse(sessionStorage.getItem('lrs-session') ?? '{}').idToken !== old,
      before,
      { timeout: 30_000 },
    );
    const after = (await session(page))!.idToken;
    expect(decodeJwt(after).exp).toBeGreaterThan(decodeJwt(before).exp!);
    sent.length = 0;
    await runReport(page);
    expect(sent).toEqual([after]);
  });

  test('renews a token due for renewal before sending it, though its timer never fired (a tab asleep)', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    try {
      const asleep = await context.newPage();
      // The page's timers never fire: the renewal due in 5 s waits for the next request.
      await asleep.clock.pauseAt(Date.now());
      // In order: the page's calls of the report route (with their token) and of the token endpoint (with their grant).
      const calls: string[] = [];
      asleep.on('request', (r) => {
        const auth = r.headers().authorization;
        if (r.url().startsWith(`${service.url}/reports`) && auth) calls.push(`report ${auth.replace(/^Bearer /, '')}`);
        if (r.url() === `${provider!.issuer}/token`)
          calls.push(`token ${new URLSearchParams(r.postData() ?? '').get('grant_type')}`);
      });
      await asleep.goto(`${service.url}/?view=report`);
      await signInThrough(asleep);
      expect(calls.filter((c) => c.startsWith('token'))).toEqual(['token authorization_code']);
      calls.length = 0;
      await asleep.clock.setSystemTime(Date.now() + 10_000);
      await runReport(asleep);
      // The renewal first, then the report with the renewed token. (A renewal within the second of the
      // sign-in may return the very same token, so the calls tell, not the token.)
      const renewed = (await session(asleep))!.idToken;
      expect(calls[0]).toBe('token refresh_token');
      expect(calls.slice(1)).toEqual([`report ${renewed}`]);
    } finally {
      await context.close();
    }
  });

  test('stays signed in across a reload of the tab', async () => {
    await page.reload();
    await page.waitForSelector('#location-list input');
    expect(await page.textContent('#account-status')).toBe(`Signed in as ${EMAIL}`);
  });

  test('signs out: the provider’s session ends, the refresh token is revoked, the page forgets the tokens and shows no data', async () => {
    const { refreshToken } = (await session(page))!;
    await page.click('#sign-out');
    await page.waitForURL(`${provider!.issuer}/**`);
    await page.click('button[name="logout"]');
    await page.waitForURL(`${service.url}/`);
    await page.waitForSelector('#sign-in:visible');
    expect(await session(page)).toBeNull();
    expect(await locationIds(page)).toEqual([]);
    const refused = await fetch(`${provider!.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken!, client_id: CLIENT_ID }),
    });
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    // The next sign-in asks for the login again.
    await page.click('#sign-in');
    await page.waitForSelector('input[name="login"]');
  });
});
