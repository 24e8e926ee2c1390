import { connect, type Socket } from 'node:net';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { startLocalServer, type LocalServer } from '../../../bin/local/server';
import { openApiDocument } from '#shared/openapi/document';

/**
 * The local server's own edges, where Node's HTTP server meets a client before any handler: bodies
 * over API Gateway's 10 MiB, requests Node's parser refuses, clients that leave. Raw sockets, since
 * fetch and curl read while they send and so never see what a client that sends first sees.
 */
let server: LocalServer;
let port: number;
const lines: string[] = [];

beforeAll(async () => {
  server = await startLocalServer({
    port: 0,
    devKey: await ephemeralDevKey(),
    openApi: openApiDocument(),
    log: (l) => lines.push(l),
  });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** What a raw connection got: every byte, and how it ended (`end` is a clean close, FIN; `error` a reset). */
interface Exchange {
  readonly text: string;
  readonly ended: 'end' | `error ${string}`;
}

/**
 * Sends `head` and then `body` whole, reading nothing until the last byte is written (as Python's
 * `requests` does), then reads until the server closes or `idleMs` pass in silence.
 */
function sendThenRead(head: string, body: Buffer = Buffer.alloc(0), idleMs = 1_000): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (ended: Exchange['ended']) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), ended });
    };
    socket.pause();
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('end', () => done('end'));
    socket.once('error', (e: NodeJS.ErrnoException) => done(`error ${e.code}`));
    socket.write(head);
    socket.write(body, () => {
      socket.resume();
      // A connection kept alive after a whole answer: done once the answer is in and nothing follows.
      let timer = setTimeout(() => done('end'), idleMs);
      socket.on('data', () => {
        clearTimeout(timer);
        timer = setTimeout(() => done('end'), idleMs);
      });
    });
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const headerOf = (text: string, name: string) =>
  new RegExp(`^${name}: (.*)$`, 'im').exec(text.split('\r\n\r\n')[0] ?? '')?.[1];
/** The body of an answer, its chunks joined when it came chunked. */
function bodyOf(text: string): string {
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  if (headerOf(text, 'transfer-encoding') !== 'chunked') return body;
  let out = '';
  for (let at = 0, size: number; (size = parseInt(body.slice(at, body.indexOf('\r\n', at)), 16)) > 0; ) {
    const start = body.indexOf('\r\n', at) + 2;
    out += body.slice(start, start + size);
    at = start + size + 2;
  }
  return out;
}

describe('the local server, where Node meets the client', () => {
  test('answers 413 problem+json to a 40 MB body sent whole before reading, and the connection closes cleanly, never reset', async () => {
    // Prepare: 40 MiB, four times API Gateway's 10 MiB, declared in Content-Length.
    const size = 40 * 1024 * 1024;
    // Act
    const got = await sendThenRead(
      `POST /reports:query HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      Buffer.alloc(size, 0x20),
    );
    // Assess
    expect({ status: statusOf(got.text), type: headerOf(got.text, 'content-type'), ended: got.ended }).toEqual({
      status: 413,
      type: 'application/problem+json',
      ended: 'end',
    });
    expect(JSON.parse(bodyOf(got.text))).toMatchObject({
      type: '/problems#payload-too-large',
      status: 413,
      detail: 'The body must be at most 10485760 bytes.',
    });
  });

  test('answers 413 to a chunked body that grows past 10 MiB while it is read (no Content-Length), and closes cleanly', async () => {
    // Prepare: 15 chunks of 1 MiB (hex 100000), then the last chunk.
    const chunk = Buffer.concat([Buffer.from('100000\r\n'), Buffer.alloc(1024 * 1024, 0x20), Buffer.from('\r\n')]);
    const body = Buffer.concat([...Array.from({ length: 15 }, () => chunk), Buffer.from('0\r\n\r\n')]);
    // Act
    const got = await sendThenRead(
      `POST /reports:query HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      body,
    );
    // Assess
    expect({ status: statusOf(got.text), ended: got.ended }).toEqual({ status: 413, ended: 'end' });
  });

  test("answers problem+json where Node's parser refuses: 400 to a request it cannot read, 431 to 20 KiB of headers", async () => {
    // Act
    const garbage = await sendThenRead('NOT HTTP AT ALL\r\n\r\n');
    const huge = await sendThenRead(
      `GET /health HTTP/1.1\r\nHost: localhost:${port}\r\nX-Filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    // Assess
    expect([
      statusOf(garbage.text),
      headerOf(garbage.text, 'content-type'),
      headerOf(garbage.text, 'x-content-type-options'),
    ]).toEqual([400, 'application/problem+json', 'nosniff']);
    expect(JSON.parse(bodyOf(garbage.text))).toMatchObject({
      type: '/problems#malformed-request',
      status: 400,
      requestId: headerOf(garbage.text, 'x-request-id'),
    });
    expect([statusOf(huge.text), headerOf(huge.text, 'content-type')]).toEqual([431, 'application/problem+json']);
    expect(JSON.parse(bodyOf(huge.text))).toMatchObject({
      type: '/problems#headers-too-large',
      status: 431,
      maxBytes: 16 * 1024,
    });
  });

  test('says in one log line, without a stack, that a client left before its body was whole', async () => {
    // Prepare
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    // Act: half a body, then the connection goes.
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /reports:query HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"aggr`,
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.once('close', () => setTimeout(resolve, 200));
    });
    // Assess
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
    expect(lines.filter((l) => l.includes('client closed'))).toEqual([
      expect.stringMatching(
        /^POST \/reports:query client closed the connection before its request was whole [0-9a-f-]{36}$/,
      ),
    ]);
  });

  test('answers a CORS preflight without a token 204 with Allow, as the OPTIONS route does in AWS, never 401', async () => {
    const answer = await fetch(`${server.url}/reports:query`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect([answer.status, answer.headers.get('allow'), answer.headers.get('access-control-allow-origin')]).toEqual([
      204,
      'POST, OPTIONS',
      null,
    ]);
  });

  test("sends X-Content-Type-Options: nosniff on its own answers, the OpenAPI document's and a 404's", async () => {
    const [doc, missing] = await Promise.all([fetch(`${server.url}/openapi.json`), fetch(`${server.url}/nowhere`)]);
    expect([doc.headers.get('x-content-type-options'), missing.headers.get('x-content-type-options')]).toEqual([
      'nosniff',
      'nosniff',
    ]);
  });
});
