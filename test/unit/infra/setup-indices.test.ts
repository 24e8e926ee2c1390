import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { createSetupIndicesHandler } from '../../../functions/setup-indices';

interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly authorization: string;
  readonly body: Record<string, unknown>;
}

/**
 * A plain HTTP server standing in for a new domain: records every request, answers from `replies`;
 * a settings read finds no index yet (`{}`), as on a new domain, anything else is acknowledged.
 */
async function fakeDomain(replies: number[] = []) {
  const requests: Recorded[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: String(req.headers.authorization ?? ''),
        body: raw ? JSON.parse(raw) : {},
      });
      // A new domain: no index exists (HEAD 404) until it is created.
      const status = replies.shift() ?? (req.method === 'HEAD' ? 404 : 200);
      const ok = req.method === 'GET' && /\/_settings\b/.test(req.url ?? '') ? {} : { acknowledged: true };
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify(status === 200 ? ok : { error: 'unavailable' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

const event = (
  type: 'Create' | 'Update' | 'Delete',
  endpoint: string,
  replicas = '0',
): CloudFormationCustomResourceEvent =>
  ({
    RequestType: type,
    PhysicalResourceId: 'index-templates:(none)',
    ResourceProperties: {
      ServiceToken: 'arn',
      Endpoint: endpoint,
      IndexPrefix: '',
      Shards: '1',
      Replicas: replicas,
      TemplatesHash: 'x',
    },
  }) as unknown as CloudFormationCustomResourceEvent;

/** The bookkeeping index, then each collection's levels, finest first. */
const ROLLUP_INDICES = [
  'rollup-dirty',
  ...['movement-events', 'parking-lot-stats', 'parking-events'].flatMap((b) => [
    `rollup-${b}`,
    `rollup-${b}-1h`,
    `rollup-${b}-1d`,
  ]),
];

describe('the index setup custom resource', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    Object.assign(process.env, {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'token',
    });
  });
  afterAll(() => {
    process.env = saved;
  });

  it('puts one template per collection and per rollup index with SigV4-signed requests for service es', async () => {
    const domain = await fakeDomain();
    const result = await createSetupIndicesHandler()(event('Create', domain.url));
    await domain.close();
    expect(result.PhysicalResourceId).toBe('index-templates:(none)');
    // POST is what opensearch-js sends for putIndexTemplate: the stack grants es:ESHttpPost (and PUT) for it.
    expect(domain.requests.map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        'POST /_index_template/movement-events',
        'POST /_index_template/parking-events',
        'POST /_index_template/parking-lot-stats',
        'POST /_index_template/rollup-dirty',
        'POST /_index_template/rollup-movement-events',
        'POST /_index_template/rollup-movement-events-1d',
        'POST /_index_template/rollup-movement-events-1h',
        'POST /_index_template/rollup-parking-events',
        'POST /_index_template/rollup-parking-events-1d',
        'POST /_index_template/rollup-parking-events-1h',
        'POST /_index_template/rollup-parking-lot-stats',
        'POST /_index_template/rollup-parking-lot-stats-1d',
        'POST /_index_template/rollup-parking-lot-stats-1h',
        // The rollups' indices, each created once its HEAD finds it missing (ensureRollupIndices).
        ...ROLLUP_INDICES.flatMap((i) => [`HEAD /${i}`, `PUT /${i}?wait_for_active_shards=1`]),
      ].sort(),
    );
    for (const r of domain.requests.filter((q) => q.method !== 'POST'))
      expect(r.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request/);
    for (const r of domain.requests.filter((q) => q.method === 'POST')) {
      expect(r.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/,
      );
      expect(r.body).toMatchObject({ template: { settings: { number_of_shards: 1, number_of_replicas: 0 } } });
    }
  });

  it('retries while the new domain refuses requests', async () => {
    const domain = await fakeDomain([503, 503, 503, 503]);
    await createSetupIndicesHandler({ retryDelayMs: 10 })(event('Update', domain.url, '1'));
    await domain.close();
    // The templates, then (one replica asked) the replicas of the indices already there: none on a new domain.
    const succeeded = domain.requests.slice(-46);
    expect(succeeded.map((r) => `${r.method} ${r.url.replace(/\?.*/, '')}`)).toEqual([
      ...[
        'movement-events',
        'parking-lot-stats',
        'parking-events',
        ...['movement-events', 'parking-lot-stats', 'parking-events'].flatMap((b) => [
          `rollup-${b}`,
          `rollup-${b}-1h`,
          `rollup-${b}-1d`,
        ]),
        'rollup-dirty',
      ].map((t) => `POST /_index_template/${t}`),
      ...[
        'movement-events-*',
        'parking-lot-stats-*',
        'parking-events-*',
        ...ROLLUP_INDICES.slice(1),
        'rollup-dirty',
      ].map((p) => `GET /${p}/_settings/index.number_of_replicas`),
      ...ROLLUP_INDICES.flatMap((i) => [`HEAD /${i}`, `PUT /${i}`]),
    ]);
    expect(succeeded[0]!.body).toMatchObject({ template: { settings: { number_of_replicas: 1 } } });
  });

  it('fails the deployment when the domain never answers', async () => {
    const domain = await fakeDomain(Array(20).fill(503));
    await expect(
      createSetupIndicesHandler({ attempts: 2, retryDelayMs: 10 })(event('Create', domain.url)),
    ).rejects.toThrow();
    await domain.close();
  });

  it('leaves templates and data alone on delete', async () => {
    const domain = await fakeDomain();
    const result = await createSetupIndicesHandler()(event('Delete', domain.url));
    await domain.close();
    expect(result.PhysicalResourceId).toBe('index-templates:(none)');
    expect(domain.requests).toEqual([]);
  });
});
