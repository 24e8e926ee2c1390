import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { ndjsonBatches } from '../../../bin/ingest/batches';
import { ingestCli } from '../../../bin/ingest-cli';

/**
 * The backfill client's own rules, against a stub server (node:http) that answers what a test
 * needs: a batch answered 503 with Retry-After is sent again after it, and counted; a 4xx is never
 * sent again; batches are cut by lines, decoded bytes and compressed bytes, keeping file line numbers.
 */
interface Stub {
  readonly url: string;
  readonly bodies: string[];
  readonly at: number[];
  close(): Promise<void>;
}

async function stub(
  answers: readonly { status: number; headers?: Record<string, string>; body: unknown }[],
): Promise<Stub> {
  const bodies: string[] = [];
  const at: number[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(gunzipSync(Buffer.concat(chunks)).toString());
      at.push(Date.now());
      const answer = answers[Math.min(bodies.length - 1, answers.length - 1)]!;
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    at,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lrs-backfill-'));
  file = join(dir, 'movementEvents.ndjson');
  writeFileSync(file, '{"a":1}\n\n{"a":2}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = async (args: readonly string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await ingestCli(['node', 'ingest', ...args], { log: (l) => out.push(l), error: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

test('sends a batch answered 503 with Retry-After again after that many seconds, and counts the retry', async () => {
  // Prepare
  const server = await stub([
    { status: 503, headers: { 'retry-after': '1' }, body: { status: 503, detail: 'busy' } },
    {
      status: 200,
      body: { accepted: 1, duplicates: 0, rejected: [{ line: 2, errors: [{ path: '/label', message: 'bad' }] }] },
    },
  ]);
  try {
    // Act
    const result = await run(['--api', server.url, '--token', 't', file]);
    // Assess: the same body twice, a second or more apart; batch line 2 is file line 3 (line 2 is blank)
    expect(server.bodies).toEqual(['{"a":1}\n{"a":2}\n', '{"a":1}\n{"a":2}\n']);
    expect(server.at[1]! - server.at[0]!).toBeGreaterThanOrEqual(950);
    expect(result).toEqual({
      code: 2,
      out: `${server.url}: 1 accepted, 0 duplicates, 1 rejected, 0 not sent (0 of 1 batches failed), 1 retries`,
      err: `${file}:3: /label bad`,
    });
  } finally {
    await server.close();
  }
});

test('never sends a batch refused with a 4xx again, and says the lines were not sent (exit 3)', async () => {
  const server = await stub([{ status: 400, body: { status: 400, detail: 'no' } }]);
  try {
    const result = await run(['--api', server.url, '--token', 't', file]);
    expect(server.bodies).toHaveLength(1);
    expect(result).toEqual({
      code: 3,
      out: `${server.url}: 0 accepted, 0 duplicates, 0 rejected, 2 not sent (1 of 1 batches failed), 0 retries`,
      err: `${file}:1-3: not sent: HTTP 400: no`,
    });
  } finally {
    await server.close();
  }
});

test('cuts batches by lines and by decoded bytes, keeps file line numbers, and refuses a line too long for any request', async () => {
  // Prepare: lines of 10 bytes with their newline; line 4 blank; line 6 is 22 bytes
  const text = ['{"n":"1"}', '{"n":"2"}', '{"n":"3"}', '', '{"n":"5"}', '{"n":"6-longer-line"}', '{"n":"7"}'].join(
    '\n',
  );
  const unsendable: number[] = [];
  // Act: at most 2 lines and 20 bytes a batch
  const batches = [];
  for await (const b of ndjsonBatches(
    Readable.from([text]),
    { maxLines: 2, maxDecodedBytes: 20, maxSentBytes: 1_000 },
    (l) => unsendable.push(l.line),
  )) {
    batches.push({ lines: b.fileLines, body: gunzipSync(b.body).toString() });
  }
  // Assess
  expect(unsendable).toEqual([6]);
  expect(batches).toEqual([
    { lines: [1, 2], body: '{"n":"1"}\n{"n":"2"}\n' },
    { lines: [3, 5], body: '{"n":"3"}\n{"n":"5"}\n' },
    { lines: [7], body: '{"n":"7"}\n' },
  ]);
});

test('halves a batch whose compressed body is over the bound until each part fits', async () => {
  const lines = Array.from({ length: 4 }, (_, i) => JSON.stringify({ n: i, pad: 'x'.repeat(10) }));
  // Prepare: one of these lines compresses to 39 bytes, two to 45, all four to 51
  const batches = [];
  for await (const b of ndjsonBatches(Readable.from([lines.join('\n')]), {
    maxLines: 10,
    maxDecodedBytes: 10_000,
    maxSentBytes: 44,
  }))
    batches.push(b.fileLines);
  expect(batches).toEqual([[1], [2], [3], [4]]);
});
