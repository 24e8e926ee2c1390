import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { ephemeralDevKey } from '../../../bin/local/auth/dev-key';
import { verifyDevToken } from '../../../bin/local/auth/tokens';
import { FileItemTable } from '../../../bin/local/file-table';
import { issueToken, localIssuer } from '../../../bin/local/machine-credentials';
import { listClientsOf, registerMachineClient, revokeMachineClient } from '#shared/ingest/machine-clients';

/**
 * The local server's machine clients: POST /ingest-clients mints them, its token endpoint exchanges them for ingest
 * tokens.
 */
const ORG = '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01';
const claims = { organizationClaim: 'custom:organizationId', scope: 'lrs/ingest' };
const form = (body: string, authorization?: string) => ({
  contentType: 'application/x-www-form-urlencoded',
  authorization,
  body,
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

let dir: string;
let table: FileItemTable;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lrs-credentials-'));
  table = FileItemTable.open(join(dir, 'table.jsonl'));
});
afterEach(() => {
  table.close();
  rmSync(dir, { recursive: true, force: true });
});

test('gives a registered client an hour-long ingest token of its organization, for its id and secret only', async () => {
  // Prepare
  const key = await ephemeralDevKey();
  const client = await registerMachineClient(table, localIssuer('http://localhost:3000/oauth2/token'), {
    organizationId: ORG,
    name: 'Door',
    now: new Date(),
    scope: 'lrs/ingest',
  });
  // Act
  const granted = await issueToken(
    table,
    key,
    claims,
    form('grant_type=client_credentials', basic(client.clientId, client.clientSecret)),
  );
  const posted = await issueToken(
    table,
    key,
    claims,
    form(
      `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}&scope=lrs%2Fingest`,
    ),
  );
  const wrong = await issueToken(
    table,
    key,
    claims,
    form('grant_type=client_credentials', basic(client.clientId, `${client.clientSecret}x`)),
  );
  // Assess
  expect(granted.status).toBe(200);
  const body = JSON.parse(granted.body) as { access_token: string; token_type: string; expires_in: number };
  expect([body.token_type, body.expires_in, posted.status]).toEqual(['Bearer', 3600, 200]);
  expect(await verifyDevToken(key, body.access_token)).toMatchObject({
    'custom:organizationId': ORG,
    client_id: client.clientId,
    scope: 'lrs/ingest',
    sub: client.clientId,
  });
  expect([wrong.status, JSON.parse(wrong.body).error, wrong.headers['www-authenticate']]).toEqual([
    401,
    'invalid_client',
    'Basic realm="lrs-local"',
  ]);
  // The record keeps the secret's hash, never the secret.
  expect(JSON.stringify(await table.scan())).not.toContain(client.clientSecret);
  expect(decodeJwt(body.access_token).exp! - decodeJwt(body.access_token).iat!).toBe(3600);
});

test('refuses other grants, other scopes, other bodies, and a revoked client', async () => {
  const key = await ephemeralDevKey();
  const client = await registerMachineClient(table, localIssuer('x'), {
    organizationId: ORG,
    name: 'Door',
    now: new Date(),
    scope: 'lrs/ingest',
  });
  const auth = basic(client.clientId, client.clientSecret);
  const answers = [
    await issueToken(table, key, claims, form('grant_type=password', auth)),
    await issueToken(table, key, claims, form('grant_type=client_credentials&scope=openid', auth)),
    await issueToken(table, key, claims, { contentType: 'application/json', authorization: auth, body: '{}' }),
  ];
  expect(answers.map((a) => [a.status, JSON.parse(a.body).error])).toEqual([
    [400, 'unsupported_grant_type'],
    [400, 'invalid_scope'],
    [400, 'invalid_request'],
  ]);
  await revokeMachineClient(table, localIssuer('x'), ORG, client.clientId, new Date());
  const revoked = await issueToken(table, key, claims, form('grant_type=client_credentials', auth));
  expect([revoked.status, JSON.parse(revoked.body).error]).toEqual([401, 'invalid_client']);
  expect((await listClientsOf(table, ORG)).map((c) => c.revokedAt !== null)).toEqual([true]);
  await expect(
    revokeMachineClient(table, localIssuer('x'), 'b0000000-0000-4000-8000-00000000000b', client.clientId, new Date()),
  ).rejects.toMatchObject({ status: 404 });
});
