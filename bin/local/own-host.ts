/**
 * The `Host` values the local server answers for: its loopback names with its port, and the host it
 * was told to bind when that is another. Any other name reaching it is a page of another site whose
 * name was made to resolve to 127.0.0.1 (DNS rebinding): the same-origin policy then lets that page
 * read the answers, the explorer's development token among them, so the server answers 421 instead
 * (as webpack-dev-server's and Vite's `allowedHosts` do).
 */
export function ownHosts(port: number, bindHost: string): string[] {
  const bound = bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost;
  const names = [...new Set(['localhost', '127.0.0.1', '[::1]', bound.toLowerCase()])];
  // A client leaves out the port only when it is the scheme's default (RFC 9110 §7.2).
  return names.flatMap((name) => (port === 80 ? [`${name}:80`, name] : [`${name}:${port}`]));
}

/** Whether a request's Host header (none: not ours) is one of `hosts` (host names are case-insensitive). */
export const isOwnHost = (host: string | undefined, hosts: readonly string[]): boolean =>
  host !== undefined && hosts.includes(host.toLowerCase());
