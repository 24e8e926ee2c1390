/**
 * The response headers of the explorer's page and assets, wherever they are served (the local server,
 * CloudFront's response headers policy in lib/explorer.ts). The page loads only its own script and
 * stylesheet and talks to its own origin, and, when it signs people in, to its identity provider
 * (discovery, token and revocation endpoints): `connectSources` names those origins, so the policy
 * allows nothing else. The sign-in itself is a top-level navigation, which the policy does not govern.
 */
export function contentSecurityPolicy(connectSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...connectSources].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

export function securityHeaders(connectSources: readonly string[] = []): Readonly<Record<string, string>> {
  return {
    'content-security-policy': contentSecurityPolicy(connectSources),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

export const SECURITY_HEADERS = securityHeaders();

/** index.html: always revalidated, so a deployment shows at once. */
export const PAGE_CACHE_CONTROL = 'no-cache';
/** Assets carry their content hash in their name: cached for a year, never revalidated. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
