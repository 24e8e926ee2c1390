import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { attemptDelivery } from '#shared/webhooks/attempt';
import { createEndpoint, rotateSecret } from '#shared/webhooks/endpoints';
import { signDelivery } from '#shared/webhooks/signing';
import { createWebhookSink } from '#shared/webhooks/sink';
import { FileItemTable } from '../../../bin/local/file-table';

/**
 * The two verifiers of docs/webhooks.md, run as the page shows them (the code blocks are taken from
 * the page), against a real delivery: sent by the delivery worker to a real HTTP receiver, whose raw
 * body and headers the verifiers get. A tampered body, another secret and a stale timestamp fail.
 */
const ORG = 'c0000000-0000-4000-8000-00000000000c';
const PAGE = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
const block = (heading: string, language: string): string => {
  const section = PAGE.slice(PAGE.indexOf(heading));
  const start = section.indexOf(`\`\`\`${language}\n`) + language.length + 4;
  return section.slice(start, section.indexOf('```', start));
};

let dir: string;
let table: FileItemTable;
let server: Server;
let received: { headers: Record<string, string>; body: string }[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lrs-verifiers-'));
  table = FileItemTable.open(join(dir, 'table.jsonl'));
  received = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterEach(async () => {
  await new Promise((r) => server.close(r));
  table.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One real delivery of an alert with a body that is not plain ASCII, after a rotation (two signatures). */
async function deliver(): Promise<{ secrets: string[]; headers: Record<string, string>; body: string }> {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const context = { organizationId: ORG, actor: 'admin-1', now: new Date() };
  const { endpoint, secret: old } = await createEndpoint(table, context, {
    url,
    events: ['sensor.silent'],
    description: '',
    enabled: true,
  });
  const { secret } = await rotateSecret(table, context, endpoint.id, undefined);
  const refs: { organizationId: string; endpointId: string; deliveryId: string }[] = [];
  await createWebhookSink({
    table,
    queue: { enqueue: async (r) => void refs.push(...r) },
    now: () => new Date(),
  }).publish([
    {
      type: 'sensor.silent',
      id: 'e-1',
      organizationId: ORG,
      occurredAt: '2024-05-01T10:05:00.000Z',
      data: { state: 'started', ruleId: 'r-ü', locationId: 'café', cameraId: 'cam-1' },
    },
  ]);
  await attemptDelivery({ table, policy: { allowHttpLoopback: true }, now: () => new Date() }, refs[0]!);
  expect(received).toHaveLength(1);
  return { secrets: [secret, old], ...received[0]! };
}

interface Case {
  readonly secret: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function runTypeScript(cases: readonly Case[]): boolean[] {
  const file = join(dir, 'verify.ts');
  writeFileSync(
    file,
    `${block('### TypeScript', 'ts')}
const cases = JSON.parse(process.argv[2]!) as { secret: string; headers: Record<string, string>; body: string }[];
console.log(JSON.stringify(cases.map((c) => verifyWebhook(c.secret, c.headers, c.body))));
`,
  );
  const tsx = join(__dirname, '../../../node_modules/.bin/tsx');
  return JSON.parse(execFileSync(tsx, [file, JSON.stringify(cases)], { encoding: 'utf8' })) as boolean[];
}

function runPython(cases: readonly Case[]): boolean[] {
  const file = join(dir, 'verify.py');
  writeFileSync(
    file,
    `${block('### Python', 'python')}
import json, sys
cases = json.loads(sys.argv[1])
print(json.dumps([verify_webhook(c["secret"], c["headers"], c["body"].encode()) for c in cases]))
`,
  );
  return JSON.parse(execFileSync('python3', [file, JSON.stringify(cases)], { encoding: 'utf8' })) as boolean[];
}

test('the TypeScript and Python verifiers of docs/webhooks.md accept a real delivery with either secret, and refuse a forged one', async () => {
  // Prepare
  const { secrets, headers, body } = await deliver();
  const [current, previous] = secrets;
  // Signed right, but 301 s ago: a replay outside the window.
  const stale = signDelivery([current!], headers['webhook-id']!, new Date(Date.now() - 301_000), body);
  const cases: Case[] = [
    { secret: current!, headers, body },
    { secret: previous!, headers, body },
    { secret: current!, headers, body: body.replace('cam-1', 'cam-2') },
    { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, headers, body },
    { secret: current!, headers: { ...headers, ...stale }, body },
    { secret: current!, headers: { ...headers, 'webhook-id': 'msg_other' }, body },
  ];

  // Act
  const byTypeScript = runTypeScript(cases);
  const byPython = runPython(cases);

  // Assess: the reference implementation agrees on the real delivery.
  expect(new Webhook(current!).verify(body, headers)).toMatchObject({ type: 'sensor.silent' });
  expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
  expect(byTypeScript).toEqual([true, true, false, false, false, false]);
  expect(byPython).toEqual([true, true, false, false, false, false]);
});
