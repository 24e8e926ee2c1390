import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { startLocalServer, type LocalServer } from '../../../bin/local/server';
import { buildExplorer, type ExplorerFile } from '../../../web/build';

/** The local server's explorer route: the page with the token filled in, the hashed assets, nothing else. */
let server: LocalServer;
let files: ExplorerFile[];
let tokens = 0;

beforeAll(async () => {
  files = buildExplorer();
  server = await startLocalServer({
    port: 0,
    devKey: await ephemeralDevKey(),
    openApi: {},
    explorer: { files, token: async () => `token-${++tokens}-"&<` },
  });
});
afterAll(() => server.close());

describe('the report explorer on the local server', () => {
  test('serves the page at / with a fresh development token filled in (escaped), revalidated each time, under the CSP', async () => {
    const first = await fetch(`${server.url}/`);
    const second = await (await fetch(`${server.url}/`)).text();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await first.text();
    expect(html).toContain('<meta name="lrs-token" content="token-1-&quot;&amp;&lt;">');
    expect(second).toContain('<meta name="lrs-token" content="token-2-&quot;&amp;&lt;">');
  });

  test('serves every asset the page names, cached for good', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const named = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(named).toHaveLength(2);
    for (const path of named) {
      const response = await fetch(server.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(
        Buffer.from(await response.arrayBuffer()).equals(Buffer.from(files.find((f) => f.path === path)!.body)),
      ).toBe(true);
    }
    expect((await fetch(server.url + named.find((p) => p.endsWith('.js'))!)).headers.get('content-type')).toBe(
      'text/javascript; charset=utf-8',
    );
  });

  test('serves no sign-in settings without --jwt-issuer; with them, /sign-in.json and a CSP that lets the page call the provider', async () => {
    expect((await fetch(`${server.url}/sign-in.json`)).status).toBe(404);
    const config = { issuer: 'http://localhost:9999/op', clientId: 'explorer', scope: 'openid' };
    const signingIn = await startLocalServer({
      port: 0,
      devKey: await ephemeralDevKey(),
      openApi: {},
      explorer: { files, signIn: { config, origins: ['http://localhost:9999'] } },
    });
    try {
      const response = await fetch(`${signingIn.url}/sign-in.json`);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.json()).toEqual(config);
      const page = await fetch(`${signingIn.url}/`);
      expect(page.headers.get('content-security-policy')).toContain("connect-src 'self' http://localhost:9999;");
      expect(await page.text()).toContain('<meta name="lrs-token" content="">');
    } finally {
      await signingIn.close();
    }
  });

  test('leaves other paths and methods to the API routes (a 404 problem here)', async () => {
    for (const [method, path] of [
      ['GET', '/assets/nope.js'],
      ['POST', '/'],
      ['GET', '/index.htm'],
    ] as const) {
      const response = await fetch(server.url + path, { method });
      expect({ method, path, status: response.status, type: response.headers.get('content-type') }).toEqual({
        method,
        path,
        status: 404,
        type: 'application/problem+json',
      });
    }
  });
});
