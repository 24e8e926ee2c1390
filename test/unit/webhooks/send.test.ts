import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusalOf } from '#shared/webhooks/address-rules';
import { type LookupAll, sendDelivery, urlProblem } from '#shared/webhooks/send';

/**
 * The address rules of webhook deliveries (SSRF), with hostile URLs: literal special-purpose
 * addresses, names that resolve to them (the lookup injected, as a resolver an attacker controls
 * would answer), a redirect, an endless answer and one that never comes, against real HTTP servers
 * on loopback.
 */
interface Received {
  readonly host: string | undefined;
  readonly path: string | undefined;
  readonly body: string;
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

async function receiver(
  answer: (req: IncomingMessage, res: import('node:http').ServerResponse) => void,
): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ host: req.headers.host, path: req.url, body });
      answer(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, received };
}

const resolvesTo =
  (...addresses: string[]): LookupAll =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('URL rules before any name is resolved', () => {
  test.each([
    ['http://hooks.example.com/x', 'must be an https URL'],
    ['ftp://hooks.example.com/x', 'must be an https URL'],
    ['not a url', 'must be an absolute https URL'],
    ['https://user:pw@hooks.example.com/x', 'must not carry a user name or password'],
    ['https://hooks.example.com/x#frag', 'must not have a fragment (#…)'],
    ['https://localhost/x', 'must not point at localhost'],
  ])('%s is refused: %s', (url, message) => {
    expect(urlProblem(url, {})).toBe(message);
  });

  test.each([
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://127.0.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://[::1]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://[64:ff9b::a00:1]/',
    'https://224.0.0.1/',
  ])('a literal special-purpose address is refused: %s', (url) => {
    expect(urlProblem(url, {})).toMatch(
      /^must not point at a private, loopback, link-local or otherwise special-purpose address/,
    );
  });

  test('public https URLs pass, and http only to loopback where the local server allows it', () => {
    expect([
      urlProblem('https://hooks.example.com/lrs?x=1', {}),
      urlProblem('https://93.184.216.34/', {}),
      urlProblem('http://localhost:8080/x', { allowHttpLoopback: true }),
      urlProblem('http://127.0.0.1:8080/x', { allowHttpLoopback: true }),
      urlProblem('http://[::1]:8080/x', { allowHttpLoopback: true }),
      urlProblem('http://hooks.example.com/x', { allowHttpLoopback: true }),
      urlProblem('http://10.0.0.1/x', { allowHttpLoopback: true }),
    ]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'must be an https URL (http only to localhost, 127.0.0.1 or [::1])',
      'must be an https URL (http only to localhost, 127.0.0.1 or [::1])',
    ]);
  });

  test('the address rules hold for the edges of each range', () => {
    expect(
      [
        '9.255.255.255',
        '10.0.0.0',
        '11.0.0.0',
        '172.15.255.255',
        '172.31.255.255',
        '172.32.0.0',
        '8.8.8.8',
        '2606:4700::1111',
      ].map((a) => refusalOf(a, false) === undefined),
    ).toEqual([true, false, true, true, false, true, true, true]);
  });
});

describe('a delivery is sent only to the addresses checked', () => {
  test('a name resolving to a private address is refused, and nothing is connected to', async () => {
    // Prepare: the "private" receiver is on loopback; the name resolves to 10.0.0.5 and then loopback.
    const target = await receiver((_, res) => res.end('ok'));
    const lookups: string[] = [];
    const lookup: LookupAll = async (host) => {
      lookups.push(host);
      return [{ address: '10.0.0.5', family: 4 }];
    };

    // Act
    const outcome = await sendDelivery(`https://internal.example.test:${target.port}/x`, {}, '{}', { lookup });

    // Assess
    expect(outcome).toEqual({
      kind: 'failed',
      reason: 'refused',
      message:
        'internal.example.test resolves to 10.0.0.5: a private, loopback, link-local or otherwise special-purpose address.',
      latencyMs: expect.any(Number),
    });
    expect([lookups, target.received]).toEqual([['internal.example.test'], []]);
  });

  test('a name with one public and one private address is refused (no choosing the good one)', async () => {
    const outcome = await sendDelivery('https://mixed.example.test/x', {}, '{}', {
      lookup: resolvesTo('93.184.216.34', '192.168.0.10'),
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'refused' });
  });

  test('a name resolving to loopback is refused in AWS, and reached at the address checked where loopback is allowed', async () => {
    // Prepare
    const target = await receiver((_, res) => res.end('thanks'));
    const url = `http://localhost:${target.port}/hook?a=1`;

    // Act
    const refused = await sendDelivery(url.replace('http://localhost', 'https://receiver.example.test'), {}, '{}', {
      lookup: resolvesTo('127.0.0.1'),
    });
    const sent = await sendDelivery(url, { 'webhook-id': 'msg_1' }, '{"a":1}', {
      lookup: resolvesTo('127.0.0.1'),
      allowHttpLoopback: true,
    });

    // Assess: the connection went to 127.0.0.1, the Host header is the URL's.
    expect(refused).toMatchObject({ kind: 'failed', reason: 'refused' });
    expect(sent).toMatchObject({ kind: 'answered', status: 200, body: 'thanks' });
    expect(target.received).toEqual([{ host: `localhost:${target.port}`, path: '/hook?a=1', body: '{"a":1}' }]);
  });

  test('http to a name resolving to a public address is refused even where loopback is allowed', async () => {
    const outcome = await sendDelivery('http://localhost/x', {}, '{}', {
      lookup: resolvesTo('93.184.216.34'),
      allowHttpLoopback: true,
    });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'refused',
      message: 'localhost resolves to 93.184.216.34: http is allowed to loopback addresses only.',
    });
  });

  test('a redirect is not followed: the 302 is the attempt’s answer and its target gets nothing', async () => {
    // Prepare
    const elsewhere = await receiver((_, res) => res.end('should not be reached'));
    const redirecting = await receiver((_, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/` });
      res.end();
    });

    // Act
    const outcome = await sendDelivery(`http://127.0.0.1:${redirecting.port}/`, {}, '{}', { allowHttpLoopback: true });

    // Assess
    expect(outcome).toMatchObject({ kind: 'answered', status: 302 });
    expect([redirecting.received.length, elsewhere.received.length]).toEqual([1, 0]);
  });

  test('an endless answer is read no further than 64 KiB, and only its start is kept', async () => {
    // Prepare: up to 256 MiB of "x" in 64 KiB chunks, for as long as the client reads.
    let closedEarly: boolean | undefined;
    const endless = await receiver((_, res) => {
      res.writeHead(500);
      let written = 0;
      res.on('close', () => (closedEarly = !res.writableFinished));
      const more = () => {
        while (written < 256 * 1024 * 1024 && !res.destroyed) {
          written += 64 * 1024;
          if (!res.write('x'.repeat(64 * 1024))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });

    // Act
    const outcome = await sendDelivery(`http://127.0.0.1:${endless.port}/`, {}, '{}', { allowHttpLoopback: true });
    await new Promise((r) => setTimeout(r, 100));

    // Assess: the client hung up long before the end.
    expect(outcome).toEqual({ kind: 'answered', status: 500, latencyMs: expect.any(Number), body: 'x'.repeat(256) });
    expect(closedEarly).toBe(true);
  });

  test('no answer within the time allowed is a timeout', async () => {
    const silent = await receiver(() => undefined);
    const outcome = await sendDelivery(`http://127.0.0.1:${silent.port}/`, {}, '{}', {
      allowHttpLoopback: true,
      timeoutMs: 200,
    });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'timeout', message: 'No answer within 200 ms.' });
  });
});
