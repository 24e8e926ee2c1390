/**
 * The response headers of the explorer's page and assets, wherever they are served (the local server,
 * CloudFront's response headers policy in lib/explorer.ts). The page loads only its own script and
 * stylesheet and talks only to its own origin, so the policy allows nothing else.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** index.html: always revalidated, so a deployment shows at once. */
export const PAGE_CACHE_CONTROL = 'no-cache';
/** Assets carry their content hash in their name: cached for a year, never revalidated. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
