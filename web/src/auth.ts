import * as oauth from 'oauth4webapi';
import type { SignInConfig } from './model/sign-in-config';
import {
  displayName,
  forget,
  forgetPending,
  readPending,
  readSession,
  renewDelayMs,
  type Session,
  writePending,
  writeSession,
} from './model/session';

/**
 * Sign-in with the stack's identity provider (Cognito managed login in AWS, any OpenID Connect
 * provider locally with `npm start -- --jwt-issuer`): the authorization code flow with PKCE for a
 * public client, done by oauth4webapi, which also checks the ID token the token endpoint returns
 * (issuer, audience, nonce, times). The page sends that ID token to the API, whose authorizer checks
 * its signature. Renewal uses the refresh token a minute before the ID token expires; when it cannot,
 * the page says the session ended and offers to sign in again.
 */
let session: Session | undefined;
/** The renewal of the session, once startSignIn has set it up; one at a time. */
let renewal: (() => Promise<void>) | undefined;
let renewing: Promise<void> | undefined;

const renewOnce = (): Promise<void> =>
  (renewing ??= (renewal ?? (async () => undefined))().finally(() => (renewing = undefined)));

/**
 * The ID token to send: '' when no one is signed in (the page then uses the development token, if
 * any). A token due for renewal is renewed first: the timer may not have fired (a tab in the
 * background, a laptop asleep), and a request must not go out with a token about to lapse.
 */
export async function sessionToken(): Promise<string> {
  if (session && renewDelayMs(session, Date.now()) === 0) await renewOnce();
  return session?.idToken ?? '';
}

export interface SignInHooks {
  /** The session began (after the redirect back) or was found in the tab: load the data. */
  readonly onSignedIn: () => void;
  /** No session: the page shows no data, only the way to sign in. */
  readonly onSignedOut: (message: string) => void;
}

const storage = (): Storage => sessionStorage;
/** The callback and post-sign-out URL: the page itself, as registered with the provider (lib/sign-in.ts). */
const pageUrl = (): string => `${location.origin}/`;

/** http is allowed only for a provider on this machine (the local test's, a developer's own). */
function requestOptions(issuer: URL): { [oauth.allowInsecureRequests]?: boolean } {
  const loopback = issuer.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  return loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

/** The account bar in the page's header: who is signed in, and the buttons. */
function accountBar() {
  const bar = document.createElement('div');
  bar.className = 'account';
  bar.id = 'account';
  const status = document.createElement('span');
  status.id = 'account-status';
  status.setAttribute('role', 'status');
  const signIn = document.createElement('button');
  signIn.type = 'button';
  signIn.id = 'sign-in';
  signIn.textContent = 'Sign in';
  const signOut = document.createElement('button');
  signOut.type = 'button';
  signOut.id = 'sign-out';
  signOut.className = 'secondary';
  signOut.textContent = 'Sign out';
  bar.append(status, signIn, signOut);
  (document.querySelector('header') ?? document.body).append(bar);
  return {
    signIn,
    signOut,
    show(name: string | undefined, message = '') {
      status.textContent = name ? `Signed in as ${name}` : message;
      signIn.hidden = name !== undefined;
      signOut.hidden = name === undefined;
    },
  };
}

/**
 * Starts the page's sign-in with the settings found beside the page (./sign-in-probe.ts loads them,
 * and this module only then: a page that signs no one in never loads it); the hooks say when the
 * session begins and ends.
 */
export async function startSignIn(config: SignInConfig, hooks: SignInHooks): Promise<void> {
  const issuer = new URL(config.issuer);
  const options = requestOptions(issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...options }),
  );
  const client: oauth.Client = { client_id: config.clientId };
  const bar = accountBar();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;

  const begin = (next: Session) => {
    session = next;
    writeSession(storage(), next);
    bar.show(next.name);
    clearTimeout(timer);
    timer = setTimeout(() => void renewOnce(), renewDelayMs(next, Date.now()));
  };
  const end = (message: string) => {
    ended = true;
    session = undefined;
    clearTimeout(timer);
    forget(storage());
    bar.show(undefined, message);
    hooks.onSignedOut(message);
  };
  const fromTokens = (tokens: oauth.TokenEndpointResponse, refreshToken?: string): Session => {
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    if (!tokens.id_token || !claims) throw new Error('the provider returned no ID token');
    const refresh = tokens.refresh_token ?? refreshToken;
    return {
      idToken: tokens.id_token,
      ...(refresh ? { refreshToken: refresh } : {}),
      expiresAt: claims.exp * 1000,
      name: displayName(claims),
    };
  };

  async function renew(): Promise<void> {
    const refreshToken = session?.refreshToken;
    if (!refreshToken) return end('Your session has ended. Sign in again to go on.');
    try {
      const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, options);
      begin(fromTokens(await oauth.processRefreshTokenResponse(as, client, response), refreshToken));
    } catch {
      end('Your session has ended. Sign in again to go on.');
    }
  }

  renewal = renew;
  bar.signIn.addEventListener('click', () => void redirectToSignIn(as, config));
  bar.signOut.addEventListener(
    'click',
    () => void signOut(as, client, config, session, options, () => end('Signed out.')),
  );

  const pending = readPending(storage());
  const here = new URL(location.href);
  if (pending && (here.searchParams.has('code') || here.searchParams.has('error'))) {
    forgetPending(storage());
    history.replaceState(null, '', pending.returnTo);
    try {
      const params = oauth.validateAuthResponse(as, client, here, pending.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        pageUrl(),
        pending.codeVerifier,
        options,
      );
      begin(
        fromTokens(
          await oauth.processAuthorizationCodeResponse(as, client, response, {
            expectedNonce: pending.nonce,
            requireIdToken: true,
          }),
        ),
      );
    } catch (e) {
      end(`The sign-in failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  } else {
    session = readSession(storage());
    if (session && renewDelayMs(session, Date.now()) === 0) await renewOnce();
    else if (session) begin(session);
  }
  if (session) hooks.onSignedIn();
  else if (!ended) end('Sign in to see your organization’s data.');
}

/** To the provider's sign-in page, with a fresh state, nonce and PKCE verifier kept for the way back. */
async function redirectToSignIn(as: oauth.AuthorizationServer, config: SignInConfig): Promise<void> {
  if (!as.authorization_endpoint) throw new Error('the provider names no authorization endpoint');
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const pending = {
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    codeVerifier,
    returnTo: location.pathname + location.search + location.hash,
  };
  writePending(storage(), pending);
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    redirect_uri: pageUrl(),
    response_type: 'code',
    scope: config.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

/**
 * Forgets the session, revokes its refresh token (best effort: the page is signed out whatever the
 * provider answers), and ends the provider's own session too, so the next sign-in asks again: Cognito's
 * `/logout` when the config names it, else the discovery's end_session_endpoint (RP-Initiated Logout).
 */
async function signOut(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  config: SignInConfig,
  session: Session | undefined,
  options: object,
  ended: () => void,
): Promise<void> {
  ended();
  if (session?.refreshToken && as.revocation_endpoint) {
    await oauth
      .revocationRequest(as, client, oauth.None(), session.refreshToken, options)
      .then(oauth.processRevocationResponse)
      .catch(() => undefined);
  }
  let url: URL | undefined;
  if (config.logoutEndpoint) {
    url = new URL(config.logoutEndpoint);
    url.search = new URLSearchParams({ client_id: config.clientId, logout_uri: pageUrl() }).toString();
  } else if (as.end_session_endpoint) {
    url = new URL(as.end_session_endpoint);
    url.search = new URLSearchParams({
      client_id: config.clientId,
      post_logout_redirect_uri: pageUrl(),
      ...(session ? { id_token_hint: session.idToken } : {}),
    }).toString();
  }
  if (url) location.assign(url.href);
}
