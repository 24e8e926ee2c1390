import type { ServerResponse } from 'node:http';
import type { ExplorerFile } from '../../web/build';
import { SIGN_IN_CONFIG_PATH, type SignInConfig } from '../../web/src/model/sign-in-config';
import { ASSET_CACHE_CONTROL, PAGE_CACHE_CONTROL, securityHeaders } from '../../web/headers';

/** The report explorer as the local server serves it: the built files, and the token to fill in. */
export interface ExplorerSite {
  readonly files: readonly ExplorerFile[];
  /** A fresh development token for each page load (tokens expire; the server outlives them). */
  readonly token?: () => Promise<string>;
  /**
   * The explorer's sign-in settings (`--jwt-issuer`), served as `/sign-in.json` as the stack writes
   * them next to the page in AWS; its origins join the CSP's connect-src.
   */
  readonly signIn?: { readonly config: SignInConfig; readonly origins: readonly string[] };
}

const TOKEN_META = '<meta name="lrs-token" content="">';

/**
 * `GET /` (the page, with the development token filled in) and `GET /assets/...` (the hashed script,
 * stylesheet and source maps), with the headers CloudFront sends in AWS. Answers and returns true
 * when the request is for the explorer; anything else is left to the API routes.
 */
export async function serveExplorer(
  site: ExplorerSite,
  method: string,
  pathname: string,
  res: ServerResponse,
): Promise<boolean> {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const headers = securityHeaders(site.signIn?.origins);
  if (pathname === SIGN_IN_CONFIG_PATH && site.signIn) {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': PAGE_CACHE_CONTROL, ...headers });
    res.end(method === 'HEAD' ? undefined : JSON.stringify(site.signIn.config));
    return true;
  }
  const isPage = pathname === '/' || pathname === '/index.html';
  const file = site.files.find((f) => f.path === (isPage ? '/index.html' : pathname));
  if (!file || (!isPage && !pathname.startsWith('/assets/'))) return false;
  let body: Uint8Array | string = file.body;
  if (isPage && site.token) {
    body = new TextDecoder()
      .decode(file.body)
      .replace(TOKEN_META, `<meta name="lrs-token" content="${escapeAttribute(await site.token())}">`);
  }
  res.writeHead(200, {
    'content-type': file.contentType,
    'cache-control': isPage ? PAGE_CACHE_CONTROL : ASSET_CACHE_CONTROL,
    ...headers,
  });
  res.end(method === 'HEAD' ? undefined : body);
  return true;
}

const escapeAttribute = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
