import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_BODY_BYTES, printable, runSmoke } from '../../bin/smoke';

/**
 * The smoke CLI against a server that answers without end, its body full of terminal escapes: the
 * run ends, reads a bounded part of the body, and prints none of the escapes.
 */
const NOISE = 'broken \u001b[31mred\u001b[0m \u001b]0;pwned\u0007 \u009b2J \u0000\u0008\r ok\n\t';
/** Where the stub stops anyway: far past the bound, so that a client reading everything is seen. */
const STUB_LIMIT = 64 * 1024 * 1024;

let server: Server;
let url: string;
/** Bytes the stub has written, per request path. */
const sent = new Map<string, number>();

/** Writes NOISE as fast as the client reads it, until it hangs up or STUB_LIMIT is reached. */
function endless(path: string, res: ServerResponse): void {
  const chunk = Buffer.from(NOISE.repeat(4096));
  let bytes = 0;
  const write = (): void => {
    while (bytes < STUB_LIMIT && !res.destroyed) {
      bytes += chunk.length;
      sent.set(path, bytes);
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    res.end();
  };
  write();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    // GET /locations with a token: a 500 that never ends; without one (the second check): never reached.
    res.writeHead(req.url === '/ok/locations' ? 200 : 500, { 'content-type': 'application/json' });
    endless(req.url ?? '', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ESCAPES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

async function smoke(api: string): Promise<string[]> {
  const lines: string[] = [];
  await runSmoke({ api, token: 't', timeoutMs: 20_000 }, (line) => lines.push(line));
  return lines;
}

test('an endless error body: the run fails at once, having read a bounded part of it, and prints no escape', async () => {
  // Act
  const lines = await smoke(url);
  // Assess: the excerpt, cleaned; the stub could send little past the bound (socket buffers) before the client hung up
  expect(lines).toEqual([
    `smoke: ${url}`,
    expect.stringMatching(/^FAIL {2}GET \/locations: expected 200, got 500: (broken red {4}ok\n\t)+[\s\S]*…$/),
    'smoke: failed at check 1 of 5; the later checks did not run',
  ]);
  expect(lines.filter((l) => ESCAPES.test(l))).toEqual([]);
  expect(sent.get('/locations')).toBeLessThan(MAX_BODY_BYTES + 8 * 1024 * 1024);
});

test('an endless 200 body: refused as longer than any answer checked, unread past the bound', async () => {
  const lines = await smoke(`${url}/ok`);
  expect(lines[1]).toMatch(
    /^FAIL {2}GET \/locations: the body goes on past 1 MiB, more than any answer checked here: broken red {4}ok\n\tbroken red/,
  );
  expect(lines.filter((l) => ESCAPES.test(l))).toEqual([]);
  expect(sent.get('/ok/locations')).toBeLessThan(MAX_BODY_BYTES + 8 * 1024 * 1024);
});

test('printable keeps text, newlines and tabs, and drops ESC sequences, C0, DEL and C1', () => {
  expect(printable(NOISE)).toBe('broken red    ok\n\t');
  expect(printable('ünïcode ✓ \u001b[1;32mgreen\u001b[m\u007f')).toBe('ünïcode ✓ green');
});
