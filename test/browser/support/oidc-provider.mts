import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * A real OpenID Connect provider on this machine for the sign-in test: panva's certified
 * `oidc-provider`, started as its own process (it is an ES module; Jest runs the tests as CommonJS).
 * Arguments: the explorer's URL (its redirect and post-sign-out URL), the client id, the organization
 * every account belongs to, and the ID tokens' lifetime in seconds. It prints `issuer <url>` once it listens.
 *
 * Its development interactions are the login and consent pages: any login with any password signs
 * in, the login becoming the account's email. PKCE is required of the public client (the provider's
 * default for clients without a secret), and a refresh token is issued with every code, as Cognito does.
 */
const [redirectUri, clientId, organizationId, idTokenTtl] = process.argv.slice(2) as [string, string, string, string];

const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;

const configuration: Configuration = {
  clients: [
    {
      client_id: clientId,
      token_endpoint_auth_method: 'none',
      redirect_uris: [redirectUri],
      post_logout_redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ],
  // The organization is a claim of the ID token, under the name the service reads (ORGANIZATION_CLAIM's default).
  claims: { openid: ['sub', 'email', 'custom:organizationId'] },
  conformIdTokenClaims: false,
  findAccount: (_ctx, sub) => ({
    accountId: sub,
    claims: () => ({ sub, email: sub, 'custom:organizationId': organizationId }),
  }),
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  features: { devInteractions: { enabled: true }, revocation: { enabled: true }, rpInitiatedLogout: { enabled: true } },
  ttl: { IdToken: Number(idTokenTtl), AccessToken: Number(idTokenTtl) },
  cookies: { keys: ['sign-in-test'] },
};
const provider = new Provider(issuer, configuration);
server.on('request', provider.callback());
console.log(`issuer ${issuer}`);
