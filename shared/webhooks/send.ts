import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { isLoopback, refusalOf } from './address-rules';

/**
 * One POST of a delivery, safe to point anywhere: the URL's rules (https; http only to a loopback
 * address where the local server allows it), the host's addresses checked after resolution and the
 * connection made to the address checked (no second resolution that could answer otherwise), no
 * redirect followed (a 3xx is a failed attempt, as Standard Webhooks advises), at most
 * {@link MAX_RESPONSE_BYTES} of the answer read, and the whole attempt bounded by
 * {@link ATTEMPT_TIMEOUT_MS}.
 */

/** The spec of the issue: an attempt that has no answer within 5 s failed. */
export const ATTEMPT_TIMEOUT_MS = 5000;
/** How much of an answer is read before the connection is closed. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of an answer's body the delivery log keeps. */
export const KEPT_RESPONSE_CHARS = 256;

/** Resolves a host name to every address it has (node:dns's `lookup` with `all`). */
export type LookupAll = (hostname: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

export interface SendPolicy {
  /** `http://` to a loopback address (the local server's receivers on the same machine). @default false */
  readonly allowHttpLoopback?: boolean;
  /** @default node:dns lookup of every address */
  readonly lookup?: LookupAll;
  /** @default {@link ATTEMPT_TIMEOUT_MS} */
  readonly timeoutMs?: number;
}

export type SendOutcome =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly latencyMs: number;
      /** The start of the answer's body, for the delivery log. */
      readonly body: string;
    }
  | {
      readonly kind: 'failed';
      /**
       * `refused`: the URL or its addresses break the rules; `timeout`: no full answer in time; `network`: DNS or
       * connection.
       */
      readonly reason: 'refused' | 'timeout' | 'network';
      readonly message: string;
      readonly latencyMs: number;
    };

/**
 * What is wrong with an endpoint URL before any name is resolved (the address rules on a literal
 * address, the scheme, credentials and fragments), or undefined. The API answers it as a 400.
 */
export function urlProblem(url: string, policy: Pick<SendPolicy, 'allowHttpLoopback'>): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute https URL';
  }
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (parsed.hash) return 'must not have a fragment (#…)';
  const host = bareHost(parsed.hostname);
  const literal = isIP(host) !== 0;
  if (parsed.protocol === 'http:') {
    const local = policy.allowHttpLoopback && (host === 'localhost' || (literal && isLoopback(host)));
    if (!local)
      return policy.allowHttpLoopback
        ? 'must be an https URL (http only to localhost, 127.0.0.1 or [::1])'
        : 'must be an https URL';
  } else if (parsed.protocol !== 'https:') return 'must be an https URL';
  if (literal) {
    const refusal = refusalOf(host, policy.allowHttpLoopback ?? false);
    if (refusal) return `must not point at ${refusal.replace(`${host} is `, '')} (${host})`;
  }
  if (!literal && host === 'localhost' && !policy.allowHttpLoopback) return 'must not point at localhost';
  return undefined;
}

const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

const defaultLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** POSTs `body` with `headers` to `url` under the rules above. Never throws: every failure is an outcome. */
export async function sendDelivery(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  policy: SendPolicy = {},
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const problem = urlProblem(url, policy);
  if (problem) return { kind: 'failed', reason: 'refused', message: `The URL ${problem}.`, latencyMs: 0 };
  const target = new URL(url);
  const host = bareHost(target.hostname);
  const timeoutMs = policy.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  let address: string;
  try {
    address = await resolveChecked(host, target.protocol, policy, deadline);
  } catch (e) {
    const reason = e instanceof RefusedAddressError ? 'refused' : deadline.aborted ? 'timeout' : 'network';
    return { kind: 'failed', reason, message: (e as Error).message, latencyMs: elapsed() };
  }
  // Loaded here, not at import: node:https loads TLS and crypto, a cold start's cost for every function that imports
  // this room.
  const { request } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = request(
      {
        host: address,
        port: target.port || (target.protocol === 'https:' ? 443 : 80),
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        agent: false,
        // TLS checks the certificate against the URL's name, not the address connected to.
        ...(isIP(host) === 0 ? { servername: host } : {}),
        headers: {
          ...headers,
          host: target.host,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'lrs-webhooks/1',
        },
      },
      (response) => readBounded(response, (text) => finish(answered(response.statusCode ?? 0, elapsed(), text))),
    );
    const timer = setTimeout(
      () => {
        finish({
          kind: 'failed',
          reason: 'timeout',
          message: `No answer within ${timeoutMs} ms.`,
          latencyMs: elapsed(),
        });
        outgoing.destroy();
      },
      Math.max(0, timeoutMs - elapsed()),
    );
    outgoing.on('error', (e) =>
      finish({ kind: 'failed', reason: 'network', message: e.message.slice(0, 200), latencyMs: elapsed() }),
    );
    outgoing.end(body);
  });
}

const answered = (status: number, latencyMs: number, body: string): SendOutcome => ({
  kind: 'answered',
  status,
  latencyMs,
  body: body.slice(0, KEPT_RESPONSE_CHARS),
});

/** Reads at most MAX_RESPONSE_BYTES of the answer, then closes the connection. */
function readBounded(response: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const end = () => done(Buffer.concat(chunks).toString('utf8'));
  response.on('data', (chunk: Buffer) => {
    if (bytes >= MAX_RESPONSE_BYTES) return;
    chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - bytes));
    bytes += chunk.length;
    if (bytes >= MAX_RESPONSE_BYTES) {
      end();
      response.destroy();
    }
  });
  response.on('end', end);
  response.on('error', end);
}

class RefusedAddressError extends Error {}

/**
 * The address to connect to: every address of the host must be allowed (a name with one private address is refused).
 */
async function resolveChecked(
  host: string,
  protocol: string,
  policy: SendPolicy,
  signal: AbortSignal,
): Promise<string> {
  const addresses =
    isIP(host) !== 0
      ? [{ address: host, family: isIP(host) }]
      : await Promise.race([
          (policy.lookup ?? defaultLookup)(host),
          new Promise<never>((_, reject) =>
            signal.addEventListener('abort', () => reject(new Error(`${host} did not resolve in time`)), {
              once: true,
            }),
          ),
        ]);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  for (const { address } of addresses) {
    const refusal = refusalOf(address, policy.allowHttpLoopback ?? false);
    if (refusal)
      throw new RefusedAddressError(`${host} resolves to ${address}: ${refusal.replace(`${address} is `, '')}.`);
    if (protocol === 'http:' && !isLoopback(address))
      throw new RefusedAddressError(`${host} resolves to ${address}: http is allowed to loopback addresses only.`);
  }
  return addresses[0]!.address;
}
