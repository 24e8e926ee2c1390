import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Command } from 'commander';
import { createOpenSearchClient, openSearchNodes } from '#commons/clients/opensearch-client';
import { cliOptions } from '../../../bin/cli/options';

/** What the client really sends: captured by a loopback HTTP server. */
async function captureRequest(env: NodeJS.ProcessEnv): Promise<IncomingHttpHeaders> {
  let headers: IncomingHttpHeaders = {};
  const server = createServer((req, res) => {
    headers = req.headers;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"took":1,"hits":{"hits":[]}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = createOpenSearchClient({
      ...env,
      OPENSEARCH_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    await client.search({ index: 'x', body: { size: 0 } });
    return headers;
  } finally {
    server.close();
  }
}

describe('the OpenSearch client of the functions', () => {
  // The default credential chain reads the process environment, as in Lambda.
  const credentials = {
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_SESSION_TOKEN: 'session',
  };
  const saved = { ...process.env };
  beforeAll(() => Object.assign(process.env, credentials));
  afterAll(() => {
    process.env = saved;
  });

  test('signs every request with SigV4 for the es service in the function’s region', async () => {
    const headers = await captureRequest({ ...credentials, AWS_REGION: 'eu-central-1', OPENSEARCH_AUTH: 'sigv4' });
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-central-1\/es\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-security-token']).toBe('session');
  });

  test('sends no signature to a local node', async () => {
    const headers = await captureRequest({ ...credentials, OPENSEARCH_AUTH: 'none' });
    expect(headers.authorization).toBeUndefined();
  });

  test('refuses SigV4 without a region rather than signing for a wrong one', () => {
    expect(() =>
      createOpenSearchClient({ OPENSEARCH_URL: 'https://search.example', OPENSEARCH_AUTH: 'sigv4' }),
    ).toThrow('AWS_REGION');
  });
});

/** A port nothing listens on: bound once by the system, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('several nodes (a cluster you run)', () => {
  test('--opensearch-url repeated or comma-separated gives one list, in order, without repeats', () => {
    const parse = (...args: string[]) =>
      new Command().exitOverride().addOption(cliOptions.opensearchUrl()).parse(args, { from: 'user' }).opts()
        .opensearchUrl;
    expect(parse('--opensearch-url', 'http://a:9200/')).toBe('http://a:9200');
    expect(
      parse(
        '--opensearch-url',
        'http://a:9200,http://b:9200',
        '--opensearch-url',
        'http://c:9200',
        '--opensearch-url',
        'http://a:9200',
      ),
    ).toBe('http://a:9200,http://b:9200,http://c:9200');
    expect(() => parse('--opensearch-url', 'http://a:9200,b:9200')).toThrow('must be an http(s) URL');
    expect(openSearchNodes('http://a:9200, http://b:9200,')).toEqual(['http://a:9200', 'http://b:9200']);
  });

  test('a request to a node that is down is retried on the next one', async () => {
    // Two nodes down, one up: each of six searches lands on the live node (the dead ones are
    // marked dead on their first refusal and skipped after).
    let answered = 0;
    const server = createServer((_req, res) => {
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"took":1,"hits":{"hits":[]}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const [down1, down2] = [await closedPort(), await closedPort()];
    const client = createOpenSearchClient({
      OPENSEARCH_AUTH: 'none',
      OPENSEARCH_URL: `http://127.0.0.1:${down1},http://127.0.0.1:${down2},${live}`,
    });
    try {
      for (let i = 0; i < 6; i++) await client.search({ index: 'x', body: { size: 0 } });
      expect(answered).toBe(6);
    } finally {
      await client.close();
      server.close();
    }
  });
});
