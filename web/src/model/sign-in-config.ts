/**
 * How the explorer signs people in: written next to the page by the stack (lib/sign-in.ts, from its
 * Cognito user pool and the explorer's app client) or served by the local server with `--jwt-issuer`,
 * so one build of the page serves every stack. No file: the page signs no one in (the local
 * development token, or a token pasted by hand).
 */
export interface SignInConfig {
  /** The OpenID Connect issuer; its discovery document gives the endpoints. */
  readonly issuer: string;
  /** The explorer's public client (authorization code flow with PKCE, no secret). */
  readonly clientId: string;
  /** Space-separated; `openid` at least. */
  readonly scope: string;
  /**
   * Where sign-out goes when the provider's discovery names no `end_session_endpoint`: Cognito's
   * managed login `/logout`, which takes `client_id` and `logout_uri`.
   */
  readonly logoutEndpoint?: string;
}

export const SIGN_IN_CONFIG_PATH = '/sign-in.json';

/** The config, or a message naming what is wrong with it. */
export function readSignInConfig(value: unknown): SignInConfig | string {
  if (typeof value !== 'object' || value === null) return 'is not a JSON object';
  const v = value as Record<string, unknown>;
  for (const key of ['issuer', 'clientId', 'scope'] as const)
    if (typeof v[key] !== 'string' || v[key] === '') return `needs a string ${key}`;
  if (v.logoutEndpoint !== undefined && typeof v.logoutEndpoint !== 'string')
    return 'has a logoutEndpoint that is not a string';
  if (!String(v.scope).split(' ').includes('openid')) return 'needs the scope openid';
  return {
    issuer: v.issuer as string,
    clientId: v.clientId as string,
    scope: v.scope as string,
    ...(typeof v.logoutEndpoint === 'string' ? { logoutEndpoint: v.logoutEndpoint } : {}),
  };
}
